/**
 * Load and memory of the server as `npm start` runs it (issue 13 "Load"): a real server process on
 * PGlite (embedded defaults) and on PostgreSQL, a user with 100 sessions, then 50 concurrent clients
 * on POST /api/sessions/valid/ (autocannon). Prints requests/s, p50/p99 latency, errors, the idle
 * server's resident memory (settled, as a server left alone holds it) and its growth after the load.
 * Goals: p99 < 50 ms with no error on both databases; idle PGlite server < 300 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { npmStartNodeArgs } from '../test/support/npm-start.ts';
import { codeIn, readOutbox } from '../test/support/outbox.ts';
import {
  newUserPayload,
  PASSWORD,
  postgresAdminUrl,
  postgresAvailable,
  scratchDatabase,
  type Backend,
} from '../test/support/test-app.ts';

const SESSIONS = 100;
const CLIENTS = 50;
const DURATION_S = 10;
const P99_GOAL_MS = 50;
const IDLE_RSS_GOAL_MB = 300;
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Resident memory of a process in MB, from /proc (the child's own, not this bench's). */
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * The server's memory once it has settled: V8 gives memory back in steps about 10 s apart after the
 * work stops (its memory reducer), so this samples every second until the lowest value has held for
 * 20 s (at most 120 s) and answers that lowest value.
 */
async function settledRssMb(pid: number): Promise<number> {
  let lowest = rssMb(pid);
  let heldS = 0;
  for (let second = 0; second < 120 && heldS < 20; second++) {
    await sleep(1000);
    const now = rssMb(pid);
    if (now < lowest - 1) {
      lowest = now;
      heldS = 0;
    } else heldS++;
  }
  return lowest;
}

async function startServer(
  backend: Backend,
): Promise<{ url: string; dataDir: string; child: ChildProcess; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kinetrace-bench-'));
  const { databaseUrl, dropDatabase } = await scratchDatabase(backend, 'kinetrace_bench');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const child = spawn(process.execPath, npmStartNodeArgs(), {
    cwd: root,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the ${backend} server exited with ${child.exitCode}`);
    if (attempt > 600) throw new Error(`the ${backend} server did not start`);
    if (
      await fetch(`${url}/api/capture/time/`).then(
        (response) => response.ok,
        () => false,
      )
    )
      break;
    await sleep(100);
  }
  return {
    url,
    dataDir,
    child,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function api(url: string, method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${url}/api${path}`, {
    method,
    headers: {
      ...(token && { authorization: `Token ${token}` }),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, unknown>>;
}

/** A verified user with SESSIONS sessions, through the API as a person would make them. */
async function userWithSessions(url: string, dataDir: string): Promise<string> {
  const payload = newUserPayload();
  await api(url, 'POST', '/register/', undefined, payload);
  const { token } = (await api(url, 'POST', '/login/', undefined, {
    username: payload.username,
    password: PASSWORD,
  })) as { token: string };
  const mail = readOutbox(join(dataDir, 'outbox'))
    .filter((message) => message.to.includes(payload.email))
    .at(-1);
  if (!mail) throw new Error('no code e-mail');
  await api(url, 'POST', '/verify/', token, { otp_token: codeIn(mail.text) });
  for (let index = 0; index < SESSIONS; index++) await api(url, 'GET', '/sessions/new/', token);
  return token;
}

async function measure(backend: Backend): Promise<boolean> {
  const server = await startServer(backend);
  try {
    const token = await userWithSessions(server.url, server.dataDir);
    const listed = await api(server.url, 'POST', '/sessions/valid/', token, {});
    if (listed.total !== SESSIONS) throw new Error(`expected ${SESSIONS} sessions, listed ${String(listed.total)}`);
    const idleMb = await settledRssMb(server.child.pid!);
    const result = await autocannon({
      url: `${server.url}/api/sessions/valid/`,
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: '{}',
      connections: CLIENTS,
      duration: DURATION_S,
    });
    const rightAfterMb = rssMb(server.child.pid!);
    const afterMb = await settledRssMb(server.child.pid!);
    const errors = result.errors + result.timeouts + result.non2xx;
    const ok = result.latency.p99 < P99_GOAL_MS && errors === 0 && (backend !== 'pglite' || idleMb < IDLE_RSS_GOAL_MB);
    console.log(
      `${backend}: ${CLIENTS} clients on POST /api/sessions/valid/ (${SESSIONS} sessions, page of ${(listed.sessions as unknown[]).length}), ${DURATION_S} s: ` +
        `${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms (goal < ${P99_GOAL_MS}), ` +
        `${errors} errors of ${result.requests.total}`,
    );
    console.log(
      `${backend}: server RSS idle ${idleMb.toFixed(0)} MB${backend === 'pglite' ? ` (goal < ${IDLE_RSS_GOAL_MB})` : ''}, ` +
        `right after the load ${rightAfterMb.toFixed(0)} MB, settled after it ${afterMb.toFixed(0)} MB (+${(afterMb - idleMb).toFixed(0)} MB)${ok ? '' : '  -- GOAL MISSED'}`,
    );
    return ok;
  } finally {
    await server.stop();
  }
}

console.log(
  `load generator: autocannon in this bench process; the server in a child process of its own (npm start's server bundle), ` +
    `both on this machine's ${availableParallelism()} cores (load average ${loadavg()[0].toFixed(1)} before the bench)`,
);
const backends: Backend[] = (await postgresAvailable()) ? ['pglite', 'postgres'] : ['pglite'];
if (backends.length === 1) console.log(`PostgreSQL skipped: ${postgresAdminUrl} is not reachable`);
let allOk = true;
for (const backend of backends) allOk = (await measure(backend)) && allOk;
process.exitCode = allOk ? 0 : 1;
