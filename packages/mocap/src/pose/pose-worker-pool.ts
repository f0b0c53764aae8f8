import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { PoseEstimate, PoseModelName, PoseRequest } from './pose-model.ts';
import type { PoseWorkerData, PoseWorkerReply, PoseWorkerTask } from './pose-worker-protocol.ts';
import type { RgbImage } from './region-sampler.ts';

interface PendingTask {
  task: PoseWorkerTask;
  resolve: (estimate: PoseEstimate) => void;
  reject: (error: Error) => void;
}

interface PoolWorker {
  worker: Worker;
  running: PendingTask | null;
}

export interface PoseWorkerPoolOptions {
  model: PoseModelName;
  /** Worker threads, one model each (default: the number of cores). */
  workers?: number;
  /**
   * The workers run below the priority of the thread that starts them: a server's pool, so that its API
   * answers while trials fill the cores (runtime/thread-priority.ts).
   */
  lowerPriority?: boolean;
}

/**
 * What the engine needs of a pool: its size (frames kept in flight) and inference. A thread other
 * than the pool's own passes its frames through a stand-in with these two (packages/processing's
 * engine thread).
 */
/** The workers a pool started with `workers` (default: one per core) has. */
export const poolSizeOf = (workers?: number) => Math.max(1, Math.floor(workers ?? availableParallelism()));

export type PoseInference = Pick<PoseWorkerPool, 'size' | 'infer'>;

/**
 * Worker threads that each run one pose model. TensorFlow.js's WebAssembly backend cannot use
 * threads of its own under Node, so parallelism comes from one runtime per worker. A pool can be
 * reused for several cameras, which saves loading the models again (about a second per worker).
 */
export class PoseWorkerPool {
  private readonly idle: PoolWorker[] = [];
  private readonly waiting: PendingTask[] = [];
  private nextId = 0;
  private failure: Error | null = null;

  private constructor(
    readonly model: PoseModelName,
    private readonly workers: PoolWorker[],
  ) {
    this.idle.push(...workers);
    for (const member of workers) {
      member.worker.on('message', (reply: PoseWorkerReply) => this.onReply(member, reply));
      member.worker.on('error', (error) => this.fail(error));
      member.worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a pose worker stopped unexpectedly (exit code ${code})`));
      });
    }
  }

  static async start(options: PoseWorkerPoolOptions): Promise<PoseWorkerPool> {
    const count = poolSizeOf(options.workers);
    const entry = new URL('./pose-worker.mjs', import.meta.url);
    const members = Array.from({ length: count }, () => ({
      worker: new Worker(entry, {
        workerData: { model: options.model, lowerPriority: options.lowerPriority } satisfies PoseWorkerData,
      }),
      running: null,
    }));
    try {
      await Promise.all(members.map(({ worker }) => waitUntilReady(worker)));
    } catch (error) {
      await Promise.all(members.map(({ worker }) => worker.terminate()));
      throw error;
    }
    return new PoseWorkerPool(options.model, members);
  }

  get size(): number {
    return this.workers.length;
  }

  /**
   * Runs the model on one image in the next free worker. The image's pixel buffer is handed over
   * to the worker (transferred, not copied) when it owns its whole buffer, so it must not be used
   * afterwards.
   */
  infer(image: RgbImage, request: PoseRequest): Promise<PoseEstimate> {
    if (this.failure) return Promise.reject(this.failure);
    const ownsBuffer = image.data.byteOffset === 0 && image.data.byteLength === image.data.buffer.byteLength;
    const data = ownsBuffer ? image.data : image.data.slice();
    return new Promise((resolve, reject) => {
      const task: PoseWorkerTask = { id: this.nextId++, width: image.width, height: image.height, data, request };
      this.waiting.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map(({ worker }) => worker.terminate()));
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.waiting.length > 0) {
      const member = this.idle.pop()!;
      const pending = this.waiting.shift()!;
      member.running = pending;
      member.worker.postMessage(pending.task, [pending.task.data.buffer as ArrayBuffer]);
    }
  }

  private onReply(member: PoolWorker, reply: PoseWorkerReply): void {
    const pending = member.running;
    if (reply.kind === 'ready' || !pending) return;
    member.running = null;
    this.idle.push(member);
    if (reply.kind === 'result') pending.resolve(reply.estimate);
    else pending.reject(new Error(`pose estimation failed in a worker: ${reply.message}`));
    this.dispatch();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const member of this.workers) member.running?.reject(error);
    for (const pending of this.waiting.splice(0)) pending.reject(error);
  }
}

function waitUntilReady(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: PoseWorkerReply) => {
      if (reply.kind === 'ready') resolve();
      else if (reply.kind === 'failed') reject(new Error(reply.message));
      else return;
      worker.off('message', onMessage);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`a pose worker stopped while starting (exit code ${code})`)));
  });
}
