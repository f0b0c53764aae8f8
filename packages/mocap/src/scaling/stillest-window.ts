import type { MarkerTrajectories } from '../formats/trc.ts';
import { KeypointsMissingError } from '../pipeline/processing-error.ts';
import { missingKeypoints, missingKeypointsText } from './keypoint-presence.ts';

/**
 * Finds the window of a (neutral) trial in which the person moves least, for measuring segment
 * lengths "where nobody moves", on the markers the trial has: a marker counts in a window when it is
 * seen in at least half of the window's frames (with two cameras a keypoint hidden from one of them
 * is simply gone, and an ear may be gone throughout). The window that shows the most markers wins,
 * and among those the stillest: the mean over its markers of each one's RMS distance from its own
 * mean position over the frames it is seen in.
 */
export interface StillWindow {
  firstFrame: number;
  lastFrame: number;
  /** Mean RMS marker excursion in the window, m. */
  meanExcursionM: number;
  /** The markers judged: seen in at least half of the window's frames. */
  markersSeen: string[];
}

/** A marker counts in a window when seen in at least this share of its frames (our choice). */
const MIN_SEEN_SHARE = 0.5;

export function findStillestWindow(
  trajectories: MarkerTrajectories,
  windowS = 1,
  markerNames?: readonly string[],
): StillWindow {
  const { timesS, positionsM } = trajectories;
  const frameCount = timesS.length;
  const markerCount = trajectories.markerNames.length;
  const used = (markerNames ?? trajectories.markerNames)
    .map((name) => trajectories.markerNames.indexOf(name))
    .filter((index) => index >= 0);
  const rateHz = trajectories.frameRateHz > 0 ? trajectories.frameRateHz : 1;
  const windowFrames = Math.max(1, Math.min(frameCount, Math.round(windowS * rateHz)));
  // Step a tenth of a window at a time: still windows are long, exact alignment does not matter.
  const stepFrames = Math.max(1, Math.floor(windowFrames / 10));
  const minSeen = Math.max(1, Math.ceil(MIN_SEEN_SHARE * windowFrames));

  let best: StillWindow | undefined;
  for (let first = 0; first + windowFrames <= frameCount; first += stepFrames) {
    let excursionSum = 0;
    const seen: number[] = [];
    for (const m of used) {
      let [sx, sy, sz, sxx, n] = [0, 0, 0, 0, 0];
      for (let f = first; f < first + windowFrames; f++) {
        const base = (f * markerCount + m) * 3;
        const [x, y, z] = [positionsM[base], positionsM[base + 1], positionsM[base + 2]];
        if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z)) continue;
        sx += x;
        sy += y;
        sz += z;
        sxx += x * x + y * y + z * z;
        n++;
      }
      if (n < minSeen) continue;
      const variance = sxx / n - (sx * sx + sy * sy + sz * sz) / (n * n);
      excursionSum += Math.sqrt(Math.max(0, variance));
      seen.push(m);
    }
    if (seen.length === 0) continue;
    const meanExcursionM = excursionSum / seen.length;
    if (
      !best ||
      seen.length > best.markersSeen.length ||
      (seen.length === best.markersSeen.length && meanExcursionM < best.meanExcursionM)
    )
      best = {
        firstFrame: first,
        lastFrame: first + windowFrames - 1,
        meanExcursionM,
        markersSeen: seen.map((m) => trajectories.markerNames[m]),
      };
  }
  if (!best) {
    const names = used.map((m) => trajectories.markerNames[m]);
    throw new KeypointsMissingError(
      `Scaling measures the body between keypoints, and no stretch of this ${frameCount}-frame trial shows any of them in half of its frames. ` +
        `Missing: ${missingKeypointsText(missingKeypoints(trajectories, names), frameCount) || 'every one of them'}.`,
      missingKeypoints(trajectories, names),
      frameCount,
    );
  }
  return best;
}
