/**
 * A calibrated pinhole camera with OpenCV's distortion model (k1, k2, p1, p2, k3).
 * Matrices are row-major Float64Arrays. The extrinsics map world points (metres, OpenSim
 * convention: y up) into the camera frame: pointCamera = rotationCameraFromWorld · pointWorld +
 * translationCameraFromWorldM.
 */
export interface CameraModel {
  name: string;
  imageSize: { width: number; height: number };
  /** 3x3 intrinsic matrix [fx, 0, cx, 0, fy, cy, 0, 0, 1] in pixels. */
  intrinsics: Float64Array;
  /** OpenCV distortion coefficients [k1, k2, p1, p2, k3]. */
  distortion: Float64Array;
  /** 3x3 rotation from the world frame to the camera frame. */
  rotationCameraFromWorld: Float64Array;
  /** Translation from the world frame to the camera frame, metres. */
  translationCameraFromWorldM: Float64Array;
}

/** Applies the distortion model to normalised image coordinates (x/z, y/z). */
export function distortNormalised(distortion: Float64Array, x: number, y: number): [number, number] {
  const [k1 = 0, k2 = 0, p1 = 0, p2 = 0, k3 = 0] = distortion;
  const r2 = x * x + y * y;
  const radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3));
  return [x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x), y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y];
}

/** Projects a world point (metres) to distorted pixel coordinates; null when behind the camera. */
export function projectPoint(camera: CameraModel, pointWorld: ArrayLike<number>): [number, number] | null {
  const R = camera.rotationCameraFromWorld;
  const t = camera.translationCameraFromWorldM;
  const X = pointWorld[0];
  const Y = pointWorld[1];
  const Z = pointWorld[2];
  const xc = R[0] * X + R[1] * Y + R[2] * Z + t[0];
  const yc = R[3] * X + R[4] * Y + R[5] * Z + t[1];
  const zc = R[6] * X + R[7] * Y + R[8] * Z + t[2];
  if (zc <= 0) return null;
  const [xd, yd] = distortNormalised(camera.distortion, xc / zc, yc / zc);
  const K = camera.intrinsics;
  return [K[0] * xd + K[1] * yd + K[2], K[4] * yd + K[5]];
}

/**
 * Removes lens distortion from a pixel, returning normalised image coordinates (x/z, y/z).
 * Fixed-point iteration as in OpenCV's undistortPoints; converges in a few steps for phone lenses.
 */
export function undistortPixel(camera: CameraModel, u: number, v: number, iterations = 10): [number, number] {
  const K = camera.intrinsics;
  const fx = K[0];
  const fy = K[4];
  const cx = K[2];
  const cy = K[5];
  const skew = K[1];
  const yd = (v - cy) / fy;
  const xd = (u - cx - skew * yd) / fx;
  const [k1 = 0, k2 = 0, p1 = 0, p2 = 0, k3 = 0] = camera.distortion;
  let x = xd;
  let y = yd;
  for (let i = 0; i < iterations; i++) {
    const r2 = x * x + y * y;
    const radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3));
    const dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x);
    const dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y;
    x = (xd - dx) / radial;
    y = (yd - dy) / radial;
  }
  return [x, y];
}

/** The camera centre in world coordinates: -Rᵀ t. */
export function cameraCentreWorld(camera: CameraModel): [number, number, number] {
  const R = camera.rotationCameraFromWorld;
  const t = camera.translationCameraFromWorldM;
  return [
    -(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]),
    -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
    -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2]),
  ];
}
