import type { PoseEstimate, PoseModelName, PoseRequest } from './pose-model.ts';

/** What a pose worker is started with (its workerData). */
export interface PoseWorkerData {
  model: PoseModelName;
  /** Run below the starting thread's priority (runtime/thread-priority.ts): a server's pool, beside its API. */
  lowerPriority?: boolean;
}

export interface PoseWorkerTask {
  id: number;
  width: number;
  height: number;
  /** RGB pixels; its buffer is transferred, not copied. */
  data: Uint8Array;
  request: PoseRequest;
}

export type PoseWorkerReply =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; estimate: PoseEstimate }
  | { kind: 'failed'; id: number | null; message: string };
