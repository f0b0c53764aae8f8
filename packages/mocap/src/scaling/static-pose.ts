import type { MarkerTrajectories } from '../formats/trc.ts';

/**
 * The measured markers of a static trial reduced to one pose: each marker's position averaged
 * over the frames of a time range (OpenSim's MarkerData::averageFrames), missing samples ignored.
 * A distance between two markers is taken over the frames where both are seen (`staticMarkerPair`):
 * with two cameras one end of a segment can be missing in frames where the other is not.
 */
export interface StaticPose {
  markerNames: string[];
  /** markers x 3, m; NaN for a marker missing in every frame of the range. */
  positionsM: Float64Array;
  /** The frames averaged, [first, last] inclusive, and their times. */
  firstFrame: number;
  lastFrame: number;
  timeRangeS: [number, number];
  /** The trial the pose was averaged from, for averages over the frames where two markers are both seen. */
  trajectories?: MarkerTrajectories;
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
    trajectories,
  };
}

/** The averaged position of one marker, or undefined when the trial lacks it. */
export function staticMarker(pose: StaticPose, name: string): [number, number, number] | undefined {
  const m = pose.markerNames.indexOf(name);
  if (m < 0) return undefined;
  const p: [number, number, number] = [pose.positionsM[m * 3], pose.positionsM[m * 3 + 1], pose.positionsM[m * 3 + 2]];
  return p.some(Number.isNaN) ? undefined : p;
}

/**
 * Two markers' positions averaged over the frames of the pose where both are seen, or undefined when
 * no frame shows both. Where both are seen in every frame, the same as `staticMarker` of each (as
 * OpenSim measures).
 */
export function staticMarkerPair(
  pose: StaticPose,
  a: string,
  b: string,
): [[number, number, number], [number, number, number]] | undefined {
  const trajectories = pose.trajectories;
  if (!trajectories) {
    const [first, second] = [staticMarker(pose, a), staticMarker(pose, b)];
    return first && second ? [first, second] : undefined;
  }
  const markerCount = trajectories.markerNames.length;
  const [ia, ib] = [trajectories.markerNames.indexOf(a), trajectories.markerNames.indexOf(b)];
  if (ia < 0 || ib < 0) return undefined;
  const sum = new Float64Array(6);
  let count = 0;
  for (let f = pose.firstFrame; f <= pose.lastFrame; f++) {
    const [pa, pb] = [(f * markerCount + ia) * 3, (f * markerCount + ib) * 3];
    const values = [0, 1, 2].flatMap((axis) => [
      trajectories.positionsM[pa + axis],
      trajectories.positionsM[pb + axis],
    ]);
    if (values.some(Number.isNaN)) continue;
    for (let axis = 0; axis < 3; axis++) {
      sum[axis] += trajectories.positionsM[pa + axis];
      sum[3 + axis] += trajectories.positionsM[pb + axis];
    }
    count++;
  }
  if (count === 0) return undefined;
  return [
    [sum[0] / count, sum[1] / count, sum[2] / count],
    [sum[3] / count, sum[4] / count, sum[5] / count],
  ];
}
