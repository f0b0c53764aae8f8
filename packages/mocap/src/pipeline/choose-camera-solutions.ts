import type { CameraModel } from '../camera/camera.ts';
import { alignToTimeBase, sharedTimeBase } from '../sync/align-to-time-base.ts';
import type { KeypointSeries } from '../sync/keypoint-series.ts';
import { errorStatistics } from '../triangulation/reprojection-summary.ts';
import { triangulate } from '../triangulation/triangulate.ts';

/**
 * A planar board gives each camera two pose candidates (IPPE); both reproject the board almost
 * equally well, but only one puts the camera where it is. DESIGN §2 step 2: keep both and pick the
 * combination over all cameras with the lowest reprojection error of the person's keypoints. Every
 * combination is tried (2^N, N cameras) up to 1024; beyond, one camera at a time until nothing
 * improves. Keypoints are aligned on their start times (synchronisation needs the cameras first),
 * on at most `maxFrames` evenly spaced frames: a wrong pose costs tens of pixels, a few frames of
 * lag a few.
 */
export function chooseCameraSolutions(
  candidates: readonly (readonly CameraModel[])[],
  keypoints: readonly KeypointSeries[],
  initialOffsetsS: readonly number[],
  referenceCamera: number,
  maxFrames = 300,
): { choice: number[]; cameras: CameraModel[]; medianErrorPx: number } {
  let timesS = sharedTimeBase(keypoints, initialOffsetsS, referenceCamera);
  const stride = Math.ceil(timesS.length / maxFrames);
  if (stride > 1) timesS = timesS.filter((_, frame) => frame % stride === 0);
  const aligned = alignToTimeBase(keypoints, initialOffsetsS, timesS, keypoints[referenceCamera].fps / stride);
  const score = (choice: number[]) => {
    const cameras = choice.map((solution, c) => candidates[c][solution]);
    const result = triangulate(cameras, aligned.observations, aligned.frameCount, aligned.keypointCount, {
      maxReprojectionErrorPx: Number.POSITIVE_INFINITY,
    });
    const errors: number[] = [];
    for (const error of result.reprojectionErrorPx) if (!Number.isNaN(error)) errors.push(error);
    return errorStatistics(errors)?.medianPx ?? Number.POSITIVE_INFINITY;
  };

  const counts = candidates.map((solutions) => solutions.length);
  const combinations = counts.reduce((product, count) => product * count, 1);
  let best = counts.map(() => 0);
  let bestError = score(best);
  if (combinations <= 1024) {
    for (let index = 1; index < combinations; index++) {
      let rest = index;
      const choice = counts.map((count) => {
        const solution = rest % count;
        rest = Math.floor(rest / count);
        return solution;
      });
      const error = score(choice);
      if (error < bestError) [best, bestError] = [choice, error];
    }
  } else {
    for (let improved = true; improved;) {
      improved = false;
      for (let c = 0; c < counts.length; c++) {
        for (let solution = 0; solution < counts[c]; solution++) {
          if (solution === best[c]) continue;
          const choice = best.slice();
          choice[c] = solution;
          const error = score(choice);
          if (error < bestError) [best, bestError, improved] = [choice, error, true];
        }
      }
    }
  }
  return { choice: best, cameras: best.map((solution, c) => candidates[c][solution]), medianErrorPx: bestError };
}
