import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  AUGMENTER_MODELS,
  CHECKERBOARD_DEFAULTS,
  clampFilterFrequency,
  DEFAULT_SESSION_SETTINGS,
  OPENSIM_MODELS,
  POSE_MODELS,
  type SessionMeta,
  type SettingChoices,
} from '@kinetrace/contracts';
import { POSE_MODEL_LABELS } from '@kinetrace/mocap/pose/pose-model';
import type { BoardSpec, PoseModelName, ProcessingSettings } from '@kinetrace/mocap/session/types';

/**
 * What the engine runs for the session's pose_model (spec §3 names OpenCap's models): BlazePose full
 * where the session asks for the accurate model, lite where it asks for the fast one.
 */
export const POSE_MODEL_FOR: Record<keyof typeof POSE_MODELS, PoseModelName> = {
  hrnet: 'blazepose-full',
  openpose: 'blazepose-lite',
};

/**
 * Where an operator installs optional files (documented in packages/processing/README.md):
 * marker-augmenter weights as `<installDir>/augmenters/<augmenter_model>/` (OpenCap's
 * `v0.3_lower`/`v0.3_upper` or marker-enhancer's `body`/`arm` sub-folders), and OpenSim models as
 * `<installDir>/models/<openSimModel>.osim`. Without them the engine uses keypoint IK and the model
 * it ships under that name (OpenCap's LaiUhlrich2022 or LaiUhlrich2022_shoulder), and says so in main_settings.
 */
export const augmenterDirOf = (installDir: string, augmenterModel: string) =>
  join(installDir, 'augmenters', augmenterModel);
export const modelPathOf = (installDir: string, openSimModel: string) =>
  join(installDir, 'models', `${openSimModel}.osim`);

const entriesOf = <Options extends Record<string, string>>(options: Options) =>
  Object.entries(options) as [keyof Options & string, string][];

/**
 * What each choice of Advanced Settings runs on this server (issue 21), decided as resolveProcessingSettings
 * decides it for a trial: the pose model each name maps to, and whether the operator installed the model file
 * or augmenter weights a choice needs (without weights, keypoint IK runs; every model choice runs, the
 * operator's file or else the model shipped under that name).
 */
export function settingChoices(installDir: string): SettingChoices {
  return {
    pose_model: entriesOf(POSE_MODELS).map(([value, label]) => ({
      value,
      label,
      runs: POSE_MODEL_LABELS[POSE_MODEL_FOR[value]],
      installed: true,
    })),
    // Every model choice runs: an operator's file of that name, else the model Kinetrace ships under it.
    openSimModel: entriesOf(OPENSIM_MODELS).map(([value, label]) => {
      const operatorFile = existsSync(modelPathOf(installDir, value));
      return {
        value,
        label,
        installed: true,
        runs: operatorFile ? `${value}.osim (installed)` : `${value} (shipped with Kinetrace)`,
      };
    }),
    augmenter_model: entriesOf(AUGMENTER_MODELS).map(([value, label]) => {
      const installed = existsSync(augmenterDirOf(installDir, value));
      return {
        value,
        label,
        installed,
        runs: installed ? `the ${value} augmenter weights (installed)` : 'IK on the video keypoints',
      };
    }),
  };
}

export function boardOf(meta: SessionMeta): BoardSpec {
  const board = meta.checkerboard;
  return board
    ? { rows: board.rows, cols: board.cols, squareSizeMm: board.squareSize, placement: board.placement }
    : { ...CHECKERBOARD_DEFAULTS };
}

/**
 * The session's settings (spec §3) as the engine takes them. `framerate` is the trial's recording
 * rate: the filter frequency is kept below half of it (spec §5). The pose model runs at the rate the
 * trial's filter needs unless the session asks for every frame (pose_rate, issue 24): about half the pose
 * time, its angles as far from four cameras' as those of another tracking of every frame (packages/mocap/docs/pose.md).
 */
export function resolveProcessingSettings(
  meta: SessionMeta,
  framerate: number,
  installDir: string,
): ProcessingSettings {
  const settings = { ...DEFAULT_SESSION_SETTINGS, ...meta.settings };
  const augmenterDir = augmenterDirOf(installDir, settings.augmenter_model);
  const modelPath = modelPathOf(installDir, settings.openSimModel);
  return {
    board: boardOf(meta),
    poseModel: POSE_MODEL_FOR[settings.pose_model],
    requestedPoseModel: settings.pose_model,
    filterFrequency: clampFilterFrequency(settings.filter_frequency, framerate).value,
    poseRate: settings.pose_rate,
    scalingSetup: settings.scaling_setup,
    requestedAugmenter: settings.augmenter_model,
    ...(existsSync(augmenterDir) && { augmenterDir }),
    requestedModel: settings.openSimModel,
    ...(existsSync(modelPath) && { modelPath }),
  };
}
