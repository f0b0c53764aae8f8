import type { MarkerTrajectories } from '../formats/trc.ts';

/**
 * Finds the window of a (neutral) trial in which the person moves least, for measuring segment
 * lengths "where nobody moves": for every window of the requested length, the mean over markers of
 * each marker's RMS distance from its own mean position in the window; the window with the
 * smallest value wins. Frames with a missing marker count against a window (it needs them all).
 */
export interface StillWindow {
  firstFrame: number;
  lastFrame: number;
  /** Mean RMS marker excursion in the window, m. */
  meanExcursionM: number;
}

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

  let best: StillWindow = { firstFrame: 0, lastFrame: windowFrames - 1, meanExcursionM: Number.POSITIVE_INFINITY };
  for (let first = 0; first + windowFrames <= frameCount; first += stepFrames) {
    let excursionSum = 0;
    let complete = true;
    for (const m of used) {
      let sx = 0,
        sy = 0,
        sz = 0,
        sxx = 0;
      for (let f = first; f < first + windowFrames; f++) {
        const base = (f * markerCount + m) * 3;
        const x = positionsM[base],
          y = positionsM[base + 1],
          z = positionsM[base + 2];
        if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z)) {
          complete = false;
          break;
        }
        sx += x;
        sy += y;
        sz += z;
        sxx += x * x + y * y + z * z;
      }
      if (!complete) break;
      const n = windowFrames;
      const variance = sxx / n - (sx * sx + sy * sy + sz * sz) / (n * n);
      excursionSum += Math.sqrt(Math.max(0, variance));
    }
    if (!complete || used.length === 0) continue;
    const meanExcursionM = excursionSum / used.length;
    if (meanExcursionM < best.meanExcursionM)
      best = { firstFrame: first, lastFrame: first + windowFrames - 1, meanExcursionM };
  }
  if (!Number.isFinite(best.meanExcursionM)) {
    throw new RangeError('No window of the trial has every marker present; cannot find a still period to scale from.');
  }
  return best;
}
