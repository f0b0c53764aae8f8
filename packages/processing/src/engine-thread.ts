import { Worker } from 'node:worker_threads';
import type { FollowUpStage } from '@kinetrace/contracts';
import type { CameraDetection } from '@kinetrace/mocap/formats/keypoints-2d-files';
import type { PoseEstimate, PoseRequest } from '@kinetrace/mocap/pose/pose-model';
import type { PoseInference } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { SessionProgress } from '@kinetrace/mocap/session/types';
import type { ArrivingTrial } from './detect-on-arrival.ts';
import type { ResultFile, TrialInputs } from './trial-io.ts';
import { EngineUserError } from './user-errors.ts';

/**
 * To an engine thread (engine-worker.ts): a trial to run (`poolSize` when its frames go to the parent's pose pool),
 * one camera of a trial to detect as its video arrives (detect-on-arrival.ts), or the pool's answer for one frame.
 */
export type EngineThreadRequest =
  | { kind: 'run'; inputs: TrialInputs; outDir: string; poolSize?: number }
  | {
      kind: 'detect';
      video: { cameraName: string; path: string };
      trial: ArrivingTrial;
      outPath: string;
      poolSize: number;
    }
  | { kind: 'estimate'; id: number; estimate: PoseEstimate }
  | { kind: 'estimate-failed'; id: number; message: string };

/** How a run (or its follow-up) failed: the original's name and stack for the log, and the user's message when it is theirs. */
export interface EngineFailure {
  name: string;
  message: string;
  stack?: string;
  userMessage?: string;
}

/**
 * From an engine thread: a frame for the pose pool, progress, and the run's end; with `followUp`, the run
 * goes on to that stage's outputs (issue 24: the synchronised videos), with its own progress and end.
 */
export type EngineThreadMessage =
  | { kind: 'infer'; id: number; width: number; height: number; data: Uint8Array; request: PoseRequest }
  | { kind: 'progress'; stage: Parameters<SessionProgress>[0]; fraction: number }
  | { kind: 'done'; files: ResultFile[]; followUp?: FollowUpStage }
  | { kind: 'detected'; detection: CameraDetection }
  | ({ kind: 'failed' } & EngineFailure)
  | { kind: 'follow-up-progress'; fraction: number }
  | { kind: 'follow-up-done'; files: ResultFile[] }
  | ({ kind: 'follow-up-failed' } & EngineFailure);

/** A run's results, and the slower outputs that follow them (their files once written) when it has some. */
export interface EngineResults {
  files: ResultFile[];
  followUp?: { stage: FollowUpStage; files: Promise<ResultFile[]> };
}

export interface EngineRunOptions {
  onProgress: SessionProgress;
  /** The follow-up's progress, 0 to 1 of it alone. */
  onFollowUpProgress?: (fraction: number) => void;
  /** The pose pool the thread's frames go to (without one, the engine starts its own in the thread). */
  pool?: PoseInference;
  /** Ends the run (or its follow-up) and its thread (the attempt's time limit): it rejects with the signal's reason. */
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
   * any other as an Error with the original's name and stack. The follow-up's files reject alike; the
   * thread serves the next run once the follow-up has ended.
   */
  async run(inputs: TrialInputs, outDir: string, options: EngineRunOptions): Promise<EngineResults> {
    options.signal.throwIfAborted();
    const kept = this.idle.pop() ?? this.start();
    clearTimeout(kept.idleTimer);
    kept.worker.ref();
    const running = runOn(kept.worker, inputs, outDir, options);
    running.over.then(
      () => this.keep(kept),
      () => void kept.worker.terminate(),
    );
    const ended = await running.results;
    if ('error' in ended) throw ended.error;
    return ended;
  }

  /**
   * Detects one camera of a trial in a thread, its frames to `pool` (detectOnArrival): how they were made, once
   * the keypoints are written to `outPath`. Rejects when the detection failed, `signal` ended it or the thread
   * stopped; only a detection that ended well leaves its thread for the next run.
   */
  async detect(
    request: Omit<Extract<EngineThreadRequest, { kind: 'detect' }>, 'kind' | 'poolSize'>,
    pool: PoseInference,
    signal: AbortSignal,
  ): Promise<CameraDetection> {
    signal.throwIfAborted();
    const kept = this.idle.pop() ?? this.start();
    clearTimeout(kept.idleTimer);
    kept.worker.ref();
    try {
      const detection = await detectOn(kept.worker, { kind: 'detect', ...request, poolSize: pool.size }, pool, signal);
      this.keep(kept);
      return detection;
    } catch (error) {
      void kept.worker.terminate();
      throw error;
    }
  }

