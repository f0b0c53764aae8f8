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
 * Runs one analysis in a worker thread of its own, off the server's event loop; the thread is
 * stopped after `timeLimitMs` (a runaway analysis fails as an internal error) and ends with it.
 */
export async function runAnalysisThread(
  request: AnalysisThreadRequest,
  timeLimitMs: number,
): Promise<Exclude<AnalysisThreadReply, { status: 'internal-error' }>> {
  const worker = new Worker(new URL('./analysis-worker.mjs', import.meta.url), { workerData: request });
  let timer: NodeJS.Timeout | undefined;
  try {
    const reply = await new Promise<AnalysisThreadReply>((resolve, reject) => {
      timer = setTimeout(
        () => reject(new AnalysisThreadError(`the analysis ran longer than ${timeLimitMs / 1000} s`)),
        timeLimitMs,
      );
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new AnalysisThreadError(`the analysis thread stopped (exit code ${code})`)));
    });
    if (reply.status === 'internal-error') throw new AnalysisThreadError(reply.detail);
    return reply;
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
