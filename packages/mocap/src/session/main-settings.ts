import type { Keypoints2dSource } from '@kinetrace/contracts';
import type { TrialResult } from '../pipeline/process-trial.ts';
import type { Choice } from './model-choice.ts';
import type { ProcessingSettings, Subject } from './types.ts';

/**
 * `main_settings` (spec §3): what a trial was processed with — the settings the session asked
 * for next to what was actually used, and why where they differ — so results can be reproduced
 * and compared. Written as `<trial>_settings.json`.
 */
export interface MainSettings {
  format: 'kinetrace-main-settings';
  version: 1;
  trial: string;
  kind: 'neutral' | 'movement';
  poseModel: { requested: string | null; used: string };
  openSimModel: Choice;
  augmenter: Choice;
  filter: { requested: 'default' | number; cutoffHz: number; applied: boolean; gait: boolean };
  scalingSetup: ProcessingSettings['scalingSetup'];
  subject: Subject;
  cameras: string[];
  /** Per camera: whether its 2D keypoints were detected or given with its video (absent from settings written before). */
  keypoints2D?: Record<string, Keypoints2dSource>;
  /** Per camera whose phone sent its keypoints (issue 24): whether they were used, and why not ('too sparse: 14 Hz, needs 24 Hz'). */
  phoneKeypoints?: Record<string, { used: boolean; reason?: string }>;
  /**
   * Per camera whose keypoints the server detected: the frames a second its pose model ran on, the video's rate
   * or what the filter needs with the frames between filled (settings.poseRate, issue 24).
   */
  detectedHz?: Record<string, number>;
  /** The cameras whose keypoints the server detected as their videos arrived, before the trial's last video (issue 24). */
  detectedOnArrival?: string[];
  referenceCamera: string;
  frameRateHz: number;
}

export function buildMainSettings(input: {
  trialName: string;
  kind: MainSettings['kind'];
  settings: ProcessingSettings;
  subject: Subject;
  model: Choice;
  augmenter: Choice;
  result: TrialResult;
  isGait: boolean;
}): MainSettings {
  const { settings, result } = input;
  return {
    format: 'kinetrace-main-settings',
    version: 1,
    trial: input.trialName,
    kind: input.kind,
    poseModel: { requested: settings.requestedPoseModel ?? null, used: settings.poseModel },
    openSimModel: input.model,
    augmenter: input.augmenter,
    filter: {
      requested: settings.filterFrequency,
      cutoffHz: result.cutoff.cutoffHz,
      applied: !result.cutoff.passThrough,
      gait: input.isGait,
    },
    scalingSetup: settings.scalingSetup,
    subject: { heightM: input.subject.heightM, massKg: input.subject.massKg },
    cameras: result.cameras.map((camera) => camera.name),
    keypoints2D: Object.fromEntries(
      result.report.cameras.map((camera) => [camera.name, camera.keypoints2D ?? 'detected']),
    ),
    phoneKeypoints: Object.fromEntries(
      result.report.cameras.flatMap(({ name, phoneKeypoints: phone }) =>
        phone ? [[name, { used: phone.used, ...(phone.reason && { reason: phone.reason }) }]] : [],
      ),
    ),
    detectedHz: Object.fromEntries(
      result.report.cameras.flatMap(({ name, detectedHz }) => (detectedHz !== undefined ? [[name, detectedHz]] : [])),
    ),
    detectedOnArrival: result.report.cameras.flatMap(({ name, detectedOnArrival }) =>
      detectedOnArrival ? [name] : [],
    ),
    referenceCamera: result.report.cameras[result.sync.referenceCamera]?.name ?? '',
    frameRateHz: result.keypoints.frameRateHz,
  };
}
