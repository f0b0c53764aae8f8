/**
 * The low-pass cutoff rule of the product spec (§5 validation rules, §9 constants): the session setting
 * is 'default' or a positive number of Hz. 'default' is 12 Hz for gait trials and half the frame rate
 * otherwise (OpenCap's defaults); a number above half the frame rate is replaced by half the frame rate;
 * anything else falls back to the default. The warnings are the spec's texts.
 */
export type FilterFrequencySetting = 'default' | number | string;

/** Default cutoff for gait trials (spec §9, OpenCap's default for walking). */
export const GAIT_DEFAULT_CUTOFF_HZ = 12;

export interface CutoffDecision {
  cutoffHz: number;
  /** True when the cutoff is half the frame rate: the Butterworth then reduces to the identity. */
  passThrough: boolean;
  /** A spec warning to show the user when the setting was replaced. */
  warning?: string;
}

export function resolveCutoffHz(
  setting: FilterFrequencySetting | undefined,
  frameRateHz: number,
  isGait: boolean,
): CutoffDecision {
  const halfFrameRateHz = frameRateHz / 2;
  const defaultHz = isGait ? Math.min(GAIT_DEFAULT_CUTOFF_HZ, halfFrameRateHz) : halfFrameRateHz;
  const decide = (cutoffHz: number, warning?: string): CutoffDecision => ({
    cutoffHz,
    passThrough: cutoffHz >= halfFrameRateHz,
    ...(warning ? { warning } : {}),
  });

  if (setting === undefined || setting === 'default') return decide(defaultHz);
  const requestedHz = typeof setting === 'number' ? setting : setting.trim() === '' ? Number.NaN : Number(setting);
  if (!Number.isFinite(requestedHz) || requestedHz <= 0)
    return decide(defaultHz, 'Invalid filter frequency. Using default.');
  if (requestedHz > halfFrameRateHz) {
    return decide(
      halfFrameRateHz,
      `Too large filter frequency. Using half the framerate (${halfFrameRateHz} Hz) instead.`,
    );
  }
  return decide(requestedHz);
}

/** OpenCap's convention for 'default': a trial is a gait trial when its name says so. */
export function isGaitTrialName(trialName: string): boolean {
  return /gait|walk|jog|running/i.test(trialName);
}
