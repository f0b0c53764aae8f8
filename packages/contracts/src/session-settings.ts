import { DEFAULT_FRAMERATE } from './constants.ts';
import { messages } from './messages.ts';

/** §3 Session settings: the values the API stores, with the labels users read. */
export const DATA_SHARING_OPTIONS = [
  'Share processed data and identified videos',
  'Share processed data and de-identified videos',
  'Share processed data',
  'Share no data',
] as const;
export const SCALING_SETUPS = { upright_standing_pose: 'Upright standing pose', any_pose: 'Any pose' } as const;
/** Pose models by the spec's names; the engine runs BlazePose full for 'hrnet' (accurate) and lite for 'openpose' (fast). */
export const POSE_MODELS = { hrnet: 'HRNet (accurate)', openpose: 'OpenPose (fast)' } as const;
export const OPENSIM_MODELS = {
  LaiUhlrich2022: 'Full body',
  LaiUhlrich2022_shoulder: 'Full body with shoulder complex',
} as const;
export const AUGMENTER_MODELS = { 'v0.3': 'v0.3 (latest)', 'v0.2': 'v0.2' } as const;
export const FRAMERATES = [60, 120, 240] as const;
/**
 * Whether the session's phones find their 2D keypoints themselves and send them with their videos (issue 24):
 * 'on' when the operator's PHONE_KEYPOINTS allows it (the server checks them and detects itself where they do
 * not serve), 'off' to have the server detect every camera's keypoints. It never turns them on where the
 * operator turned them off.
 */
export const PHONE_KEYPOINTS_CHOICES = {
  on: 'On (phones send their keypoints, the server checks them)',
  off: 'Off (the server detects the keypoints)',
} as const;
/**
 * How often the server runs the pose model on a movement or neutral trial's frames (issue 24): 'filter' (the
 * server's default) at the rate the trial's low-pass filter needs, twice its cutoff (every other frame of a
 * 60 fps gait trial, whose cutoff is 12 Hz), the frames between filled from those around them; 'every_frame' on
 * each frame, as before. Set in Advanced Settings or through the API (set_metadata's settings_pose_rate).
 */
export const POSE_RATES = {
  filter: 'As the filter needs (twice its cutoff)',
  every_frame: 'Every frame',
} as const;
export const DEFAULT_POSE_RATE: keyof typeof POSE_RATES = 'filter';
/** A choice's keys, as z.enum takes them. */
export const keysOf = <T extends Record<string, string>>(options: T) =>
  Object.keys(options) as [keyof T & string, ...(keyof T & string)[]];
export const CHECKERBOARD_PLACEMENTS = ['Perpendicular', 'Lying'] as const;

export const DEFAULT_SESSION_SETTINGS = {
  scaling_setup: 'upright_standing_pose',
  pose_model: 'hrnet',
  framerate: DEFAULT_FRAMERATE,
  openSimModel: 'LaiUhlrich2022',
  augmenter_model: 'v0.3',
  filter_frequency: 'default',
  phone_keypoints: 'on',
  pose_rate: DEFAULT_POSE_RATE,
} as const;

export interface FilterFrequencyDecision {
  value: 'default' | number;
  warning?: string;
}

/**
 * §5 filter frequency: 'default' or a positive number of Hz, never above half the framerate. A value
 * above half is replaced by half, anything else by 'default', each with the spec's warning.
 */
export function clampFilterFrequency(
  input: string | number | null | undefined,
  framerate: number,
): FilterFrequencyDecision {
  if (input === 'default' || input === undefined || input === null || input === '') return { value: 'default' };
  const hz = typeof input === 'number' ? input : Number(String(input).trim());
  if (!Number.isFinite(hz) || hz <= 0) return { value: 'default', warning: messages.filterFrequencyInvalid };
  const half = framerate / 2;
  if (hz > half) return { value: half, warning: messages.filterFrequencyTooLarge(half) };
  return { value: hz };
}
