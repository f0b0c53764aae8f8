import { type CameraModel, projectPoint } from '../camera/camera.ts';
import { drawLine, fillDisc, type Rgb, type RgbImage, strokeCircle } from './raster.ts';

/**
 * The calibration image: the detected board corners (circles, joined row by row, one colour per
 * row as OpenCV draws them) and the world axes the calibration defines, projected through the
 * calibrated camera (x red, y green, z blue, as in OpenSim's viewer).
 */
const ROW_COLOURS: Rgb[] = [
  [230, 25, 75],
  [245, 130, 48],
  [255, 225, 25],
  [60, 180, 75],
  [70, 140, 240],
  [145, 30, 180],
];
const AXIS_COLOURS: Rgb[] = [
  [230, 30, 30],
  [30, 200, 30],
  [40, 80, 255],
];

export interface BoardOverlay {
  /** rows * cols corners, [x0, y0, x1, y1, ...], in the pixels of the calibrated camera. */
  corners: Float64Array;
  rows: number;
  cols: number;
  camera: CameraModel;
  /** Length of the drawn axes, m (a few squares). */
  axisLengthM: number;
}

/** Draws onto `image`, which may be a downscaled copy of the camera's image. */
export function drawBoardOverlay(image: RgbImage, overlay: BoardOverlay): void {
  const scale = image.width / overlay.camera.imageSize.width;
  const thickness = Math.max(2, Math.round(image.height / 360));
  const spacing = Math.hypot(overlay.corners[2] - overlay.corners[0], overlay.corners[3] - overlay.corners[1]) * scale;
  const radius = Math.max(3, Math.min(12, spacing / 4));
  for (let r = 0; r < overlay.rows; r++) {
    const colour = ROW_COLOURS[r % ROW_COLOURS.length];
    for (let c = 0; c < overlay.cols; c++) {
      const i = 2 * (r * overlay.cols + c);
      const x = overlay.corners[i] * scale;
      const y = overlay.corners[i + 1] * scale;
      strokeCircle(image, x, y, radius, thickness, colour);
      if (c > 0)
        drawLine(image, overlay.corners[i - 2] * scale, overlay.corners[i - 1] * scale, x, y, thickness / 2, colour);
    }
  }
  const origin = projectPoint(overlay.camera, [0, 0, 0]);
  if (!origin) return;
  for (let axis = 0; axis < 3; axis++) {
    const end = [0, 0, 0];
    end[axis] = overlay.axisLengthM;
    const tip = projectPoint(overlay.camera, end);
    if (tip)
      drawLine(
        image,
        origin[0] * scale,
        origin[1] * scale,
        tip[0] * scale,
        tip[1] * scale,
        thickness * 2,
        AXIS_COLOURS[axis],
      );
  }
  fillDisc(image, origin[0] * scale, origin[1] * scale, thickness * 2, [255, 255, 255]);
}
