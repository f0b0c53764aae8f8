import type { SessionProgress, SessionStage } from './types.ts';

/**
 * A trial's stages mapped onto one whole-trial fraction. The shares are rough measurements of the
 * demo trial on two cores: decoding and 2D pose take about three quarters of the time; writing
 * the synchronised videos is most of `outputs`.
 */
export type StageRanges = Partial<Record<SessionStage, readonly [number, number]>>;

export const CALIBRATION_STAGES: StageRanges = { board: [0, 0.85], outputs: [0.85, 1] };

export const NEUTRAL_STAGES: StageRanges = {
  pose: [0, 0.75],
  sync: [0.75, 0.77],
  triangulate: [0.77, 0.82],
  filter: [0.82, 0.83],
  scale_ik: [0.83, 0.9],
  outputs: [0.9, 1],
};

export const MOVEMENT_STAGES: StageRanges = {
  pose: [0, 0.7],
  sync: [0.7, 0.72],
  triangulate: [0.72, 0.76],
  filter: [0.76, 0.77],
  scale_ik: [0.77, 0.87],
  outputs: [0.87, 1],
};

/** A trial processed to 3D keypoints only (`kinetrace process` on a folder without a neutral trial). */
export const KEYPOINTS_ONLY_STAGES: StageRanges = {
  pose: [0, 0.85],
  sync: [0.85, 0.87],
  triangulate: [0.87, 0.93],
  filter: [0.93, 0.95],
  outputs: [0.95, 1],
};

/** Turns `done` of `total` in a stage into the whole-trial fraction, never going back. */
export function stageProgress(
  ranges: StageRanges,
  onProgress: SessionProgress | undefined,
): (stage: SessionStage, done: number, total: number) => void {
  let reported = 0;
  return (stage, done, total) => {
    const range = ranges[stage];
    if (!onProgress || !range) return;
    const part = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
    reported = Math.max(reported, range[0] + (range[1] - range[0]) * part);
    onProgress(stage, reported);
  };
}
