import PgBoss from 'pg-boss';
import type { DatabaseHandle } from '@kinetrace/db';
import { jobKinds, type JobAttempt, type JobHandlers, type JobKind, type JobPayload } from './job-kinds.ts';

/** How one job is queued; the defaults suit short jobs (archives, purges). */
export interface SendOptions {
  /** Higher runs first among waiting jobs of the same kind. */
  priority?: number;
  retryLimit?: number;
  /** Seconds before the first retry; with `retryBackoff`, doubling each time (with jitter). */
  retryDelayS?: number;
  retryBackoff?: boolean;
  /** An active job older than this is failed by the queue's maintenance (and retried while it may be). */
  expireInSeconds?: number;
}

/** A job some process has taken and not finished. */
export interface ActiveJob<K extends JobKind> extends JobAttempt {
  payload: JobPayload<K>;
}

/** Named, typed background jobs; pg-boss keeps them in the same database on PGlite and PostgreSQL alike. */
export interface JobQueue {
  send<K extends JobKind>(kind: K, payload: JobPayload<K>, options?: SendOptions): Promise<void>;
  /**
   * Runs jobs in this process. Every kind must be either handled here or declared as taken by
   * workers elsewhere, never both and never neither, so a kind cannot be forgotten.
   */
  work(handlers: JobHandlers, handledElsewhere: readonly JobKind[]): Promise<void>;
  /** Runs `kind` on a cron schedule (UTC). */
  schedule<K extends JobKind>(kind: K, cron: string, payload: JobPayload<K>): Promise<void>;
  /** Jobs of `kind` taken by some process and not finished (a crashed process leaves them so). */
  active<K extends JobKind>(kind: K): Promise<ActiveJob<K>[]>;
  /**
   * Takes the next waiting job of `kind` (highest priority, then oldest) for a process that is not a handler
   * here, a remote worker: it is active until `complete` or `fail`.
   */
  take<K extends JobKind>(kind: K): Promise<ActiveJob<K> | null>;
  complete(kind: JobKind, id: string): Promise<void>;
  /** Fails an active job (its process stopped, or it failed elsewhere): it is retried while retries remain. */
  fail(kind: JobKind, id: string, reason: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How often this process's worker of each kind looks for jobs it was not told of. A job this process sends
 * wakes its worker at once (pg-boss's notifyWorker), so a poll finds only jobs other servers sent, retries
 * come due and scheduled runs: every 0.5 s, the idle server's polls of its four kinds were most of its
 * 27 ms of CPU a second (issue 23, remote-workers bench). The scheduled purges need no finer cadence.
 */
const POLLING_INTERVAL_S: Record<JobKind, number> = {
  'analyse-trial': 2,
  'archive-download': 2,
  'process-trial': 2,
  'clean-uploads': 30,
  'purge-trash': 30,
};

/** pg-boss refuses a job whose expiration is 24 hours or more. */
const MAX_EXPIRE_IN_S = 24 * 3600 - 1;

export async function createJobQueue(database: DatabaseHandle, onError: (error: Error) => void): Promise<JobQueue> {
  let stopped = false;
  const boss = new PgBoss({
    // A handler still running when the queue stopped (an engine run cannot be cut short) ends later:
    // pg-boss then records its end (complete or fail) without awaiting it. The database may be closed
    // by then, so nothing is written and the answer is that of a completion touching no job.
    db: {
      executeSql: (text, values) =>
        stopped ? Promise.resolve({ rows: [{ count: 0 }] }) : database.executeSql(text, values),
    },
    schema: 'pgboss',
    // Cron schedules are checked every 30 s: the hourly purge needs no finer cadence.
    cronMonitorIntervalSeconds: 30,
  });
  boss.on('error', onError);
  await boss.start();
  for (const kind of Object.keys(jobKinds)) await boss.createQueue(kind);
  /** This process's pg-boss worker of each kind it handles. */
  const localWorkers = new Map<JobKind, string>();

  return {
    async send(kind, payload, options = {}) {
      await boss.send(kind, jobKinds[kind].parse(payload), {
        priority: options.priority ?? 0,
        retryLimit: options.retryLimit ?? 2,
        retryDelay: options.retryDelayS ?? 5,
        retryBackoff: options.retryBackoff ?? false,
        expireInSeconds: Math.min(options.expireInSeconds ?? 6 * 3600, MAX_EXPIRE_IN_S),
      });
      const worker = localWorkers.get(kind);
      if (worker) boss.notifyWorker(worker);
    },
    async work(handlers, handledElsewhere) {
      for (const kind of Object.keys(jobKinds) as JobKind[]) {
        const handler = handlers[kind] as ((payload: unknown, attempt: JobAttempt) => Promise<void>) | undefined;
        if (handler && handledElsewhere.includes(kind))
          throw new Error(`Job kind "${kind}" has a handler here and elsewhere`);
        if (!handler && !handledElsewhere.includes(kind)) throw new Error(`No handler for job kind "${kind}"`);
        if (!handler) continue;
        const worker = await boss.work(
          kind,
          { batchSize: 1, pollingIntervalSeconds: POLLING_INTERVAL_S[kind], includeMetadata: true },
          async ([job]) => {
            await handler(jobKinds[kind].parse(job.data), {
              id: job.id,
              retryCount: job.retryCount,
              retryLimit: job.retryLimit,
            });
          },
        );
        localWorkers.set(kind, worker);
      }
    },
    async schedule(kind, cron, payload) {
      await boss.schedule(kind, cron, jobKinds[kind].parse(payload), { tz: 'UTC' });
    },
    async active(kind) {
      const { rows } = await database.executeSql(
        `select id, data, retry_count, retry_limit from pgboss.job where name = $1 and state = 'active'`,
        [kind],
      );
      return rows.map((row) => ({
        id: String(row.id),
        payload: jobKinds[kind].parse(row.data) as JobPayload<typeof kind>,
        retryCount: Number(row.retry_count),
        retryLimit: Number(row.retry_limit),
      }));
    },
    async take(kind) {
      const [job] = await boss.fetch(kind, { batchSize: 1, includeMetadata: true });
      return job
        ? {
            id: job.id,
            payload: jobKinds[kind].parse(job.data) as JobPayload<typeof kind>,
            retryCount: job.retryCount,
            retryLimit: job.retryLimit,
          }
        : null;
    },
    async complete(kind, id) {
      await boss.complete(kind, id);
    },
    async fail(kind, id, reason) {
      await boss.fail(kind, id, { message: reason });
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      stopped = true;
    },
  };
}
