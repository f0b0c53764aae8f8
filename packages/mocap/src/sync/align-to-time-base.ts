import { ProcessingError } from '../pipeline/processing-error.ts';
import type { KeypointSeries } from './keypoint-series.ts';

/**
 * Puts every camera's 2D keypoints on one time base once their offsets are known: the reference
 * camera's frames (on the shared clock) where every camera was recording. Other cameras are
 * interpolated linearly between their two nearest frames (sub-frame alignment when frame rates or
 * phases differ); the confidence is the lower of the two, and a keypoint missing in either
 * neighbour stays missing.
 */
export interface AlignedKeypoints {
  /** Shared-clock time of each frame of the time base, seconds. */
  timesS: Float64Array;
  frameRateHz: number;
  frameCount: number;
  keypointCount: number;
  /** Per camera: frames × keypoints × 3 (x px, y px, confidence), NaN where missing. */
  observations: Float32Array[];
}

export function sharedTimeBase(
  cameras: readonly KeypointSeries[],
  offsetsS: ArrayLike<number>,
  referenceCamera: number,
): Float64Array {
  const startS = Math.max(...cameras.map((series, c) => series.timestampsS[0] + offsetsS[c]));
  const endS = Math.min(...cameras.map((series, c) => series.timestampsS[series.frameCount - 1] + offsetsS[c]));
  const reference = cameras[referenceCamera];
  const tolerance = 1e-6;
  const times: number[] = [];
  for (let frame = 0; frame < reference.frameCount; frame++) {
    const t = reference.timestampsS[frame] + offsetsS[referenceCamera];
    if (t >= startS - tolerance && t <= endS + tolerance) times.push(t);
  }
  if (times.length < 2) {
    throw new ProcessingError(
      'SYNC_NOT_FOUND',
      'The videos do not overlap in time once synchronised. Record the trial again with all phones recording at the same time.',
    );
  }
  return Float64Array.from(times);
}

export function alignToTimeBase(
  cameras: readonly KeypointSeries[],
  offsetsS: ArrayLike<number>,
  timesS: Float64Array,
  frameRateHz: number,
): AlignedKeypoints {
  const keypointCount = cameras[0].keypointNames.length;
  const frameCount = timesS.length;
  const observations = cameras.map((series, c) => {
    const aligned = new Float32Array(frameCount * keypointCount * 3).fill(Number.NaN);
    const { before, fraction } = alignedSources(series, offsetsS[c], timesS);
    for (let frame = 0; frame < frameCount; frame++) {
      if (Number.isNaN(fraction[frame])) continue;
      for (let keypoint = 0; keypoint < keypointCount; keypoint++)
        alignKeypoint(
          series,
          before[frame],
          fraction[frame],
          keypoint,
          aligned,
          (frame * keypointCount + keypoint) * 3,
        );
    }
    return aligned;
  });
  return { timesS, frameRateHz, frameCount, keypointCount, observations };
}

/**
 * Where each time of the time base falls in a camera's frames: the frame before it and the fraction
 * of the way to the next (exactly 0 or 1 within a microsecond of a frame; NaN outside the recording).
 */
export function alignedSources(
  series: KeypointSeries,
  offsetS: number,
  timesS: Float64Array,
): { before: Int32Array; fraction: Float64Array } {
  const before = new Int32Array(timesS.length);
  const fraction = new Float64Array(timesS.length).fill(Number.NaN);
  const own = series.timestampsS;
  const n = series.frameCount;
  let k = 0;
  for (let frame = 0; frame < timesS.length; frame++) {
    const t = timesS[frame] - offsetS;
    // Snap to the nearest frame when within a microsecond (same camera, or identical clocks).
    if (t < own[0] - 1e-6 || t > own[n - 1] + 1e-6) continue;
    while (k + 2 < n && own[k + 1] <= t + 1e-6) k++;
    const span = own[k + 1] - own[k];
    let share = n > 1 && span > 0 ? (t - own[k]) / span : 0;
    if (Math.abs(share) * span < 1e-6) share = 0;
    else if (Math.abs(1 - share) * span < 1e-6) share = 1;
    before[frame] = k;
    fraction[frame] = share;
  }
  return { before, fraction };
}

/** One keypoint of a camera `fraction` of the way from frame `before` to the next, into `out` at `at` (left as it is when missing). */
export function alignKeypoint(
  series: KeypointSeries,
  before: number,
  fraction: number,
  keypoint: number,
  out: Float32Array,
  at: number,
): void {
  const keypointCount = series.keypointNames.length;
  const a = (before * keypointCount + keypoint) * 3;
  const b = ((before + 1) * keypointCount + keypoint) * 3;
  if (fraction === 0 || fraction === 1) {
    const source = fraction === 0 ? a : b;
    if (!(series.data[source + 2] > 0)) return;
    out[at] = series.data[source];
    out[at + 1] = series.data[source + 1];
    out[at + 2] = series.data[source + 2];
    return;
  }
  const confidence = Math.min(series.data[a + 2], series.data[b + 2]);
  if (!(confidence > 0)) return;
  out[at] = series.data[a] + (series.data[b] - series.data[a]) * fraction;
  out[at + 1] = series.data[a + 1] + (series.data[b + 1] - series.data[a + 1]) * fraction;
  out[at + 2] = confidence;
}
