import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { parse as parseNpy } from 'npyjs';
import { loadKerasModel } from './load-keras-model.ts';
import type { AugmenterPart, MarkerAugmenter } from './marker-augmenter.ts';
import {
  ARM_AUGMENTER_MARKERS,
  augmenterInputSize,
  BODY_AUGMENTER_MARKERS,
  type AugmenterMarkerSet,
} from './opencap-augmenter-markers.ts';

export class AugmenterWeightsError extends Error {
  override name = 'AugmenterWeightsError';
}

/**
 * Sub-folder names of the two networks: marker-enhancer's reference_models/<arch>/{body,arm} and
 * OpenCap's MarkerAugmenter/LSTM/v0.3_{lower,upper}.
 */
const PART_FOLDERS: Array<{ markers: AugmenterMarkerSet; folders: RegExp }> = [
  { markers: BODY_AUGMENTER_MARKERS, folders: /^(body|.*_lower)$/ },
  { markers: ARM_AUGMENTER_MARKERS, folders: /^(arm|.*_upper)$/ },
];

async function readNpyFloat64(path: string): Promise<Float64Array> {
  const bytes = await readFile(path);
  const array = parseNpy(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return Float64Array.from(array.data as unknown as ArrayLike<number>);
}

async function loadPart(directory: string, markers: AugmenterMarkerSet): Promise<AugmenterPart> {
  const required = ['model.json', 'weights.h5', 'mean.npy', 'std.npy', 'metadata.json'];
  const absent = required.filter((file) => !existsSync(join(directory, file)));
  if (absent.length > 0) {
    throw new AugmenterWeightsError(
      `Augmenter folder ${directory} lacks ${absent.join(', ')}; it needs ${required.join(', ')}.`,
    );
  }
  const [network, featureMean, featureStd, metadataText] = await Promise.all([
    loadKerasModel(join(directory, 'model.json'), join(directory, 'weights.h5')),
    readNpyFloat64(join(directory, 'mean.npy')),
    readNpyFloat64(join(directory, 'std.npy')),
    readFile(join(directory, 'metadata.json'), 'utf8'),
  ]);
  const metadata = JSON.parse(metadataText) as { reference_marker?: string };
  const inputSize = augmenterInputSize(markers);
  if (network.inputSize !== inputSize || featureMean.length !== inputSize || featureStd.length !== inputSize) {
    throw new AugmenterWeightsError(
      `The ${markers.part} augmenter in ${directory} takes ${network.inputSize} inputs (mean ${featureMean.length}, std ${featureStd.length}); ` +
        `OpenCap's ${markers.part} model takes ${inputSize}. Only OpenCap v0.3-style augmenters are supported.`,
    );
  }
  if (network.outputSize !== markers.responseMarkers.length * 3) {
    throw new AugmenterWeightsError(
      `The ${markers.part} augmenter in ${directory} predicts ${network.outputSize / 3} markers; OpenCap's predicts ${markers.responseMarkers.length}.`,
    );
  }
  return { markers, network, referenceMarker: metadata.reference_marker ?? 'midHip', featureMean, featureStd };
}

/**
 * Loads an OpenCap-style marker augmenter from a directory holding a body and an arm network
 * (`body/` + `arm/`, or `v0.3_lower/` + `v0.3_upper/`), each with model.json, weights.h5,
 * mean.npy, std.npy and metadata.json.
 */
export async function loadMarkerAugmenter(directory: string): Promise<MarkerAugmenter> {
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch {
    throw new AugmenterWeightsError(
      `Augmenter directory ${directory} cannot be read; point it at a folder with body/ and arm/ sub-folders.`,
    );
  }
  const parts: AugmenterPart[] = [];
  for (const { markers, folders } of PART_FOLDERS) {
    const folder = entries.find((entry) => folders.test(entry));
    if (!folder) {
      throw new AugmenterWeightsError(
        `Augmenter directory ${directory} has no ${markers.part} network (a "${markers.part}/" sub-folder).`,
      );
    }
    parts.push(await loadPart(join(directory, folder), markers));
  }
  return { label: basename(directory), parts };
}
