import type { MarkerTrajectories } from '../formats/trc.ts';
import { frameRangesText, type MissingKeypoint } from '../pipeline/processing-error.ts';

/**
 * Where a trial's keypoints are missing, for the messages of the scaling stages: per keypoint that is
 * missing somewhere in frames first..last (all of them by default), how many of those frames show it
 * and the ranges without it; the least seen first.
 */
export function missingKeypoints(
  trajectories: MarkerTrajectories,
  names: readonly string[],
  firstFrame = 0,
  lastFrame = trajectories.timesS.length - 1,
): MissingKeypoint[] {
  const markerCount = trajectories.markerNames.length;
  const missing: MissingKeypoint[] = [];
  for (const name of names) {
    const m = trajectories.markerNames.indexOf(name);
    const ranges: [number, number][] = [];
    let framesSeen = 0;
    for (let f = firstFrame; f <= lastFrame; f++) {
      if (m >= 0 && !Number.isNaN(trajectories.positionsM[(f * markerCount + m) * 3])) {
        framesSeen++;
        continue;
      }
      const last = ranges.at(-1);
      if (last && last[1] === f - 1) last[1] = f;
      else ranges.push([f, f]);
    }
    if (ranges.length > 0) missing.push({ name, framesSeen, missingFrames: ranges });
  }
  return missing.sort((a, b) => a.framesSeen - b.framesSeen);
}

/** Named in a message at most; the error lists them all. */
const MESSAGE_KEYPOINTS = 6;

/** "LEar (seen in 0 of 11 frames), RBigToe (seen in 7 of 11 frames; missing in frames 3–6)" and "and N more". */
export function missingKeypointsText(missing: readonly MissingKeypoint[], frameCount: number): string {
  const listed = missing
    .slice(0, MESSAGE_KEYPOINTS)
    .map(
      (keypoint) =>
        `${keypoint.name} (seen in ${keypoint.framesSeen} of ${frameCount} frames${keypoint.framesSeen > 0 ? `; missing in frames ${frameRangesText(keypoint.missingFrames)}` : ''})`,
    );
  const more = missing.length > MESSAGE_KEYPOINTS ? ` and ${missing.length - MESSAGE_KEYPOINTS} more` : '';
  return `${listed.join(', ')}${more}`;
}
