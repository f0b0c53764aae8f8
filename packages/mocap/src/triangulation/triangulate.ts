import { undistortPixel, type CameraModel } from '../camera/camera.ts';
import { dltNullVector } from './dlt-null-vector.ts';

/**
 * Confidence-weighted linear triangulation (DLT, Hartley & Zisserman, Multiple View Geometry, §12.2)
 * of every keypoint in every frame from two or more calibrated cameras (DESIGN §2 step 5).
 *
 * Pixels are first undistorted to normalised image coordinates, so each camera's projection matrix
 * is its extrinsic [R | t]; each camera contributes the rows w·(x·P₃ − P₁) and w·(y·P₃ − P₂) with w
 * its detection confidence, as Pose2Sim and OpenCap weight them. Points below `minConfidence` are
 * dropped; a keypoint needs at least `minCameras` cameras; a view that disagrees with the others
 * (mean reprojection error above `maxReprojectionErrorPx`) is dropped. The reprojection error is measured in the
 * undistorted image, in pixels (the focal length times the normalised residual).
 */
export interface TriangulationOptions {
  /** 2D detections below this confidence are ignored. 0.4 is OpenCap's threshold (DESIGN §2 step 5). */
  minConfidence?: number;
  /** Cameras needed to triangulate a keypoint; 2 is the geometric minimum. */
  minCameras?: number;
  /**
   * Above this mean reprojection error (pixels) the worst camera is dropped and the point
   * re-triangulated, while more than minCameras remain. Infinity disables it. Pose2Sim's default for
   * 1080p video is 15 px (Config.toml, reproj_error_threshold_triangulation).
   */
  maxReprojectionErrorPx?: number;
  onProgress?: (done: number, total: number) => void;
}

export const DEFAULT_MIN_CONFIDENCE = 0.4;
export const DEFAULT_MAX_REPROJECTION_ERROR_PX = 15;

export interface Triangulation {
  frameCount: number;
  keypointCount: number;
  cameraCount: number;
  /** frames × keypoints × 3, metres in the world frame, NaN where fewer than minCameras saw the point. */
  pointsWorldM: Float64Array;
  /** frames × keypoints: how many cameras were used. */
  camerasUsed: Uint8Array;
  /** frames × keypoints × cameras, pixels; NaN where that camera did not contribute. */
  reprojectionErrorPx: Float32Array;
}

/**
 * @param observations per camera, frames × keypoints × 3 (x px, y px, confidence; NaN when not
 *   detected), all cameras on the same time base (see `alignToTimeBase`).
 */
