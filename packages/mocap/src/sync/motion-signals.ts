import { filterTrajectories } from '../filter/filter-trajectories.ts';
import type { KeypointSeries } from './keypoint-series.ts';

/**
 * One-dimensional motion signals of a camera's 2D keypoints, to be cross-correlated between cameras
 * (DESIGN §2 step 4, after OpenCap's synchronisation): the same movement seen from two phones gives
 * signals of the same shape, shifted by the cameras' time offset.
 * - 'wristVertical': mean vertical velocity of the wrists (a hand raise or punch, OpenCap's handPunch).
 * - 'ankleSpeed': mean 2D speed of the ankles (gait: each step is a speed peak).
 * - 'bodySpeed': mean 2D speed of all keypoints (any movement).
 * Pearson correlation is insensitive to each camera's scale (distance, focal length), so the signals
 * stay in pixels per second.
 */
export type MotionSignalKind = 'wristVertical' | 'ankleSpeed' | 'bodySpeed';

export const MOTION_SIGNAL_KINDS: readonly MotionSignalKind[] = ['wristVertical', 'ankleSpeed', 'bodySpeed'];

/**
 * Keypoint jitter is smoothed out before differentiating: human movement in these signals lies below
 * 6 Hz (Winter, Biomechanics and Motor Control of Human Movement, chapter 2: about 6 Hz is the
 * usual low-pass cutoff for walking kinematics).
 */
const SMOOTHING_CUTOFF_HZ = 6;

/** Detections below this confidence are treated as missing (the triangulation threshold). */
const MIN_CONFIDENCE = 0.4;

const SIGNAL_KEYPOINTS: Record<MotionSignalKind, readonly string[] | null> = {
  wristVertical: ['RWrist', 'LWrist'],
  ankleSpeed: ['RAnkle', 'LAnkle'],
  bodySpeed: null,
};

/** The signal at each of the camera's frames (NaN where the keypoints were not seen). */
export function motionSignal(series: KeypointSeries, kind: MotionSignalKind): Float64Array {
  const keypointCount = series.keypointNames.length;
  const names = SIGNAL_KEYPOINTS[kind];
  const keypoints =
    names === null
      ? series.keypointNames.map((_, k) => k)
      : names.map((name) => series.keypointNames.indexOf(name)).filter((k) => k >= 0);
  const frameCount = series.frameCount;
  const signal = new Float64Array(frameCount).fill(Number.NaN);
  if (keypoints.length === 0 || frameCount < 3) return signal;

  // Positions of the chosen keypoints as (x, y, 0) trajectories, smoothed where seen.
  const positions = new Float64Array(frameCount * keypoints.length * 3).fill(Number.NaN);
  for (let frame = 0; frame < frameCount; frame++) {
    keypoints.forEach((k, j) => {
      const i = (frame * keypointCount + k) * 3;
      if (!(series.data[i + 2] >= MIN_CONFIDENCE)) return;
      const o = (frame * keypoints.length + j) * 3;
      positions[o] = series.data[i];
      positions[o + 1] = series.data[i + 1];
      positions[o + 2] = 0;
    });
  }
  const smoothed =
    series.fps > 2 * SMOOTHING_CUTOFF_HZ
      ? filterTrajectories(positions, frameCount, keypoints.length, SMOOTHING_CUTOFF_HZ, series.fps)
      : positions;

  // Central differences over the real timestamps; a signal value needs at least half the keypoints.
  const minKeypoints = Math.max(1, Math.ceil(keypoints.length / 2));
  for (let frame = 1; frame < frameCount - 1; frame++) {
    const dt = series.timestampsS[frame + 1] - series.timestampsS[frame - 1];
    if (!(dt > 0)) continue;
    let sum = 0;
    let count = 0;
    for (let j = 0; j < keypoints.length; j++) {
      const before = ((frame - 1) * keypoints.length + j) * 3;
      const after = ((frame + 1) * keypoints.length + j) * 3;
      const vx = (smoothed[after] - smoothed[before]) / dt;
      const vy = (smoothed[after + 1] - smoothed[before + 1]) / dt;
      if (Number.isNaN(vx) || Number.isNaN(vy)) continue;
      sum += kind === 'wristVertical' ? vy : Math.hypot(vx, vy);
      count++;
    }
    if (count >= minKeypoints) signal[frame] = sum / count;
  }
  return signal;
}
