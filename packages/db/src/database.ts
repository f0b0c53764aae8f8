import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres';
import { migrate as migratePostgres } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema.ts';

export type Schema = typeof schema;
/** A Drizzle database over either backend: services and repositories see only this. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** Raw SQL, for libraries that bring their own queries (the pg-boss job queue). */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  /**
   * LISTEN on a channel: `onNotify` runs with each payload once the notifying transaction commits, before
   * the promise of the statement that committed it settles. Only the embedded database has it: one process
   * owns it and every write passes through it, so a cache this invalidates is never stale. PostgreSQL,
   * shared by several processes, delivers notifications later than the writer's own answer, so nothing
   * may be cached on it this way.
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when absent, an embedded PGlite database under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  /** Told when PostgreSQL drops an idle pooled connection (a restart, an administrator): the pool reconnects. */
  onConnectionError?: (error: Error) => void;
}

export const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url));

/** Where the embedded database of a data folder lives. */
export const pgliteDirectoryOf = (dataDir: string) => join(dataDir, 'pglite');

/** Opens the configured database and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.onConnectionError ?? (() => undefined))
    : openPglite(pgliteDirectoryOf(options.dataDir));
}

/**
 * PGlite's own start parameters (its `defaultStartParams`, @electric-sql/pglite 0.5), with a smaller
 * buffer cache: PostgreSQL's 128 MB default is sized for a database server, and in PGlite it lives in
 * the server process's WebAssembly memory. 16 MB holds this app's working set (thousands of sessions'
 * rows and indexes) several times over.
 */
const PGLITE_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
  '-c',
  'shared_buffers=16MB',
  '-c',
  'wal_buffers=1MB',
];

/**
 * Creating a PGlite database runs initdb in a second WebAssembly instance, whose memory (about
 * 450 MB) would stay with the server. It runs in a short-lived child process instead, and the
 * server opens the new database with only its own instance's memory.
 */
function createPgliteDatabase(directory: string): Promise<void> {
  const source = `
    const [entry, directory, startParams] = process.argv.slice(1);
    require(entry).PGlite.create(directory, { startParams: JSON.parse(startParams) }).then((db) => db.close());
  `;
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', source, entry, directory, JSON.stringify(PGLITE_START_PARAMS)],
      (error, _stdout, stderr) =>
        error
          ? reject(new Error(`Could not create the database in ${directory}: ${stderr.trim() || error.message}`))
          : resolve(),
    );
  });
}

/**
 * Runs `start` with V8 compiling new WebAssembly by its baseline compiler (Liftoff) only. PostgreSQL's
 * code is branchy and rarely hot in one place: measured on the session-list query, PGlite compiled this
 * way answered as fast or faster (4.9 s against 5.2 s for 15 000 queries) and the server held about
 * 45 MB less, the optimising compiler's code and its compile threads' memory. The flags are restored
 * afterwards, so the pose model's WebAssembly, compiled later, is optimised as before; code compiled
 * meanwhile keeps the tier it was given.
 */
async function compiledByBaselineCompiler<T>(start: () => Promise<T>): Promise<T> {
  v8.setFlagsFromString('--liftoff-only');
  try {
    return await start();
  } finally {
    v8.setFlagsFromString('--no-liftoff-only');
    v8.setFlagsFromString('--wasm-tier-up');
  }
}

async function openPglite(directory: string): Promise<DatabaseHandle> {
  mkdirSync(directory, { recursive: true });
  // Loaded only for the embedded database: the module alone holds about 40 MB.
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  const options = { startParams: PGLITE_START_PARAMS };
  if (!existsSync(join(directory, 'PG_VERSION'))) await createPgliteDatabase(directory);
  const client = await compiledByBaselineCompiler(async () => {
    const opened = new PGlite(directory, options);
    await opened.waitReady;
    return opened;
  });
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder });
  // PGlite runs one query at a time; chaining keeps callers that don't await in order.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    db: db as unknown as Database,
    kind: 'pglite',
    executeSql(text, values) {
      // Without parameters a text may hold several statements (pg-boss's migrations): exec runs them all.
      const run = queue.then(async () =>
        values && values.length > 0
          ? (await client.query<Record<string, unknown>>(text, values)).rows
          : (((await client.exec(text)).at(-1)?.rows ?? []) as Record<string, unknown>[]),
      );
      queue = run.catch(() => undefined);
      return run.then((rows) => ({ rows }));
    },
    // PGlite calls listeners from the protocol parser of the statement that committed (in a microtask queued
    // before that statement's promise resolves), so the listener has run when the writer learns of its write.
    async listen(channel, onNotify) {
      await client.listen(channel, onNotify);
    },
    close: () => client.close(),
  };
}

async function openPostgres(
  connectionString: string,
  onConnectionError: (error: Error) => void,
): Promise<DatabaseHandle> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  // Without a listener, an idle client's error would crash the process (node-postgres' Pool docs).
  pool.on('error', onConnectionError);
  const db = drizzlePostgres(pool, { schema });
  await migratePostgres(db, { migrationsFolder });
  return {
    db: db as unknown as Database,
    kind: 'postgres',
    async executeSql(text, values) {
      const result = await pool.query(text, values);
      return { rows: result.rows };
    },
    close: () => pool.end(),
  };
}