export function triangulate(
  cameras: readonly CameraModel[],
  observations: readonly Float32Array[],
  frameCount: number,
  keypointCount: number,
  options: TriangulationOptions = {},
): Triangulation {
  const minConfidence = options.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const minCameras = Math.max(2, options.minCameras ?? 2);
  const maxErrorPx = options.maxReprojectionErrorPx ?? DEFAULT_MAX_REPROJECTION_ERROR_PX;
  const cameraCount = cameras.length;
  if (cameraCount > 30) throw new Error(`triangulate: at most 30 cameras are supported, got ${cameraCount}`);
  if (observations.length !== cameraCount) {
    throw new Error(`triangulate: ${cameraCount} cameras but ${observations.length} keypoint series`);
  }
  observations.forEach((series, c) => {
    if (series.length < frameCount * keypointCount * 3) {
      throw new Error(`triangulate: keypoint series of camera "${cameras[c].name}" is shorter than ${frameCount} frames`);
    }
  });

  const normalised = observations.map((series, c) => undistortObservations(cameras[c], series, frameCount * keypointCount, minConfidence));
  const projections = cameras.map((camera) => {
    const P = new Float64Array(12);
    for (let row = 0; row < 3; row++) {
      for (let col = 0; col < 3; col++) P[row * 4 + col] = camera.rotationCameraFromWorld[row * 3 + col];
      P[row * 4 + 3] = camera.translationCameraFromWorldM[row];
    }
    return P;
  });
  const focalX = cameras.map((camera) => camera.intrinsics[0]);
  const focalY = cameras.map((camera) => camera.intrinsics[4]);

  const pointsWorldM = new Float64Array(frameCount * keypointCount * 3).fill(Number.NaN);
  const camerasUsed = new Uint8Array(frameCount * keypointCount);
  const reprojectionErrorPx = new Float32Array(frameCount * keypointCount * cameraCount).fill(Number.NaN);
  const normalMatrix = new Float64Array(16);
  const scratch = new Float64Array(16);
  const solution = new Float64Array(4);
  const progressEvery = Math.max(1, Math.floor(frameCount / 100));

  const point = new Float64Array(3);
  const solvePoint = (observation: number, cameraMask: number): number => {
    normalMatrix.fill(0);
    for (let c = 0; c < cameraCount; c++) {
      if (!(cameraMask & (1 << c))) continue;
      const weight = normalised[c][observation * 3 + 2];
      addRow(normalMatrix, weight, normalised[c][observation * 3], projections[c], 8, 0);
      addRow(normalMatrix, weight, normalised[c][observation * 3 + 1], projections[c], 8, 4);
    }
    if (!dltNullVector(normalMatrix, scratch, solution) || Math.abs(solution[3]) < 1e-12) return Number.POSITIVE_INFINITY;
    point[0] = solution[0] / solution[3];
    point[1] = solution[1] / solution[3];
    point[2] = solution[2] / solution[3];
    let sum = 0;
    let count = 0;
    for (let c = 0; c < cameraCount; c++) {
      if (!(cameraMask & (1 << c))) continue;
      sum += reprojectionError(c, observation);
      count++;
    }
    return sum / count;
  };
  const reprojectionError = (c: number, observation: number): number => {
    const P = projections[c];
    const X = point[0];
    const Y = point[1];
    const Z = point[2];
    const depth = P[8] * X + P[9] * Y + P[10] * Z + P[11];
    if (!(depth > 0)) return Number.POSITIVE_INFINITY;
    const dx = (P[0] * X + P[1] * Y + P[2] * Z + P[3]) / depth - normalised[c][observation * 3];
    const dy = (P[4] * X + P[5] * Y + P[6] * Z + P[7]) / depth - normalised[c][observation * 3 + 1];
    return Math.hypot(focalX[c] * dx, focalY[c] * dy);
  };

  for (let frame = 0; frame < frameCount; frame++) {
    for (let keypoint = 0; keypoint < keypointCount; keypoint++) {
      const observation = frame * keypointCount + keypoint;
      let mask = 0;
      let used = 0;
      for (let c = 0; c < cameraCount; c++) {
        if (normalised[c][observation * 3 + 2] >= minConfidence) {
          mask |= 1 << c;
          used++;
        }
      }
      if (used < minCameras) continue;
      let meanError = solvePoint(observation, mask);
      // Outlier views (an occluded or mislabelled limb in one camera): drop the camera whose removal
      // lowers the mean reprojection error most, while the error is above the threshold and more than
      // minCameras remain, as Pose2Sim's triangulation does.
      while (meanError > maxErrorPx && used > minCameras) {
        let bestMask = mask;
        let bestError = meanError;
        for (let c = 0; c < cameraCount; c++) {
          if (!(mask & (1 << c))) continue;
          const error = solvePoint(observation, mask & ~(1 << c));
          if (error < bestError) {
            bestError = error;
            bestMask = mask & ~(1 << c);
          }
        }
        if (bestMask === mask) break;
        mask = bestMask;
        meanError = bestError;
        used--;
      }
      if (solvePoint(observation, mask) === Number.POSITIVE_INFINITY) continue;
      const out = observation * 3;
      pointsWorldM[out] = point[0];
      pointsWorldM[out + 1] = point[1];
      pointsWorldM[out + 2] = point[2];
      camerasUsed[observation] = used;
      for (let c = 0; c < cameraCount; c++) {
        if (mask & (1 << c)) reprojectionErrorPx[observation * cameraCount + c] = reprojectionError(c, observation);
      }
    }
    if (options.onProgress && (frame % progressEvery === 0 || frame === frameCount - 1)) options.onProgress(frame + 1, frameCount);
  }
  return { frameCount, keypointCount, cameraCount, pointsWorldM, camerasUsed, reprojectionErrorPx };
}

/** Adds (w·(u·P_row3 − P_row))ᵀ(…) to the 4×4 normal matrix, for u the image coordinate of that row. */
function addRow(normalMatrix: Float64Array, weight: number, u: number, P: Float64Array, thirdRow: number, row: number): void {
  const r0 = weight * (u * P[thirdRow] - P[row]);
  const r1 = weight * (u * P[thirdRow + 1] - P[row + 1]);
  const r2 = weight * (u * P[thirdRow + 2] - P[row + 2]);
  const r3 = weight * (u * P[thirdRow + 3] - P[row + 3]);
  normalMatrix[0] += r0 * r0; normalMatrix[1] += r0 * r1; normalMatrix[2] += r0 * r2; normalMatrix[3] += r0 * r3;
  normalMatrix[5] += r1 * r1; normalMatrix[6] += r1 * r2; normalMatrix[7] += r1 * r3;
  normalMatrix[10] += r2 * r2; normalMatrix[11] += r2 * r3;
  normalMatrix[15] += r3 * r3;
  normalMatrix[4] = normalMatrix[1]; normalMatrix[8] = normalMatrix[2]; normalMatrix[12] = normalMatrix[3];
  normalMatrix[9] = normalMatrix[6]; normalMatrix[13] = normalMatrix[7]; normalMatrix[14] = normalMatrix[11];
}

/**
 * Normalised undistorted coordinates (x, y) and confidence of every observation of one camera; NaN
 * confidence for points that are missing or below the threshold, so the hot loop skips them.
 */
function undistortObservations(camera: CameraModel, series: Float32Array, observationCount: number, minConfidence: number): Float64Array {
  const normalised = new Float64Array(observationCount * 3);
  for (let i = 0; i < observationCount; i++) {
    const u = series[i * 3];
    const v = series[i * 3 + 1];
    const confidence = series[i * 3 + 2];
    if (!(confidence >= minConfidence) || Number.isNaN(u) || Number.isNaN(v)) {
      normalised[i * 3 + 2] = Number.NaN;
      continue;
    }
    const [x, y] = undistortPixel(camera, u, v);
    normalised[i * 3] = x;
    normalised[i * 3 + 1] = y;
    normalised[i * 3 + 2] = confidence;
  }
  return normalised;
}
