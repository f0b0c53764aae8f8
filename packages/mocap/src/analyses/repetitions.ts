import { AnalysisError } from './analysis-error.ts';
import { findValleys, maxOf, percentile } from './signal.ts';
import { heightOf, inclinationDeg, type TrialKinematics } from './trial-kinematics.ts';

/** One repetition of an up-down movement of the pelvis, in frames. */
export interface Repetition {
  /** Leaves the resting level. */
  start: number;
  /** Farthest from the resting level (the bottom of a squat, the top of a rise). */
  extreme: number;
  /** Back at the resting level (or the last frame). */
  end: number;
  /** Height change from the resting level to the extreme, m (positive). */
  excursionM: number;
}

export interface RepetitionOptions {
  /** Smallest height change that counts as a repetition, m. */
  minExcursionM: number;
  /** Shortest time between two repetitions' extremes, s. */
  minSeparationS: number;
  /** 'down': rests high and dips (squat); 'up': rests low and rises (sit-to-stand). */
  direction: 'down' | 'up';
}

/** The share of a repetition's excursion within which the pelvis counts as back at its resting level. */
const REST_BAND = 0.1;

/**
 * Repetitions of a movement that takes the pelvis away from a resting height and back: each
 * extreme standing out from its surroundings by at least minExcursionM (or a third of the trial's
 * range, whichever is larger), bounded by the last and first frames within 10 % of the excursion
 * from the resting level on either side.
 */
export function pelvisRepetitions(
  height: Float64Array,
  sampleRateHz: number,
  options: RepetitionOptions,
): Repetition[] {
  const sign = options.direction === 'down' ? 1 : -1;
  // Work on "distance from rest": high values rest, valleys are the extremes.
  const signal = height.map((h) => sign * h);
  const range = percentile(signal, 0.98) - percentile(signal, 0.02);
  const extremes = findValleys(signal, {
    minDistance: Math.round(options.minSeparationS * sampleRateHz),
    minProminence: Math.max(options.minExcursionM, range / 3),
  });
  return extremes.map((extreme, i) => {
    const before = i > 0 ? extremes[i - 1] : 0;
    const after = i + 1 < extremes.length ? extremes[i + 1] : signal.length - 1;
    const restBefore = maxOf(signal, before, extreme + 1);
    const restAfter = maxOf(signal, extreme, after + 1);
    const excursionM = Math.max(restBefore, restAfter) - signal[extreme];
    let start = extreme;
    while (start > before && signal[start - 1] < restBefore - REST_BAND * (restBefore - signal[extreme])) start--;
    let end = extreme;
    while (end < after && signal[end + 1] < restAfter - REST_BAND * (restAfter - signal[extreme])) end++;
    return { start, extreme, end, excursionM };
  });
}

/**
 * A movement of repetitions of the pelvis height (squat, sit-to-stand): the pelvis height, its repetitions,
 * the frames from the first one's start to the last one's end, and the trunk's inclination from vertical
 * (facing as the subject faces over those frames). `noneFound` tells the user what to record when there is none.
 */
export function pelvisMovement(kinematics: TrialKinematics, options: RepetitionOptions, noneFound: string) {
  const pelvisHeight = heightOf(kinematics.point('pelvis'));
  const reps = pelvisRepetitions(pelvisHeight, kinematics.sampleRateHz, options);
  if (reps.length === 0) throw new AnalysisError(noneFound);
  const start = reps[0].start;
  const end = reps[reps.length - 1].end;
  const trunk = inclinationDeg(kinematics.axis('torso', 1), kinematics.facing(start, end + 1));
  return { pelvisHeight, reps, start, end, trunk };
}

/** Each repetition's largest value of `signal`, from its start to its end. */
export const peakPerRepetition = (signal: ArrayLike<number>, reps: readonly Repetition[]) =>
  reps.map((rep) => maxOf(signal, rep.start, rep.end + 1));
