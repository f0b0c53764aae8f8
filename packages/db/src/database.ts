import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
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
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when absent, an embedded PGlite database under `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
  /** Told when PostgreSQL drops an idle pooled connection (a restart, an administrator): the pool reconnects. */
  onConnectionError?: (error: Error) => void;
}

const migrationsFolder = fileURLToPath(new URL('../migrations', import.meta.url));

/** Opens the configured database and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.onConnectionError ?? (() => undefined))
    : openPglite(join(options.dataDir, 'pglite'));
}

async function openPglite(directory: string): Promise<DatabaseHandle> {
  mkdirSync(directory, { recursive: true });
  const client = new PGlite(directory);
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
          : ((await client.exec(text)).at(-1)?.rows ?? []) as Record<string, unknown>[],
      );
      queue = run.catch(() => undefined);
      return run.then((rows) => ({ rows }));
    },
    close: () => client.close(),
  };
}

async function openPostgres(connectionString: string, onConnectionError: (error: Error) => void): Promise<DatabaseHandle> {
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
