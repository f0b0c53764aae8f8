import type { CameraModel } from '../camera/camera.ts';
import { PointSolver, popCount } from './point-solver.ts';
import { errorStatistics } from './reprojection-summary.ts';
import { holdFeetRigid, type FootLink } from './rigid-feet.ts';
import { correctSideSwaps, type SideGroup } from './side-consistency.ts';
import type { BodyLandmarks } from './side-orientation.ts';

/**
 * Robust triangulation of every keypoint in every frame from two or more calibrated cameras
 * (DESIGN §2 step 5), by confidence-weighted DLT (see PointSolver).
 *
 * Points below `minConfidence` are dropped and a keypoint needs at least `minCameras` cameras.
 * Cameras that disagree (an occluded or mislabelled limb, a mis-detection, another person) are left
 * out as Pose2Sim's triangulation does: the largest subset of cameras whose views reproject
 * under `maxReprojectionErrorPx` on average is kept (with the automatic threshold, no view of it
 * more than VIEW_ERROR_CAP times that off; among subsets of that size under it, the
 * one whose point is nearest the keypoint's place in the frame before, else the lowest error: two
 * views that both mislabelled a limb agree with each other as well as the other two do (a 2-2
 * split of four cameras), often better, and the wrong pair puts the point on the other limb
 * (the multi-person demo's left wrist on the right one, 0.9 m away, for three frames); with a
 * threshold given, the lowest error). When
 * not even two agree the point is left missing, for the gap filling to bridge; so is a point from
 * two views whose rays meet at too small an angle to measure its depth (MIN_TWO_VIEW_ANGLE_DEG). With `sideGroups`,
 * each camera's left/right labels are first made consistent with the other cameras
 * (correctSideSwaps). With `footLinks` and the automatic threshold, the feet two views alone place
 * are then held to their shape (holdFeetRigid).
 */
export interface TriangulationOptions {
  /** 2D detections below this confidence are ignored. 0.4 is OpenCap's threshold (DESIGN §2 step 5). */
  minConfidence?: number;
  /** Cameras needed to triangulate a keypoint; 2 is the geometric minimum. */
  minCameras?: number;
  /**
   * Cameras agree on a point when its mean reprojection error over them is at most this (pixels):
   * Pose2Sim's rule as it is, to reproduce its results. Automatic (the default), no single view may
   * also be above VIEW_ERROR_CAP times the threshold.
   * Infinity keeps every camera; by default it follows the keypoints' noise (automaticThresholdPx).
   */
  maxReprojectionErrorPx?: number;
  /** Left/right keypoint pairs whose sides are checked across cameras before triangulating. */
  sideGroups?: readonly SideGroup[];
  /** The landmarks that name the sides by body geometry where no third camera can vote (orientSides). */
  bodyLandmarks?: BodyLandmarks;
  /**
   * The foot links held to their trial length after triangulating (holdFeetRigid), with the
   * automatic threshold: a threshold given is Pose2Sim's triangulation as it is.
   */
  footLinks?: readonly FootLink[];
  onProgress?: (done: number, total: number) => void;
}

export const DEFAULT_MIN_CONFIDENCE = 0.4;
/**
 * The smallest automatic disagreement threshold: Pose2Sim's default for 1080p video, 15 px of
 * mean error (Config.toml, reproj_error_threshold_triangulation).
 */
export const MIN_MAX_REPROJECTION_ERROR_PX = 15;

export interface Triangulation {
  frameCount: number;
  keypointCount: number;
  cameraCount: number;
  /** frames × keypoints × 3, metres in the world frame, NaN where fewer than minCameras agreed on the point. */
  pointsWorldM: Float64Array;
  /** frames × keypoints: how many cameras were used. */
  camerasUsed: Uint8Array;
  /** frames × keypoints × cameras, pixels; NaN where that camera did not contribute. */
  reprojectionErrorPx: Float32Array;
  /** Per camera: confident detections left out because they disagreed with the other cameras. */
  excludedPerCamera: Uint32Array;
  /** Per camera: (frame, body part) detections whose left and right sides were exchanged. */
  sidesSwappedPerCamera: Uint32Array;
  /** Points seen by enough cameras but left missing because no `minCameras` of them agreed (or two alone saw it nearly along one line). */
  rejectedPoints: number;
  /** The disagreement threshold used, pixels. */
  maxReprojectionErrorPx: number;
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
  const cameraCount = cameras.length;
  if (cameraCount > 30) throw new Error(`triangulate: at most 30 cameras are supported, got ${cameraCount}`);
  if (observations.length !== cameraCount) {
    throw new Error(`triangulate: ${cameraCount} cameras but ${observations.length} keypoint series`);
  }
  observations.forEach((series, c) => {
    if (series.length < frameCount * keypointCount * 3) {
      throw new Error(
        `triangulate: keypoint series of camera "${cameras[c].name}" is shorter than ${frameCount} frames`,
      );
    }
  });

