import PgBoss from 'pg-boss';
import type { DatabaseHandle } from '@kinetrace/db';
import { jobKinds, type JobHandlers, type JobKind, type JobPayload } from './job-kinds.ts';


/** Named, typed background jobs; pg-boss keeps them in the same database on PGlite and PostgreSQL alike. */
export interface JobQueue {
  send<K extends JobKind>(kind: K, payload: JobPayload<K>): Promise<void>;
  /**
   * Runs jobs in this process. Every kind must be either handled here or declared as taken by
   * workers elsewhere, never both and never neither, so a kind cannot be forgotten.
   */
  work(handlers: JobHandlers, handledElsewhere: readonly JobKind[]): Promise<void>;
  /** Runs `kind` on a cron schedule (UTC). */
  schedule<K extends JobKind>(kind: K, cron: string, payload: JobPayload<K>): Promise<void>;
  stop(): Promise<void>;
}

export async function createJobQueue(database: DatabaseHandle, onError: (error: Error) => void): Promise<JobQueue> {
  const boss = new PgBoss({
    db: { executeSql: (text, values) => database.executeSql(text, values) },
    schema: 'pgboss',
    // Cron schedules are checked every 30 s: the hourly purge needs no finer cadence.
    cronMonitorIntervalSeconds: 30,
  });
  boss.on('error', onError);
  await boss.start();
  for (const kind of Object.keys(jobKinds)) await boss.createQueue(kind);

  return {
    async send(kind, payload) {
      await boss.send(kind, jobKinds[kind].parse(payload), { retryLimit: 2, retryDelay: 5, expireInSeconds: 6 * 3600 });
    },
    async work(handlers, handledElsewhere) {
      for (const kind of Object.keys(jobKinds) as JobKind[]) {
        const handler = handlers[kind] as ((payload: unknown) => Promise<void>) | undefined;
        if (handler && handledElsewhere.includes(kind)) throw new Error(`Job kind "${kind}" has a handler here and elsewhere`);
        if (!handler && !handledElsewhere.includes(kind)) throw new Error(`No handler for job kind "${kind}"`);
        if (!handler) continue;
        await boss.work(kind, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async ([job]) => {
          await handler(jobKinds[kind].parse(job.data));
        });
      }
    },
    async schedule(kind, cron, payload) {
      await boss.schedule(kind, cron, jobKinds[kind].parse(payload), { tz: 'UTC' });
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
