import { Worker } from 'node:worker_threads';
import type { AnalysisKind, AnalysisResult } from '@kinetrace/contracts';
import type { loadAnalysisInput } from '@kinetrace/mocap/analyses/index';

/** What an analysis thread is given: the function, the trial's files as text and the subject's measures. */
export interface AnalysisThreadRequest {
  kind: AnalysisKind;
  files: Parameters<typeof loadAnalysisInput>[0];
}

/** How it ends: the result, a message the user can act on (the engine's AnalysisError), or an internal error. */
export type AnalysisThreadReply =
  | { status: 'done'; result: AnalysisResult }
  | { status: 'user-error'; message: string }
  | { status: 'internal-error'; detail: string };

/** An internal failure of the thread (its error, a crash, the time limit): logged, never shown to users. */
export class AnalysisThreadError extends Error {
  override name = 'AnalysisThreadError';
}

/**
 * A worker thread that runs analyses one after the other, off the server's event loop. Started on
 * the first analysis and kept while analyses come (starting one and loading the engine costs about
 * 1 s, several times an analysis: `npx tsx scripts/bench.ts analysis.bench`); stopped after
 * `idleMs` without one, when an analysis passes its time limit, or when the thread fails.
 */
export class AnalysisThread {
  private worker: Worker | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly idleMs: number) {}

  /** Runs one analysis once those asked before have ended; an internal error rejects with AnalysisThreadError. */
  run(
    request: AnalysisThreadRequest,
    timeLimitMs: number,
  ): Promise<Exclude<AnalysisThreadReply, { status: 'internal-error' }>> {
    const result = this.turn.then(() => this.runNow(request, timeLimitMs));
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** Stops the thread (an analysis running on it fails). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private async runNow(
    request: AnalysisThreadRequest,
    timeLimitMs: number,
  ): Promise<Exclude<AnalysisThreadReply, { status: 'internal-error' }>> {
    clearTimeout(this.idleTimer);
    const worker = (this.worker ??= new Worker(new URL('./analysis-worker.mjs', import.meta.url)));
    let reply: AnalysisThreadReply;
    try {
      reply = await new Promise<AnalysisThreadReply>((resolve, reject) => {
        const settle = (end: () => void) => {
          clearTimeout(timer);
          worker.off('message', onMessage).off('error', onError).off('exit', onExit);
          end();
        };
        const onMessage = (message: AnalysisThreadReply) => settle(() => resolve(message));
        const onError = (error: Error) => settle(() => reject(error));
        const onExit = (code: number) =>
          settle(() => reject(new AnalysisThreadError(`the analysis thread stopped (exit code ${code})`)));
        const timer = setTimeout(
          () => settle(() => reject(new AnalysisThreadError(`the analysis ran longer than ${timeLimitMs / 1000} s`))),
          timeLimitMs,
        );
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
        worker.postMessage(request);
      });
    } catch (error) {
      await this.close();
      throw error;
    }
    this.idleTimer = setTimeout(() => void this.close(), this.idleMs).unref();
    if (reply.status === 'internal-error') throw new AnalysisThreadError(reply.detail);
    return reply;
  }
}
