import { join } from 'node:path';
import { MemoryLocker, type Locker } from '@tus/server';
import { openDatabase, type DatabaseHandle } from '@kinetrace/db';
import type { ServerConfig } from './config.ts';
import { createJobQueue, type JobQueue } from './jobs/job-queue.ts';
import type { Mailer } from './mail/mailer.ts';
import { createOutboxMailer } from './mail/outbox-mailer.ts';
import { createSmtpMailer } from './mail/smtp-mailer.ts';
import { createUploadLocksRepository } from './repositories/upload-locks-repository.ts';
import type { FileStore } from './storage/file-store.ts';
import { createLocalFileStore } from './storage/local-file-store.ts';
import { openS3Storage } from './storage/s3-storage.ts';
import { createSharedUploadLocker } from './storage/shared-upload-locker.ts';
import { createLocalUploadStaging, type UploadStaging } from './storage/upload-staging.ts';

/** The I/O backends, each picked once from configuration: embedded defaults or their scaled-out twins. */
export interface Backends {
  database: DatabaseHandle;
  mailer: Mailer;
  files: FileStore;
  /** Uploads on their way in: beside the files (the data folder, or the bucket). */
  staging: UploadStaging;
  /**
   * Who may write an upload: tus's locks in memory for the embedded database, which one process alone opens
   * (data-dir-lock.ts); in PostgreSQL, which several server processes share, so that a phone's retry reaching
   * another server waits for the first to stop writing.
   */
  uploadLocker: Locker;
  queue: JobQueue;
  close(): Promise<void>;
}

/** Local disk under DATA_DIR, or the bucket S3_BUCKET names (checked reachable before anything else opens). */
async function openStorage(config: ServerConfig): Promise<Pick<Backends, 'files' | 'staging'> & { close(): void }> {
  const store = config.objectStore;
  if (!store)
    return {
      files: createLocalFileStore(join(config.dataDir, 'files')),
      staging: createLocalUploadStaging(config.dataDir),
      close: () => undefined,
    };
  return openS3Storage(store, config.dataDir);
}

export async function openBackends(config: ServerConfig, log: (line: string) => void): Promise<Backends> {
  const storage = await openStorage(config);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onConnectionError: (error) => log(`Database connection lost: ${error.message}`),
  });
  const mailer = config.smtpUrl
    ? createSmtpMailer(config.smtpUrl, config.mailFrom)
    : createOutboxMailer(join(config.dataDir, 'outbox'), config.mailFrom, log);
  const queue = await createJobQueue(database, (error) => log(`Job queue error: ${error.message}`));
  return {
    database,
    mailer,
    files: storage.files,
    staging: storage.staging,
    uploadLocker:
      database.kind === 'postgres'
        ? createSharedUploadLocker(createUploadLocksRepository(database.db))
        : new MemoryLocker(),
    queue,
    async close() {
      await queue.stop();
      await mailer.close();
      await database.close();
      storage.close();
    },
  };
}
