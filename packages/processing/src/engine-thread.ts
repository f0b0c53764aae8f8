import { Worker } from 'node:worker_threads';
import type { PoseEstimate, PoseRequest } from '@kinetrace/mocap/pose/pose-model';
import type { PoseInference } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { SessionProgress } from '@kinetrace/mocap/session/types';
import type { ResultFile, TrialInputs } from './trial-io.ts';
import { EngineUserError } from './user-errors.ts';

/** To an engine thread (engine-worker.ts): a trial to run (`poolSize` when its frames go to the parent's pose pool), or the pool's answer for one frame. */
export type EngineThreadRequest =
  | { kind: 'run'; inputs: TrialInputs; outDir: string; poolSize?: number }
  | { kind: 'estimate'; id: number; estimate: PoseEstimate }
  | { kind: 'estimate-failed'; id: number; message: string };

/** From an engine thread: a frame for the pose pool, progress, and the run's end. */
export type EngineThreadMessage =
  | { kind: 'infer'; id: number; width: number; height: number; data: Uint8Array; request: PoseRequest }
  | { kind: 'progress'; stage: Parameters<SessionProgress>[0]; fraction: number }
  | { kind: 'done'; files: ResultFile[] }
  | { kind: 'failed'; name: string; message: string; stack?: string; userMessage?: string };

export interface EngineRunOptions {
  onProgress: SessionProgress;
  /** The pose pool the thread's frames go to (without one, the engine starts its own in the thread). */
  pool?: PoseInference;
  /** Ends the run and its thread (the attempt's time limit): the run rejects with the signal's reason. */
  signal: AbortSignal;
}

interface Kept {
  worker: Worker;
  idleTimer?: NodeJS.Timeout;
}

/**
 * The threads trials run the engine in, one per running trial, so that its synchronous stages
 * (sync, triangulation, scaling, IK: seconds each on long trials) leave the caller's event loop
 * free: the server's API, a remote worker's lease heartbeat (issue 24, as the analyses did). The
 * pose pool stays with the caller, which forwards each thread's frames to it.
 *
 * A thread that ended its run is kept `idleMs` for the next trial: starting one and loading the
 * engine (through tsx) takes a second or more, as much as a short trial's sync and IK. A thread
 * whose run failed as ours, was aborted or stopped is not used again.
 */
export class EngineThreads {
  private readonly idle: Kept[] = [];
  private closed = false;

  constructor(private readonly idleMs: number) {}

  /**
   * Runs the engine on one trial's inputs in a thread. An error the user can act on comes back as
   * an EngineUserError with the message userMessageOf (user-errors.ts) made of it in the thread;
   * any other as an Error with the original's name and stack.
   */
  async run(inputs: TrialInputs, outDir: string, options: EngineRunOptions): Promise<ResultFile[]> {
    options.signal.throwIfAborted();
    const kept = this.idle.pop() ?? this.start();
    clearTimeout(kept.idleTimer);
    kept.worker.ref();
    let ended: Awaited<ReturnType<typeof runOn>>;
    try {
      ended = await runOn(kept.worker, inputs, outDir, options);
    } catch (error) {
      await kept.worker.terminate();
      throw error;
    }
    if (this.closed) await kept.worker.terminate();
    else {
      // Idle, it keeps no process alive.
      kept.worker.unref();
      kept.idleTimer = setTimeout(() => void this.retire(kept), this.idleMs).unref();
      this.idle.push(kept);
    }
    if ('error' in ended) throw ended.error;
    return ended.files;
  }

  /** Stops the idle threads; runs under way stop theirs when they end. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((kept) => this.retire(kept)));
  }

  private start(): Kept {
    const kept: Kept = { worker: new Worker(new URL('./engine-worker.mjs', import.meta.url)) };
    // A thread that stops between runs (a run's own failure is the run's to report) is not handed out again.
    kept.worker.on('error', () => undefined).once('exit', () => void this.retire(kept));
    return kept;
  }

  private async retire(kept: Kept): Promise<void> {
    clearTimeout(kept.idleTimer);
    const index = this.idle.indexOf(kept);
    if (index >= 0) this.idle.splice(index, 1);
    await kept.worker.terminate();
  }
}

/** One run on `worker`: its files or the user's error; rejects when the run failed as ours, was aborted or the thread stopped. */
function runOn(
  worker: Worker,
  inputs: TrialInputs,
  outDir: string,
  { onProgress, pool, signal }: EngineRunOptions,
): Promise<{ files: ResultFile[] } | { error: EngineUserError }> {
  return new Promise((resolve, reject) => {
    const settle = (end: () => void) => {
      signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      end();
    };
    const onAbort = () => settle(() => reject(signal.reason as Error));
    const onError = (error: Error) => settle(() => reject(error));
    const onExit = (code: number) => settle(() => reject(new Error(`the engine thread stopped (exit code ${code})`)));
    const send = (request: EngineThreadRequest) => worker.postMessage(request);
    const onMessage = (message: EngineThreadMessage) => {
      switch (message.kind) {
        case 'infer':
          pool?.infer(message, message.request).then(
            (estimate) => send({ kind: 'estimate', id: message.id, estimate }),
            (error: unknown) =>
              send({
                kind: 'estimate-failed',
                id: message.id,
                message: error instanceof Error ? error.message : String(error),
              }),
          );
          return;
        case 'progress':
          onProgress(message.stage, message.fraction);
          return;
        case 'done':
          settle(() => resolve({ files: message.files }));
          return;
        case 'failed':
          // The original's stack (its class and message first) goes with either, for the log.
          if (message.userMessage !== undefined)
            settle(() =>
              resolve({ error: Object.assign(new EngineUserError(message.userMessage), { stack: message.stack }) }),
            );
          else
            settle(() =>
              reject(Object.assign(new Error(message.message), { name: message.name, stack: message.stack })),
            );
      }
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    send({ kind: 'run', inputs, outDir, ...(pool && { poolSize: pool.size }) });
  });
}