  const solver = PointSolver.fromPixels(cameras, observations, frameCount * keypointCount, minConfidence);
  const sidesSwappedPerCamera = options.sideGroups
    ? correctSideSwaps(solver, frameCount, keypointCount, options.sideGroups, SIDE_ERROR_CAP_PX, options.bodyLandmarks)
    : new Uint32Array(cameraCount);

  const pointsWorldM = new Float64Array(frameCount * keypointCount * 3).fill(Number.NaN);
  const camerasUsed = new Uint8Array(frameCount * keypointCount);
  const cameraMasks = new Uint32Array(frameCount * keypointCount);
  const reprojectionErrorPx = new Float32Array(frameCount * keypointCount * cameraCount).fill(Number.NaN);
  const excludedPerCamera = new Uint32Array(cameraCount);
  let rejectedPoints = 0;
  const progressEvery = Math.max(1, Math.floor(frameCount / 100));

  /** Mean reprojection error of the point last solved over the cameras in `mask`; Infinity when one view is above `viewCapPx`. */
  const meanError = (observation: number, mask: number, viewCapPx = Number.POSITIVE_INFINITY): number => {
    let sum = 0;
    for (let c = 0; c < cameraCount; c++) {
      if (!(mask & (1 << c))) continue;
      const error = solver.reprojectionError(c, observation);
      if (error > viewCapPx) return Number.POSITIVE_INFINITY;
      sum += error;
    }
    return sum / popCount(mask);
  };
  const maxErrorPx =
    options.maxReprojectionErrorPx ?? automaticThresholdPx(solver, frameCount, keypointCount, meanError);
  // A threshold given explicitly is Pose2Sim's rule as it is (the mean only, the lowest error).
  const automatic = options.maxReprojectionErrorPx === undefined;
  const viewCapPx = automatic ? VIEW_ERROR_CAP * maxErrorPx : Number.POSITIVE_INFINITY;

  for (let frame = 0; frame < frameCount; frame++) {
    for (let keypoint = 0; keypoint < keypointCount; keypoint++) {
      const observation = frame * keypointCount + keypoint;
      const seen = solver.seenBy(observation);
      const seenCount = popCount(seen);
      if (seenCount < minCameras) continue;
      let mask = 0;
      if (Number.isFinite(maxErrorPx)) {
        let closest = seen;
        // The keypoint's place in the frame before, when it was triangulated there.
        const before = frame > 0 ? (observation - keypointCount) * 3 : -1;
        const hasBefore = automatic && before >= 0 && !Number.isNaN(pointsWorldM[before]);
        for (let size = seenCount; size >= minCameras && mask === 0; size--) {
          let closestError = Number.POSITIVE_INFINITY;
          let nearestM = Number.POSITIVE_INFINITY;
          let nearest = 0;
          for (const subset of subsetsOfSize(seen, closest, size)) {
            if (!solver.solve(observation, subset)) continue;
            const error = meanError(observation, subset, viewCapPx);
            if (error < closestError) [closestError, closest] = [error, subset];
            if (hasBefore && error <= maxErrorPx) {
              const p = solver.point;
              const movedM = Math.hypot(
                p[0] - pointsWorldM[before],
                p[1] - pointsWorldM[before + 1],
                p[2] - pointsWorldM[before + 2],
              );
              if (movedM < nearestM) [nearestM, nearest] = [movedM, subset];
            }
          }
          if (closestError <= maxErrorPx) mask = nearest !== 0 ? nearest : closest;
        }
      } else {
        mask = seen;
      }
      if (mask === 0 || !solver.solve(observation, mask) || narrowTwoViews(solver, mask)) {
        rejectedPoints++;
        continue;
      }
      pointsWorldM.set(solver.point, observation * 3);
      cameraMasks[observation] = mask;
      camerasUsed[observation] = popCount(mask);
      for (let c = 0; c < cameraCount; c++) if (!(mask & (1 << c)) && seen & (1 << c)) excludedPerCamera[c]++;
    }
    if (options.onProgress && (frame % progressEvery === 0 || frame === frameCount - 1))
      options.onProgress(frame + 1, frameCount);
  }
  if (options.footLinks && automatic)
    holdFeetRigid(solver, pointsWorldM, cameraMasks, frameCount, keypointCount, options.footLinks);
  // Each view's error at the point as it ends up (the feet held may have moved).
  for (let observation = 0; observation < frameCount * keypointCount; observation++) {
    if (cameraMasks[observation] === 0) continue;
    const point = pointsWorldM.subarray(observation * 3, observation * 3 + 3);
    for (let c = 0; c < cameraCount; c++)
      if (cameraMasks[observation] & (1 << c))
        reprojectionErrorPx[observation * cameraCount + c] = solver.reprojectionError(c, observation, point);
  }
  return {
    frameCount,
    keypointCount,
    cameraCount,
    pointsWorldM,
    camerasUsed,
    reprojectionErrorPx,
    excludedPerCamera,
    sidesSwappedPerCamera,
    rejectedPoints,
    maxReprojectionErrorPx: maxErrorPx,
  };
}

