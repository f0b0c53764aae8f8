import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadMarkerAugmenter } from '../augmenter/load-augmenter.ts';
import type { MarkerAugmenter } from '../augmenter/marker-augmenter.ts';
import { DEFAULT_MODEL, isModelName, type ModelName, namedModelDocument } from '../default-model/named-models.ts';
import type { OsimModel } from '../model/osim-model.ts';
import { readOsimTree } from '../model/read-osim.ts';
import { parseXmlDocument, type XmlDocument } from '../model/xml-tree.ts';
import type { ProcessingSettings } from './types.ts';

/**
 * Which model and augmenter a session's trials actually use, and why (for main_settings): an
 * operator-installed .osim or augmenter is used when it loads; when it does not (or none is
 * installed), the model Kinetrace ships under the requested name (LaiUhlrich2022 by default) and
 * keypoint IK are, and the record says so. Failure details stay out of the record, as they name the
 * server's files.
 */
export interface Choice {
  requested: string | null;
  used: string;
  reason: string;
}

/** The model Kinetrace ships for a requested name: itself when it is one of them, else the default model. */
const shippedModel = (requested: string | null): ModelName =>
  requested !== null && isModelName(requested) ? requested : DEFAULT_MODEL;

export async function chooseModel(settings: ProcessingSettings): Promise<{ model: XmlDocument; choice: Choice }> {
  const requested = settings.requestedModel ?? null;
  const shipped = (reason: string) => {
    const name = shippedModel(requested);
    // `used` is the model's own name: the OpenCap archive names the scaled model after it (LaiUhlrich2022_scaled.osim).
    return { model: namedModelDocument(name), choice: { requested, used: name, reason } };
  };
  if (!settings.modelPath) return shipped('The model shipped with Kinetrace, with markers at the video keypoints.');
  try {
    const model = parseXmlDocument(await readFile(settings.modelPath, 'utf8'));
    readOsimTree(model.root);
    return {
      model,
      choice: { requested, used: basename(settings.modelPath), reason: 'The model installed by the operator.' },
    };
  } catch {
    return shipped('The installed model file could not be read: the model shipped with Kinetrace is used instead.');
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
  return {
    requested: settings.requestedModel ?? null,
    used: settings.modelPath ? basename(settings.modelPath) : scaled.name,
    reason: 'The model scaled on the session’s neutral trial.',
  };
}

/** What runs without augmenter weights (main_settings' `used`, Advanced Settings). */
export const KEYPOINT_IK_LABEL = 'none (keypoint IK)';
