import type { MarkerTrajectories } from '../formats/trc.ts';

/**
 * The 3D keypoints as JSON (`<trial>_keypoints.json`), for the web viewer and for scripts that
 * would rather not parse .trc: the same data as the .trc file. Documented in docs/process.md.
 */
export interface KeypointsJson {
  format: 'kinetrace-keypoints-3d';
  version: 1;
  units: 'm';
  /** OpenSim's convention, as in the .trc: x forward, y up, z to the right. */
  axes: 'y-up';
  frameRateHz: number;
  keypointNames: string[];
  timesS: number[];
  /** positionsM[frame][keypoint] = [x, y, z] in metres, or null when the keypoint is missing. */
  positionsM: ([number, number, number] | null)[][];
}

/** Rounds to 0.1 µm: far below any keypoint's accuracy, and keeps the file a third of the size. */
const round = (value: number) => Math.round(value * 1e7) / 1e7;

export function keypointsToJson(trajectories: MarkerTrajectories): KeypointsJson {
  const { markerNames, frameRateHz, timesS, positionsM } = trajectories;
  const markerCount = markerNames.length;
  return {
    format: 'kinetrace-keypoints-3d',
    version: 1,
    units: 'm',
    axes: 'y-up',
    frameRateHz,
    keypointNames: [...markerNames],
    timesS: Array.from(timesS, round),
    positionsM: Array.from(timesS, (_, frame) =>
      markerNames.map((_, m) => {
        const i = (frame * markerCount + m) * 3;
        return Number.isNaN(positionsM[i])
          ? null
          : [round(positionsM[i]), round(positionsM[i + 1]), round(positionsM[i + 2])];
      }),
    ),
  };
}