  /** Stops the idle threads; runs under way stop theirs when they end. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.idle.splice(0).map((kept) => this.retire(kept)));
  }

  private keep(kept: Kept): void {
    if (this.closed) {
      void kept.worker.terminate();
      return;
    }
    // Idle, it keeps no process alive.
    kept.worker.unref();
    kept.idleTimer = setTimeout(() => void this.retire(kept), this.idleMs).unref();
    this.idle.push(kept);
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

/** One detection on `worker`: its frames to `pool`, its answer, or its failure (the thread then not to be used again). */
function detectOn(
  worker: Worker,
  request: Extract<EngineThreadRequest, { kind: 'detect' }>,
  pool: PoseInference,
  signal: AbortSignal,
): Promise<CameraDetection> {
  return new Promise((resolve, reject) => {
    const stopListening = () => {
      signal.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
    };
    const fail = (error: Error) => {
      stopListening();
      reject(error);
    };
    const onAbort = () => fail(signal.reason as Error);
    const onError = (error: Error) => fail(error);
    const onExit = (code: number) => fail(new Error(`the engine thread stopped (exit code ${code})`));
    const onMessage = (message: EngineThreadMessage) => {
      if (message.kind === 'infer')
        pool.infer(message, message.request).then(
          (estimate) =>
            worker.postMessage({ kind: 'estimate', id: message.id, estimate } satisfies EngineThreadRequest),
          (error: unknown) =>
            worker.postMessage({
              kind: 'estimate-failed',
              id: message.id,
              message: error instanceof Error ? error.message : String(error),
            } satisfies EngineThreadRequest),
        );
      else if (message.kind === 'detected') {
        stopListening();
        resolve(message.detection);
      } else if (message.kind === 'failed') fail(errorOf(message));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(request);
  });
}

/** The error a thread's failure stands for: the user's, or ours with the original's name and stack. */
function errorOf(failure: EngineFailure): Error {
  // The original's stack (its class and message first) goes with either, for the log.
  return failure.userMessage !== undefined
    ? Object.assign(new EngineUserError(failure.userMessage), { stack: failure.stack })
    : Object.assign(new Error(failure.message), { name: failure.name, stack: failure.stack });
}

/**
 * One run on `worker`: `results`, its files (and follow-up) or the user's error, rejecting when the run
 * failed as ours, was aborted or the thread stopped; `over` once the thread is done with it (follow-up
 * included), rejecting when the thread must not be used again.
 */
function runOn(
  worker: Worker,
  inputs: TrialInputs,
  outDir: string,
  { onProgress, onFollowUpProgress, pool, signal }: EngineRunOptions,
): { results: Promise<EngineResults | { error: Error }>; over: Promise<void> } {
  let settleResults!: { resolve: (results: EngineResults | { error: Error }) => void; reject: (error: Error) => void };
  const results = new Promise<EngineResults | { error: Error }>((resolve, reject) => {
    settleResults = { resolve, reject };
  });
  let settleFollowUp: { resolve: (files: ResultFile[]) => void; reject: (error: Error) => void } | undefined;
  let settleOver!: { resolve: () => void; reject: (error: Error) => void };
  const over = new Promise<void>((resolve, reject) => {
    settleOver = { resolve, reject };
  });
  over.catch(() => undefined);
  const stopListening = () => {
    signal.removeEventListener('abort', onAbort);
    worker.off('message', onMessage).off('error', onError).off('exit', onExit);
  };
  /** The run ends: `error` rejects whichever of its results is awaited, and retires the thread. */
  const end = (error?: Error, reusable = error === undefined) => {
    stopListening();
    if (error) {
      if (settleFollowUp) settleFollowUp.reject(error);
      else settleResults.reject(error);
    }
    if (reusable) settleOver.resolve();
    else settleOver.reject(error ?? new Error('the engine thread is retired'));
  };
  const onAbort = () => end(signal.reason as Error);
  const onError = (error: Error) => end(error);
  const onExit = (code: number) => end(new Error(`the engine thread stopped (exit code ${code})`));
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
      case 'done': {
        if (!message.followUp) {
          settleResults.resolve({ files: message.files });
          return end();
        }
        const files = new Promise<ResultFile[]>((resolve, reject) => {
          settleFollowUp = { resolve, reject };
        });
        settleResults.resolve({ files: message.files, followUp: { stage: message.followUp, files } });
        return;
      }
      case 'failed': {
        const error = errorOf(message);
        // A user's error leaves the thread as good as before; ours retires it.
        if (message.userMessage === undefined) return end(error);
        settleResults.resolve({ error });
        return end();
      }
      case 'follow-up-progress':
        onFollowUpProgress?.(message.fraction);
        return;
      case 'follow-up-done':
        settleFollowUp?.resolve(message.files);
        return end();
      case 'follow-up-failed':
        return end(errorOf(message), message.userMessage !== undefined);
    }
  };
  signal.addEventListener('abort', onAbort, { once: true });
  worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  send({ kind: 'run', inputs, outDir, ...(pool && { poolSize: pool.size }) });
  return { results, over };
}
