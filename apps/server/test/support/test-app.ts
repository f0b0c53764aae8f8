import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type AppOptions } from '../../src/app.ts';
import { openBackends, type Backends } from '../../src/backends.ts';
import { loadConfig } from '../../src/config.ts';
import { codeIn, readOutbox } from './outbox.ts';
import { seedEmbeddedDatabase } from './pglite-template.ts';

/** Where the tests find a real PostgreSQL server (CI starts one; trust auth). */
export const postgresAdminUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type Backend = 'pglite' | 'postgres';

export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresAdminUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Backends to run the API tests on: PGlite always; PostgreSQL when reachable (required on CI). */
export async function testBackends(): Promise<Backend[]> {
  if (await postgresAvailable()) return ['pglite', 'postgres'];
  if (process.env.CI) throw new Error(`PostgreSQL is required on CI but ${postgresAdminUrl} is not reachable`);
  console.warn(`PostgreSQL tests skipped: ${postgresAdminUrl} is not reachable`);
  return ['pglite'];
}

export interface TestApp {
  app: FastifyInstance;
  backends: Backends;
  dataDir: string;
  clock: { offsetMs: number };
  logs: string[];
  call(options: InjectOptions): Promise<LightMyRequestResponse>;
  outbox(): { to: string; text: string }[];
  close(): Promise<void>;
}

/**
 * A database of its own for one app: PGlite in the app's data folder (no url), or a fresh PostgreSQL
 * database named `<prefix>_<random>`, dropped by `dropDatabase`.
 */
export async function scratchDatabase(
  backend: Backend,
  prefix: string,
): Promise<{ databaseUrl: string | undefined; dropDatabase(): Promise<void> }> {
  if (backend !== 'postgres') return { databaseUrl: undefined, dropDatabase: async () => {} };
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dropDatabase: async () => {
      const client = new pg.Client({ connectionString: postgresAdminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * A fresh app on a fresh database of the chosen backend, with a movable clock and captured logs; with
 * `runJobs: 'after-listen'` its jobs wait for `app.startJobs()` (a test that queues work first).
 */
export async function startTestApp(
  backend: Backend,
  env: Record<string, string> = {},
  options: Pick<AppOptions, 'runJobs'> = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kinetrace-test-'));
  const { databaseUrl, dropDatabase } = await scratchDatabase(backend, 'kinetrace_test');
  if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
  const test = await openTestApp({ dataDir, databaseUrl }, env, options);
  return {
    ...test,
    async close() {
      await test.close();
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * An app as startTestApp makes it, on a data folder and database that already exist (PostgreSQL at
 * `databaseUrl`, else the folder's embedded one): close() leaves both for the next server.
 */
export async function openTestApp(
  place: { dataDir: string; databaseUrl: string | undefined },
  env: Record<string, string> = {},
  options: Pick<AppOptions, 'runJobs'> = {},
): Promise<TestApp> {
  const { dataDir, databaseUrl } = place;
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'info',
    PUBLIC_URL: 'http://kinetrace.test',
    ...env,
  });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const backends = await openBackends(config, (line) => logs.push(line));
  const clock = { offsetMs: 0 };
  const app = await buildApp(config, backends, {
    now: () => new Date(Date.now() + clock.offsetMs),
    logStream,
    ...options,
  });
  await app.ready();
  return {
    app,
    backends,
    dataDir,
    clock,
    logs,
    call: (options) => app.inject(options),
    outbox: () => readOutbox(join(dataDir, 'outbox')),
    async close() {
      await app.close();
      await backends.close();
    },
  };
}

let userCounter = 0;
/**
 * A media URL (absolute on PUBLIC_URL, as OpenCap's client needs) on the server a test listens on:
 * its path and signed query under `baseUrl`.
 */
export function onTestServer(baseUrl: string, mediaUrl: string): string {
  const { pathname, search } = new URL(mediaUrl);
  return `${baseUrl}${pathname}${search}`;
}

export const PASSWORD = 'correct horse battery staple';

export function newUserPayload(overrides: Record<string, unknown> = {}) {
  userCounter++;
  const username = `researcher_${userCounter}_${randomBytes(3).toString('hex')}`;
  return {
    username,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: `${username}@lab.example.org`,
    country: 'United States',
    institution: 'Gait Lab',
    profession: 'Researcher',
    reason: 'Gait analysis',
    website: '',
    password: PASSWORD,
    newsletter: true,
    ...overrides,
  };
}

export const authHeader = (token: string) => ({ authorization: `Token ${token}` });

/** What verifiedUser needs of a server: an app in this process (TestApp), or a server process over HTTP (npm-start.ts). */
export interface AccountsServer {
  call(options: {
    method: 'POST';
    url: string;
    payload: Record<string, unknown>;
    headers?: Record<string, string>;
  }): Promise<{ statusCode: number; body: string; json(): unknown }>;
  outbox(): { to: string; text: string }[];
}

/** Registers a user, logs in and enters the e-mailed code: returns a verified token. */
export async function verifiedUser(test: AccountsServer, overrides: Record<string, unknown> = {}) {
  const payload = newUserPayload(overrides);
  const registered = await test.call({ method: 'POST', url: '/api/register/', payload });
  if (registered.statusCode !== 201) throw new Error(`register failed: ${registered.body}`);
  const login = await test.call({
    method: 'POST',
    url: '/api/login/',
    payload: { username: payload.username, password: PASSWORD },
  });
  const { token } = login.json() as { token: string };
  const mail = test
    .outbox()
    .filter((message) => message.to.includes(payload.email))
    .at(-1);
  if (!mail) throw new Error('no code e-mail');
  const verified = await test.call({
    method: 'POST',
    url: '/api/verify/',
    headers: authHeader(token),
    payload: { otp_token: codeIn(mail.text) },
  });
  if (verified.statusCode !== 200) throw new Error(`verify failed: ${verified.body}`);
  return { ...payload, token, userId: (login.json() as { user_id: number }).user_id };
}
