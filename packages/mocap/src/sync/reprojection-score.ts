import type { CameraModel } from '../camera/camera.ts';
import { medianPx } from '../triangulation/reprojection-summary.ts';
import { PointSolver, popCount, undistortObservation, undistortObservations } from '../triangulation/point-solver.ts';
import { DEFAULT_MIN_CONFIDENCE } from '../triangulation/triangulate.ts';
import { alignedSources, alignKeypoint, sharedTimeBase } from './align-to-time-base.ts';
import type { KeypointSeries } from './keypoint-series.ts';
import { MIN_OVERLAP_SHARE } from './synchronise.ts';

/**
 * The tie-breaker synchronise() uses with calibrated cameras: triangulate all cameras, with one
 * camera moved to a candidate offset and the others at given offsets (by default their initial ones), and return that
 * camera's median reprojection error in pixels (Infinity when nothing could be triangulated). A
 * wrong lag makes the camera see a moving limb at another instant than the others, which shows up
 * as a larger reprojection error. No view is rejected as an outlier here, so the misaligned camera
 * always counts. Long trials are scored on at most `maxFrames` evenly spaced frames. An offset that
 * leaves less than half the shortest video overlapping the others scores Infinity, as the
 * correlation does (MIN_OVERLAP_SHARE): on an 11-frame static trial a lag of 8.6 frames once
 * reprojected better on the 2 frames it kept than the start times on all 11.
 */
export function reprojectionErrorAtOffset(
  cameraModels: readonly CameraModel[],
  series: readonly KeypointSeries[],
  initialOffsetsS: readonly number[],
  referenceCamera: number,
  maxFrames = 600,
): (camera: number, offsetS: number, offsetsS?: readonly number[]) => number {
  const keypointCount = series[0].keypointNames.length;
  const minFrames = Math.max(2, Math.ceil(MIN_OVERLAP_SHARE * Math.min(...series.map((s) => s.frameCount))));
  // Synchronise scores hundreds of offsets, most of them at whole frames of every camera (all but the
  // moved one, and its scan): each frame is undistorted once here and copied, and only a keypoint
  // interpolated between two frames is undistorted anew, exactly as triangulate() would.
  const undistorted = series.map((s, c) =>
    undistortObservations(cameraModels[c], s.data, s.frameCount * keypointCount, DEFAULT_MIN_CONFIDENCE),
  );
  const interpolated = new Float32Array(3);
  return (camera, offsetS, offsetsS = initialOffsetsS) => {
    const offsets = offsetsS.slice();
    offsets[camera] = offsetS;
    let timesS: Float64Array;
    try {
      timesS = sharedTimeBase(series, offsets, referenceCamera);
    } catch {
      return Number.POSITIVE_INFINITY;
    }
    if (timesS.length < minFrames) return Number.POSITIVE_INFINITY;
    const stride = Math.ceil(timesS.length / maxFrames);
    if (stride > 1) timesS = timesS.filter((_, frame) => frame % stride === 0);
    const frameCount = timesS.length;
    const normalised = series.map((s, c) => {
      const views = new Float64Array(frameCount * keypointCount * 3).fill(Number.NaN);
      const { before, fraction } = alignedSources(s, offsets[c], timesS);
      for (let frame = 0; frame < frameCount; frame++) {
        const share = fraction[frame];
        if (Number.isNaN(share)) continue;
        const to = frame * keypointCount * 3;
        if (share === 0 || share === 1) {
          const from = (before[frame] + share) * keypointCount * 3;
          views.set(undistorted[c].subarray(from, from + keypointCount * 3), to);
          continue;
        }
        for (let keypoint = 0; keypoint < keypointCount; keypoint++) {
          interpolated.fill(Number.NaN);
          alignKeypoint(s, before[frame], share, keypoint, interpolated, 0);
          undistortObservation(cameraModels[c], interpolated, 0, DEFAULT_MIN_CONFIDENCE, views, to + keypoint * 3);
        }
      }
      return views;
    });
    // triangulate() with every view kept, for the moved camera's errors alone (stored as float32 there).
    const solver = new PointSolver(cameraModels, normalised);
    const errors: number[] = [];
    for (let observation = 0; observation < frameCount * keypointCount; observation++) {
      const seen = solver.seenBy(observation);
      if (!(seen & (1 << camera)) || popCount(seen) < 2 || !solver.solve(observation, seen)) continue;
      const error = Math.fround(solver.reprojectionError(camera, observation));
      if (!Number.isNaN(error)) errors.push(error);
    }
    return medianPx(errors) ?? Number.POSITIVE_INFINITY;
  };
}
