import type { MarkerTrajectories } from '../formats/trc.ts';

/**
 * The measured markers of a static trial reduced to one pose: each marker's position averaged
 * over the frames of a time range (OpenSim's MarkerData::averageFrames), missing samples ignored.
 */
export interface StaticPose {
  markerNames: string[];
  /** markers x 3, m; NaN for a marker missing in every frame of the range. */
  positionsM: Float64Array;
  /** The frames averaged, [first, last] inclusive, and their times. */
  firstFrame: number;
  lastFrame: number;
  timeRangeS: [number, number];
}

export class StaticTrialError extends Error {
  override name = 'StaticTrialError';
}

/** Frames whose time lies in [startS, endS], with a tolerance of a thousandth of a sample for rounded times. */
export function framesInTimeRange(timesS: Float64Array, startS: number, endS: number): [number, number] {
  const stepS = timesS.length > 1 ? (timesS[timesS.length - 1] - timesS[0]) / (timesS.length - 1) : 0;
  const toleranceS = 1e-3 * stepS + 1e-12;
  let first = -1;
  let last = -1;
  for (let f = 0; f < timesS.length; f++) {
    if (timesS[f] >= startS - toleranceS && timesS[f] <= endS + toleranceS) {
      if (first < 0) first = f;
      last = f;
    }
  }
  if (first < 0) {
    // A range between two samples: take the nearest frame to its start.
    let nearest = 0;
    for (let f = 1; f < timesS.length; f++)
      if (Math.abs(timesS[f] - startS) < Math.abs(timesS[nearest] - startS)) nearest = f;
    first = last = nearest;
  }
  return [first, last];
}

export function averageMarkerFrames(
  trajectories: MarkerTrajectories,
  firstFrame: number,
  lastFrame: number,
): StaticPose {
  const { markerNames, positionsM, timesS } = trajectories;
  const markerCount = markerNames.length;
  if (firstFrame < 0 || lastFrame >= timesS.length || lastFrame < firstFrame) {
    throw new StaticTrialError(
      `Frames ${firstFrame}..${lastFrame} are outside the static trial (${timesS.length} frames).`,
    );
  }
  const sum = new Float64Array(markerCount * 3);
  const count = new Int32Array(markerCount);
  for (let f = firstFrame; f <= lastFrame; f++) {
    for (let m = 0; m < markerCount; m++) {
      const base = (f * markerCount + m) * 3;
      const x = positionsM[base];
      const y = positionsM[base + 1];
      const z = positionsM[base + 2];
      if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z)) continue;
      sum[m * 3] += x;
      sum[m * 3 + 1] += y;
      sum[m * 3 + 2] += z;
      count[m]++;
    }
  }
  const averaged = new Float64Array(markerCount * 3);
  for (let m = 0; m < markerCount; m++) {
    for (let a = 0; a < 3; a++) averaged[m * 3 + a] = count[m] > 0 ? sum[m * 3 + a] / count[m] : Number.NaN;
  }
  return {
    markerNames: [...markerNames],
    positionsM: averaged,
    firstFrame,
    lastFrame,
    timeRangeS: [timesS[firstFrame], timesS[lastFrame]],
  };
}

/** The averaged position of one marker, or undefined when the trial lacks it. */
export function staticMarker(pose: StaticPose, name: string): [number, number, number] | undefined {
  const m = pose.markerNames.indexOf(name);
  if (m < 0) return undefined;
  const p: [number, number, number] = [pose.positionsM[m * 3], pose.positionsM[m * 3 + 1], pose.positionsM[m * 3 + 2]];
  return p.some(Number.isNaN) ? undefined : p;
}
