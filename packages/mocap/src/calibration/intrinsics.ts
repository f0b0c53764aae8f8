/**
 * Lens calibration (Zhang's method with OpenCV's distortion model) from several views of a
 * checkerboard, through OpenCV.js's calibrateCameraExtended.
 */
import type { CameraModel } from '../camera/camera.ts';
import { checkerboardObjectPoints } from './checkerboard.ts';
import { loadOpenCv } from './opencv.ts';

export interface BoardSettings {
  /** INNER corners: a board of 5 x 8 squares has 4 x 7 inner corners (either way round). */
  rows: number;
  cols: number;
  squareSizeMm: number;
}

export interface IntrinsicsOptions {
  /** Estimate k3 too (default false: with few views k3 overfits; Pose2Sim's demo has k3 = 0). */
  estimateK3?: boolean;
  /** Assume no tangential distortion (default false). */
  zeroTangential?: boolean;
  /** Camera name for the returned model. */
  name?: string;
}

export interface IntrinsicsResult {
  /** Intrinsics and distortion; extrinsics are the identity (the camera at the world origin). */
  camera: CameraModel;
  /** Overall RMS reprojection error, pixels. */
  rmsPx: number;
  /** RMS reprojection error of each view, pixels. */
  perViewRmsPx: number[];
  /** Standard deviations of fx, fy, cx, cy, k1, k2, p1, p2, k3 (OpenCV's estimate). */
  stdDeviations: number[];
}

/**
 * Calibrates a camera from detected board corners (each view: rows * cols corners, flat xy, in
 * checkerboard.ts's order). Needs at least 3 views; 10-30 views at varied tilts are better.
 */
export async function calibrateIntrinsics(
  views: Float64Array[],
  board: BoardSettings,
  imageSize: { width: number; height: number },
  options: IntrinsicsOptions = {},
): Promise<IntrinsicsResult> {
  const n = board.rows * board.cols;
  const usable = views.filter((v) => v.length === 2 * n);
  if (usable.length < 3) {
    throw new Error(
      `Lens calibration needs the board in at least 3 images, found in ${usable.length}. ` +
        'Film or photograph the whole board from several angles (tilted 20-45°, near the image corners too).',
    );
  }
  const cv = await loadOpenCv();
  const object = checkerboardObjectPoints(board.rows, board.cols, board.squareSizeMm / 1000);
  const objectPoints = new cv.MatVector();
  const imagePoints = new cv.MatVector();
  const mats: { delete(): void }[] = [];
  try {
    for (const view of usable) {
      const o = cv.matFromArray(n, 1, cv.CV_32FC3, Array.from(object));
      const p = cv.matFromArray(n, 1, cv.CV_32FC2, Array.from(view));
      objectPoints.push_back(o);
      imagePoints.push_back(p);
      mats.push(o, p);
    }
    const cameraMatrix = new cv.Mat();
    const distCoeffs = new cv.Mat();
    const rvecs = new cv.MatVector();
    const tvecs = new cv.MatVector();
    const stdIntrinsics = new cv.Mat();
    const stdExtrinsics = new cv.Mat();
    const perViewErrors = new cv.Mat();
    mats.push(cameraMatrix, distCoeffs, rvecs, tvecs, stdIntrinsics, stdExtrinsics, perViewErrors);
    let flags = 0;
    if (!options.estimateK3) flags |= cv.CALIB_FIX_K3;
    if (options.zeroTangential) flags |= cv.CALIB_ZERO_TANGENT_DIST;
    const criteria = new cv.TermCriteria(cv.TermCriteria_COUNT + cv.TermCriteria_EPS, 100, 1e-10);
    // Present in the WASM build, missing from the package's type declarations.
    const withExtended = cv as unknown as { calibrateCameraExtended: (...args: unknown[]) => number };
    const rms = withExtended.calibrateCameraExtended(
      objectPoints,
      imagePoints,
      new cv.Size(imageSize.width, imageSize.height),
      cameraMatrix,
      distCoeffs,
      rvecs,
      tvecs,
      stdIntrinsics,
      stdExtrinsics,
      perViewErrors,
      flags,
      criteria,
    );
    const K = Array.from(cameraMatrix.data64F);
    const d = Array.from(distCoeffs.data64F);
    const distortion = new Float64Array(5);
    for (let i = 0; i < Math.min(5, d.length); i++) distortion[i] = d[i];
    return {
      camera: {
        name: options.name ?? 'camera',
        imageSize: { ...imageSize },
        intrinsics: Float64Array.from([K[0], 0, K[2], 0, K[4], K[5], 0, 0, 1]),
        distortion,
        rotationCameraFromWorld: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]),
        translationCameraFromWorldM: new Float64Array(3),
      },
      rmsPx: rms,
      perViewRmsPx: Array.from(perViewErrors.data64F),
      stdDeviations: Array.from(stdIntrinsics.data64F).slice(0, 9),
    };
  } finally {
    for (const m of mats) m.delete();
    objectPoints.delete();
    imagePoints.delete();
  }
}
