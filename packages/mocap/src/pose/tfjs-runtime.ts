import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { loadGraphModel, type GraphModel } from '@tensorflow/tfjs-converter';
import { packagedModelsDir } from './packaged-models.ts';

const require = createRequire(import.meta.url);

let ready: Promise<void> | null = null;

/**
 * Starts TensorFlow.js on its WebAssembly backend (SIMD, one thread: its own pthreads do not run
 * under Node, so parallelism comes from one runtime per worker thread instead).
 */
export function startTfjsRuntime(): Promise<void> {
  ready ??= (async () => {
    const wasmDir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    setWasmPaths(`${wasmDir}/`);
    setThreadsCount(1);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return ready;
}

/** Loads one of the packaged models by file name ("blazepose-full.json"), from node_modules. */
export const loadPackagedGraphModel = (modelFile: string): Promise<GraphModel> =>
  loadLocalGraphModel(join(packagedModelsDir(), modelFile));

/**
 * Loads a TensorFlow.js graph model (model.json + weight files) from a local folder: models come
 * from node_modules, never from the network.
 */
async function loadLocalGraphModel(modelJsonPath: string): Promise<GraphModel> {
  await startTfjsRuntime();
  const artifactsJson = JSON.parse(await readFile(modelJsonPath, 'utf8')) as {
    modelTopology: tf.io.ModelArtifacts['modelTopology'];
    weightsManifest: tf.io.WeightsManifestConfig;
    format?: string;
    generatedBy?: string;
    convertedBy?: string;
    signature?: object;
    userDefinedMetadata?: Record<string, object>;
  };
  const weightSpecs = artifactsJson.weightsManifest.flatMap((group) => group.weights);
  const weightBuffers = await Promise.all(
    artifactsJson.weightsManifest
      .flatMap((group) => group.paths)
      .map((path) => readFile(join(dirname(modelJsonPath), path))),
  );
  const weightData = Buffer.concat(weightBuffers);
  return loadGraphModel(
    tf.io.fromMemory({
      modelTopology: artifactsJson.modelTopology,
      weightSpecs,
      weightData: weightData.buffer.slice(weightData.byteOffset, weightData.byteOffset + weightData.byteLength),
      format: artifactsJson.format,
      generatedBy: artifactsJson.generatedBy,
      convertedBy: artifactsJson.convertedBy,
      signature: artifactsJson.signature,
      userDefinedMetadata: artifactsJson.userDefinedMetadata,
    }),
  );
}
