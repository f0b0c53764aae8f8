import { join } from 'node:path';
import { openDatabase, type DatabaseHandle } from '@kinetrace/db';
import type { ServerConfig } from './config.ts';
import { createJobQueue, type JobQueue } from './jobs/job-queue.ts';
import type { Mailer } from './mail/mailer.ts';
import { createOutboxMailer } from './mail/outbox-mailer.ts';
import { createSmtpMailer } from './mail/smtp-mailer.ts';
import type { FileStore } from './storage/file-store.ts';
import { createLocalFileStore } from './storage/local-file-store.ts';

/** The I/O backends, each picked once from configuration: embedded defaults or their scaled-out twins. */
export interface Backends {
  database: DatabaseHandle;
  mailer: Mailer;
  files: FileStore;
  queue: JobQueue;
  close(): Promise<void>;
}

export async function openBackends(config: ServerConfig, log: (line: string) => void): Promise<Backends> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onConnectionError: (error) => log(`Database connection lost: ${error.message}`),
  });
  const mailer = config.smtpUrl
    ? createSmtpMailer(config.smtpUrl, config.mailFrom)
    : createOutboxMailer(join(config.dataDir, 'outbox'), config.mailFrom, log);
  const files = createLocalFileStore(join(config.dataDir, 'files'));
  const queue = await createJobQueue(database, (error) => log(`Job queue error: ${error.message}`));
  return {
    database,
    mailer,
    files,
    queue,
    async close() {
      await queue.stop();
      await mailer.close();
      await database.close();
    },
  };
}
