import { z } from 'zod';

/**
 * Processing a trial (spec §4.2, §4.3; DESIGN §2): what its kind is, which stage it is in, and the
 * results it leaves. The runner writes `progress` into the trial's meta; the wizard screens and the
 * trial list read it.
 */

/** What a trial is processed as: decided by its name (calibration, neutral) or a movement trial. */
export const TRIAL_KINDS = ['calibration', 'neutral', 'movement'] as const;
export type TrialKind = (typeof TRIAL_KINDS)[number];
export const trialKindOf = (trialName: string): TrialKind =>
  trialName === 'calibration' ? 'calibration' : trialName === 'neutral' ? 'neutral' : 'movement';

/** Stages a user sees, in order. Calibration uses `board` and `outputs`; neutral and movement the rest. */
export const PROCESSING_STAGES = {
  queued: 'Waiting in the queue',
  waiting_for_neutral: 'Waiting for the neutral trial',
  board: 'Finding the checkerboard',
  pose: 'Detecting the person (decode and pose)',
  sync: 'Synchronising the cameras',
  triangulate: 'Triangulating 3D keypoints',
  filter: 'Filtering',
  scale_ik: 'Scaling the model and solving joint angles',
  outputs: 'Writing the results',
} as const;
export type ProcessingStage = keyof typeof PROCESSING_STAGES;
const stageKeys = Object.keys(PROCESSING_STAGES) as [ProcessingStage, ...ProcessingStage[]];

/** `trial.meta.progress` while a trial is processing (absent before and after). */
export const processingProgressSchema = z.object({
  stage: z.enum(stageKeys),
  /** Whole trial, 0 to 100. */
  percent: z.number().min(0).max(100),
  /** When processing of this attempt started (ISO time), for the elapsed time on screen. */
  started_at: z.string(),
  /** Seconds the whole trial is expected to take, from the videos' length; beyond a few times this the screens say something is wrong. */
  expected_s: z.number().nonnegative().optional(),
});
export type ProcessingProgress = z.infer<typeof processingProgressSchema>;

/** Result tags (spec §3 names the first four). */
export const RESULT_TAGS = {
  visualizerTransforms: 'visualizerTransforms-json',
  ikResults: 'ik_results',
  ikJson: 'IK-json',
  videoSync: 'video-sync',
  markerData: 'marker_data',
  opensimModel: 'opensim_model',
  mainSettings: 'main_settings',
  qualityReport: 'quality_report',
  /** One per calibrated camera (Kinetrace camera JSON); meta.device_id names the phone. */
  cameraParameters: 'camera-parameters',
  calibrationImage: 'calibration-img',
  neutralImage: 'neutral-img',
} as const;
export type ResultTag = (typeof RESULT_TAGS)[keyof typeof RESULT_TAGS];

export const processingPaths = {
  /** POST: queue one trial again with the session's current settings (status `reprocess`). */
  reprocessTrial: (trialId: string) => `/trials/${trialId}/reprocess/`,
  /** POST: queue every processed trial of the session again (calibration first, then neutral, then movement). */
  reprocessSession: (sessionId: string) => `/sessions/${sessionId}/reprocess/`,
  /** POST multipart `file` (repeatable): camera calibration files that make the session calibrated. */
  importCalibration: (sessionId: string) => `/sessions/${sessionId}/import-calibration/`,
  /** GET: a new session with this one's calibration and phones, for the next subject (spec §7). */
  newSubject: (sessionId: string) => `/sessions/${sessionId}/new_subject/`,
  /** GET list / POST multipart `device_model` + `file` (a `kinetrace calibrate` JSON or board images). */
  lensCalibrations: '/lens-calibrations/',
} as const;

export const reprocessResponseSchema = z.object({ trials: z.array(z.string()) });

/** A device model's lens calibration (intrinsics used instead of the board estimate). */
export const lensCalibrationSchema = z.object({
  device_model: z.string(),
  image_size: z.object({ width: z.number().int(), height: z.number().int() }),
  rms_error_px: z.number().nullable(),
  created_at: z.string(),
});
export type LensCalibration = z.infer<typeof lensCalibrationSchema>;

export const deviceModelField = z.string().trim().min(1, 'Name the device model.').max(100);
