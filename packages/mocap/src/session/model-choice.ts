import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadMarkerAugmenter } from '../augmenter/load-augmenter.ts';
import type { MarkerAugmenter } from '../augmenter/marker-augmenter.ts';
import { createDefaultModel } from '../default-model/default-model.ts';
import { KEYPOINT_IK_ROBUSTNESS } from '../default-model/keypoint-ik-tasks.ts';
import type { IkSettings } from '../ik/ik-problem.ts';
import { defaultModelIkSettings } from '../model-fitting/fit-neutral.ts';
import type { OsimModel } from '../model/osim-model.ts';
import { readOsimTree } from '../model/read-osim.ts';
import { parseXmlDocument, type XmlDocument } from '../model/xml-tree.ts';
import type { ProcessingSettings } from './types.ts';

/**
 * Which model and augmenter a session's trials actually use, and why (for main_settings): an
 * operator-installed .osim or augmenter is used when it loads; when it does not (or none is
 * installed), Kinetrace's default model and keypoint IK are, and the record says so. Failure
 * details stay out of the record, as they name the server's files.
 */
export interface Choice {
  requested: string | null;
  used: string;
  reason: string;
}

export async function chooseModel(settings: ProcessingSettings): Promise<{ model?: XmlDocument; choice: Choice }> {
  const requested = settings.requestedModel ?? null;
  if (!settings.modelPath) {
    return {
      choice: {
        requested,
        used: DEFAULT_MODEL_LABEL,
        reason: requested
          ? `No model file is installed for "${requested}": Kinetrace's default model is used.`
          : "Kinetrace's default model.",
      },
    };
  }
  try {
    const model = parseXmlDocument(await readFile(settings.modelPath, 'utf8'));
    readOsimTree(model.root);
    return {
      model,
      choice: { requested, used: basename(settings.modelPath), reason: 'The model installed by the operator.' },
    };
  } catch {
    return {
      choice: {
        requested,
        used: DEFAULT_MODEL_LABEL,
        reason: "The installed model file could not be read: Kinetrace's default model is used instead.",
      },
    };
  }
}

export async function chooseAugmenter(
  settings: ProcessingSettings,
): Promise<{ augmenter?: MarkerAugmenter; choice: Choice }> {
  const requested = settings.requestedAugmenter ?? null;
  const none = (reason: string) => ({ choice: { requested, used: KEYPOINT_IK_LABEL, reason } });
  if (!settings.augmenterDir) {
    return none(
      requested
        ? `No augmenter weights are installed for "${requested}": inverse kinematics tracks the video keypoints directly.`
        : 'Inverse kinematics tracks the video keypoints directly.',
    );
  }
  try {
    const augmenter = await loadMarkerAugmenter(settings.augmenterDir);
    return {
      augmenter,
      choice: { requested, used: augmenter.label, reason: 'The augmenter weights installed by the operator.' },
    };
  } catch {
    return none(
      'The installed augmenter weights could not be loaded: inverse kinematics tracks the video keypoints directly.',
    );
  }
}

/** The record for a movement trial, which uses the model its session's neutral trial scaled. */
export function scaledModelChoice(settings: ProcessingSettings, scaled: OsimModel): Choice {
  const isDefault = scaled.name === DEFAULT_MODEL_NAME;
  return {
    requested: settings.requestedModel ?? null,
    used: isDefault ? DEFAULT_MODEL_LABEL : settings.modelPath ? basename(settings.modelPath) : scaled.name,
    reason: 'The model scaled on the session’s neutral trial.',
  };
}

/** What runs without an installed model file, and without augmenter weights (main_settings' `used`, Advanced Settings). */
export const DEFAULT_MODEL_LABEL = 'Kinetrace default full-body model';
export const KEYPOINT_IK_LABEL = 'none (keypoint IK)';

/** The default model's name as its .osim carries it, to recognise a scaled default model. */
const DEFAULT_MODEL_NAME = createDefaultModel().name;

/**
 * IK settings for a scaled model read back from its .osim, as fitNeutral chose them (and `kinetrace
 * ik` uses): the default model's keypoint weights and motion priors, every common marker at weight 1
 * for any other model; with the robustness video keypoints need either way.
 */
export function ikTasksForModel(model: OsimModel): IkSettings {
  return model.name === DEFAULT_MODEL_NAME ? defaultModelIkSettings() : { ...KEYPOINT_IK_ROBUSTNESS };
}
