import type { JobKind } from './job-kinds.ts';
import type { ActiveJob, JobQueue } from './job-queue.ts';

/** A running attempt shows it is alive at least this often; one silent for DEFAULT_STALE_AFTER_MS has lost its process. */
export const HEARTBEAT_MS = 10_000;
export const DEFAULT_STALE_AFTER_MS = 60_000;

export interface InterruptedJobs<K extends JobKind, T> {
  kind: K;
  /** pg-boss ids of the attempts running in this process. */
  running: ReadonlySet<string>;
  /** PGlite: one process owns the database, so a job active at start-up has lost its process. */
  singleProcess: boolean;
  /** An attempt silent this long has lost its process (default DEFAULT_STALE_AFTER_MS); looked for twice as often. */
  staleAfterMs?: number;
  /** What the job works on and when its attempt last showed it was alive; undefined when it is gone. */
  find(job: ActiveJob<K>): Promise<{ item: T; aliveAt: Date } | undefined>;
  /** Runs before the job is failed for the queue to retry: `lastAttempt` when no retry remains. */
  interrupted(item: T | undefined, job: ActiveJob<K>, lastAttempt: boolean): Promise<void>;
  log: { info(object: object, message: string): void; error(object: object, message: string): void };
}

/**
 * Attempts whose process stopped (a crash, a kill, a restart) stay active in the queue: each active
 * job of the kind that is not running here and is silent (or any, at start-up on a single-process
 * database) is handed to `interrupted`, then failed, so that the queue retries it while it may.
 * `start` does it now and every half of the stale time (30 s), with `also` after each pass, until `stop`.
 */
export function interruptedJobRecovery<K extends JobKind, T>(
  queue: JobQueue,
  jobs: InterruptedJobs<K, T>,
  also: () => Promise<void> = async () => undefined,
) {
  let timer: NodeJS.Timeout | undefined;
  const staleAfterMs = jobs.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;

  async function recover(atStartup: boolean): Promise<void> {
    for (const job of await queue.active(jobs.kind)) {
      if (jobs.running.has(job.id)) continue;
      const found = await jobs.find(job);
      // Wall-clock time, as the heartbeats write it.
      const silentMs = found ? Date.now() - found.aliveAt.getTime() : Infinity;
      if (!(atStartup && jobs.singleProcess) && silentMs < staleAfterMs) continue;
      await jobs.interrupted(found?.item, job, job.retryCount >= job.retryLimit);
      await queue.fail(jobs.kind, job.id, 'interrupted: its process stopped');
      jobs.log.info({ kind: jobs.kind, payload: job.payload, job: job.id }, 'interrupted job recovered');
    }
    await also();
  }

  return {
    recover,
    async start(): Promise<void> {
      await recover(true);
      timer = setInterval(() => {
        recover(false).catch((error: unknown) =>
          jobs.log.error({ err: error, kind: jobs.kind }, 'job recovery failed'),
        );
      }, staleAfterMs / 2);
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}
