import { z } from 'zod';

/**
 * The verdict of a processed trial's quality report (`quality_report` result, field `quality`):
 * whether its 3D keypoints are body-like, and if not, why and what is to blame, for the trial page
 * to show. The engine writes it (packages/mocap/src/report/trial-quality.ts); every field is
 * documented in packages/mocap/docs/process.md.
 */

/**
 * A trial is poor when the median, over the checked segments (thigh, shank, upper arm, forearm,
 * hindfoot, foot, both sides), of each segment's length SD exceeds this, mm. A body's segments do
 * not change length; careful four-camera markerless capture of the Pose2Sim demo stays near 10 mm
 * and two cameras near 15-20 mm, while keypoints built from a swapped side or two people reach
 * 60-130 mm (issue 25's figures).
 */
export const POOR_MEDIAN_SEGMENT_SD_MM = 30;

export const TRIAL_QUALITY_RATINGS = ['good', 'poor'] as const;
export type TrialQualityRating = (typeof TRIAL_QUALITY_RATINGS)[number];

/** Why a trial is poor (the web app may show its own text per code). */
export const TRIAL_QUALITY_REASON_CODES = [
  /** The median segment-length SD is above POOR_MEDIAN_SEGMENT_SD_MM. */
  'SEGMENTS_NOT_BODY_LIKE',
] as const;

/** A stretch of the trial, frames of its time base (inclusive) and seconds from its start. */
export const trialStretchSchema = z.object({
  firstFrame: z.number().int().nonnegative(),
  lastFrame: z.number().int().nonnegative(),
  startS: z.number(),
  endS: z.number(),
});
export type TrialStretch = z.infer<typeof trialStretchSchema>;

export const trialQualityReasonSchema = z.object({
  code: z.enum(TRIAL_QUALITY_REASON_CODES),
  /** What is wrong and what to try, in a sentence or two. */
  message: z.string(),
  /** The cameras to blame (empty when none stands out). */
  cameras: z.array(z.string()),
  /** Per camera to blame, what it did, e.g. "found nobody in 40 % of its frames". */
  cameraFindings: z.array(z.object({ camera: z.string(), finding: z.string() })),
  /** The stretches where the keypoints were least body-like (empty when the whole trial is). */
  stretches: z.array(trialStretchSchema),
});
export type TrialQualityReason = z.infer<typeof trialQualityReasonSchema>;

export const trialQualitySchema = z.object({
  rating: z.enum(TRIAL_QUALITY_RATINGS),
  /** The measure the rating is decided on (null when no segment was seen). */
  medianSegmentSdMm: z.number().nullable(),
  limitMm: z.number(),
  /** Empty for a good trial. */
  reasons: z.array(trialQualityReasonSchema),
});
export type TrialQuality = z.infer<typeof trialQualitySchema>;
