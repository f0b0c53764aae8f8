import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-webgl';
import { loadGraphModel } from '@tensorflow/tfjs-converter';
import { capturePaths } from '@kinetrace/contracts';
import { BlazePoseModel } from '@kinetrace/mocap/pose/blazepose-model';
import type { PoseModelName } from '@kinetrace/mocap/pose/pose-model';
import { wholeImageRegion } from '@kinetrace/mocap/pose/region';
import { phonePoseUnavailable, type PhonePoseAnswer, type PhonePoseRequest } from './phone-pose-protocol.ts';

/**
 * The engine's pose model in a worker of the capture page (issue 24): the same BlazePose code and model files
 * as the server's, on TensorFlow.js's WebGL backend (the phone's GPU, through an OffscreenCanvas). In a worker,
 * compiling the model's shaders (seconds on a phone) and each inference leave the page, its preview, its
 * recorder and its polling (the phone's heartbeat) untouched.
 */

/** TensorFlow.js's backend for the phone's GPU. */
const BACKEND = 'webgl';

let model: BlazePoseModel | null = null;

/** Loads the model and runs it once on a blank image, so the first recorded frame does not wait for the shaders. */
async function load(name: PoseModelName, origin: string): Promise<void> {
  if (!(await tf.setBackend(BACKEND))) throw new Error(phonePoseUnavailable.noWebgl);
  const loaded = new BlazePoseModel(name, (modelFile) =>
    loadGraphModel(`${origin}${capturePaths.poseModels}${modelFile}`),
  );
  await loaded.load();
  const side = 64;
  await loaded.infer(
    { width: side, height: side, data: new Uint8Array(side * side * 3) },
    { region: wholeImageRegion(side, side), preferNear: null },
  );
  model = loaded;
}

const answer = (message: PhonePoseAnswer) => self.postMessage(message);

self.onmessage = async ({ data: request }: MessageEvent<PhonePoseRequest>) => {
  try {
    if (request.kind === 'load') {
      await load(request.model, request.origin);
      return answer({ kind: 'loaded', id: request.id });
    }
    if (!model) throw new Error('the pose model is not loaded');
    const estimate = await model.infer(request.image, request.request);
    answer({ kind: 'estimate', id: request.id, estimate });
  } catch (error) {
    answer({ kind: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
};
