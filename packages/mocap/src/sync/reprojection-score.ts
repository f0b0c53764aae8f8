import type { CameraModel } from '../camera/camera.ts';
import { errorStatistics } from '../triangulation/reprojection-summary.ts';
import { triangulate } from '../triangulation/triangulate.ts';
import { alignToTimeBase, sharedTimeBase } from './align-to-time-base.ts';
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
  const cameraCount = cameraModels.length;
  const minFrames = Math.max(2, Math.ceil(MIN_OVERLAP_SHARE * Math.min(...series.map((s) => s.frameCount))));
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
    const aligned = alignToTimeBase(series, offsets, timesS, series[referenceCamera].fps / stride);
    const result = triangulate(cameraModels, aligned.observations, aligned.frameCount, aligned.keypointCount, {
      maxReprojectionErrorPx: Number.POSITIVE_INFINITY,
    });
    const errors: number[] = [];
    for (let i = camera; i < result.reprojectionErrorPx.length; i += cameraCount) {
      const error = result.reprojectionErrorPx[i];
      if (!Number.isNaN(error)) errors.push(error);
    }
    return errorStatistics(errors)?.medianPx ?? Number.POSITIVE_INFINITY;
  };
}
