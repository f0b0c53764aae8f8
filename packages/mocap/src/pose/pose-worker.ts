import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../runtime/thread-priority.ts';
import { createPoseModel } from './create-pose-model.ts';
import type { PoseWorkerData, PoseWorkerReply, PoseWorkerTask } from './pose-worker-protocol.ts';

/**
 * A worker thread with its own TensorFlow.js runtime and pose model: the worker pool sends it
 * frames one at a time and it answers with the person's keypoints (and the other people's, when asked).
 */
const port = parentPort;
if (!port) throw new Error('pose-worker.ts must run as a worker thread');
const reply = (message: PoseWorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

const { model: modelName, lowerPriority } = workerData as PoseWorkerData;
if (lowerPriority) lowerThreadPriority();
const model = createPoseModel(modelName);
try {
  await model.load();
  reply({ kind: 'ready' });
} catch (error) {
  reply({ kind: 'failed', id: null, message: `cannot load pose model ${model.name}: ${String(error)}` });
}

// Tasks run one after the other: the model keeps per-call buffers and the runtime is single-threaded.
let queue = Promise.resolve();
port.on('message', (task: PoseWorkerTask) => {
  queue = queue.then(async () => {
    try {
      const estimate = await model.infer({ width: task.width, height: task.height, data: task.data }, task.request);
      const others = (estimate.others ?? []).flatMap((person) =>
        person ? [person.keypoints.buffer as ArrayBuffer] : [],
      );
      reply({ kind: 'result', id: task.id, estimate }, [estimate.keypoints.buffer as ArrayBuffer, ...others]);
    } catch (error) {
      reply({ kind: 'failed', id: task.id, message: String(error instanceof Error ? error.stack : error) });
    }
  });
});
