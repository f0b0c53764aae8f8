import type { TrialResult } from '../pipeline/process-trial.ts';
import { sharedTimeBase } from '../sync/align-to-time-base.ts';

/**
 * Where a processed trial's frames are in each camera's own video: the reconstruction's time base
 * (the reference camera's frames where every camera was recording, on the shared clock) and each
 * camera's offset to it, so result images and synchronised videos show the very frames the 3D
 * keypoints were made from.
 */
export interface TrialClock {
  /** Shared-clock time of the trial's frame 0 (time 0 of the .trc and .mot), s. */
  startS: number;
  frameRateHz: number;
  /** Trial time of each frame, from 0, s. */
  timesS: Float64Array;
  /** Per input camera (same order): seconds added to its video's timestamps to reach the shared clock; undefined for a camera left out (nobody seen). */
  offsetsS: (number | undefined)[];
}

export function trialClock(result: TrialResult): TrialClock {
  // The report lists the cameras the reconstruction used, in the order of the sync result.
  const used = result.report.cameras.map((reported) =>
    result.cameras.findIndex((camera) => camera.name === reported.name),
  );
  const sharedTimesS = sharedTimeBase(
    used.map((c) => result.keypoints2D[c]),
    result.sync.offsetsS,
    result.sync.referenceCamera,
  );
  const offsetsS: (number | undefined)[] = result.cameras.map(() => undefined);
  used.forEach((c, i) => (offsetsS[c] = result.sync.offsetsS[i]));
  return {
    startS: sharedTimesS[0],
    frameRateHz: result.keypoints.frameRateHz,
    timesS: result.keypoints.timesS,
    offsetsS,
  };
}

/** Time in camera c's video (its own timestamps) of the trial time `trialTimeS`, or undefined for a camera left out. */
export function videoTimeS(clock: TrialClock, camera: number, trialTimeS: number): number | undefined {
  const offsetS = clock.offsetsS[camera];
  return offsetS === undefined ? undefined : clock.startS + trialTimeS - offsetS;
}

/** Index of the timestamp nearest to `timeS` (timestamps increasing). */
export function nearestFrame(timestampsS: ArrayLike<number>, timeS: number): number {
  let lo = 0;
  let hi = timestampsS.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (timestampsS[mid] <= timeS) lo = mid;
    else hi = mid;
  }
  return Math.abs(timestampsS[hi] - timeS) < Math.abs(timestampsS[lo] - timeS) ? hi : lo;
}