/**
 * Two views whose lines of sight meet at the point under less than this are no measure of it: the
 * point's error along the rays is 1/sin of that angle times its error across them (Hartley &
 * Zisserman, Multiple View Geometry, §12.6: the uncertainty grows as the rays become parallel), and
 * at 20° nearly three times. Two phones facing each other across the subject see the head and arms
 * so (the Pose2Sim demo's cam01+cam03 and cam02+cam04: 15-25° at the head and shoulders, and the
 * forearm turned along the line between cam02 and cam04 came out 22-48 cm long). Our choice, on
 * that demo: no hip, knee or ankle angle of either pair moved away from four cameras', and neither
 * pair's median segment SD grew.
 */
export const MIN_TWO_VIEW_ANGLE_DEG = 20;

/** Whether the point last solved came from two views alone whose rays meet under MIN_TWO_VIEW_ANGLE_DEG. */
function narrowTwoViews(solver: PointSolver, mask: number): boolean {
  if (popCount(mask) !== 2) return false;
  const low = 31 - Math.clz32(mask & -mask);
  const high = 31 - Math.clz32(mask);
  return solver.raysAngleDeg(low, high) < MIN_TWO_VIEW_ANGLE_DEG;
}

/** A view counts at most this much when comparing side labellings: four times Pose2Sim's threshold. */
const SIDE_ERROR_CAP_PX = 4 * MIN_MAX_REPROJECTION_ERROR_PX;

/**
 * The disagreement threshold when none is given: twice the trial's median error of a point
 * triangulated from every camera that sees it (the keypoints' own noise, which depends on the pose
 * model, the resolution and how large the person is in the image), and at least Pose2Sim's 15 px.
 * Measured on at most 5000 points spread over the trial.
 */
function automaticThresholdPx(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  meanError: (observation: number, mask: number) => number,
): number {
  const observations = frameCount * keypointCount;
  const stride = Math.max(1, Math.floor(observations / 5000));
  const errors: number[] = [];
  for (let observation = 0; observation < observations; observation += stride) {
    const seen = solver.seenBy(observation);
    if ((seen & (seen - 1)) !== 0 && solver.solve(observation, seen)) errors.push(meanError(observation, seen));
  }
  const median = errorStatistics(errors)?.medianPx ?? 0;
  return Math.max(MIN_MAX_REPROJECTION_ERROR_PX, NOISE_TO_THRESHOLD * median);
}

/** A view is an outlier when the point's error is above twice its usual size (our choice, see docs/pose.md). */
const NOISE_TO_THRESHOLD = 2;
/**
 * One bad view hides in the mean over four (51 px beside 2, 18 and 23 px: 24 px mean, under the
 * demo's 26 px threshold), and moves the point by centimetres: a view more than 1.5 times the
 * threshold off is left out whatever the mean (our choice; on the Pose2Sim demo balancing trial it
 * takes the largest ankle-angle jump from 10.5 to 5.6 degrees, segment-length SD and reprojection
 * error unchanged within 0.3 mm and 0.1 px; docs/kinematics.md).
 */
const VIEW_ERROR_CAP = 1.5;

/**
 * The subsets of `seen` with `size` cameras (bit masks): all of them for up to 10 cameras (at most
 * 252 a size); beyond, too many to try, the subsets that leave one more camera out of `closest`,
 * the best subset one size larger (the greedy path Pose2Sim follows).
 */
function* subsetsOfSize(seen: number, closest: number, size: number): Generator<number> {
  if (popCount(seen) > 10) {
    if (popCount(closest) === size) yield closest;
    else for (let c = 0; c < 31; c++) if (closest & (1 << c)) yield closest & ~(1 << c);
    return;
  }
  for (let subset = seen; subset > 0; subset = (subset - 1) & seen) if (popCount(subset) === size) yield subset;
}
