import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { RESULT_TAGS, workerMessages, type Session, type Subject, type Trial } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { describeWithData } from '../../../packages/mocap/test/reference-data.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_CAMERAS,
  DEMO_SOURCES,
  DEMO_SUBJECT,
  importTrial,
  makeBoardVideos,
  type TrialVideos,
} from '../../server/test/support/processing-fixtures.ts';
import {
  authHeader,
  postgresAdminUrl,
  postgresAvailable,
  startTestApp,
  verifiedUser,
  type TestApp,
} from '../../server/test/support/test-app.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * Short, so that a killed worker's lease expires within the test; not shorter, as a busy machine can hold a
 * worker's event loop (the engine's OpenCV calls) for seconds between its heartbeats.
 */
const LEASE_TIMEOUT_S = 8;
const TRIAL_TIMEOUT_MS = 240_000;

/** `npx kinetrace-worker` as an operator starts it: a process of its own, its output kept. */
function startWorker(server: string, token: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['apps/worker/bin/kinetrace-worker.mjs', '--server', server, '--token', token, '--pose-threads', '1'],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => chunks.join('') };
}

/** `npm run worker-token -- …` on the server's configuration (its DATABASE_URL). */
function workerToken(databaseUrl: string, ...argv: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'apps/server/src/processing/worker-token-cli.ts', ...argv],
    { cwd: repoRoot, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const chunks: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output: chunks.join('') })));
}

const postgres = await postgresAvailable();
if (!postgres && process.env.CI) throw new Error('PostgreSQL is required on CI');

/**
 * Issue 23: real worker processes (`kinetrace-worker`) against a WORKERS=remote server on PostgreSQL, which
 * runs no pipeline itself. The demo's calibration (its board rendered from the four demo cameras) goes through
 * the same runTrial as in-process, over the worker API; a worker killed mid-trial loses its lease, and another
 * worker finishes the trial once.
 */
describeWithData('remote workers', DEMO_SOURCES, () => {
  let test: TestApp;
  let server: string;
  let databaseUrl: string;
  let owner: { token: string };
  let videoDir: string;
  let calibration: TrialVideos;
  const workers: ReturnType<typeof startWorker>[] = [];

  const api = async <T>(path: string) =>
    (await test.call({ method: 'GET', url: `/api${path}`, headers: authHeader(owner.token) })).json() as T;
  async function newSessionWithCalibration(): Promise<string> {
    const subject = (
      await test.call({
        method: 'POST',
        url: '/api/subjects/',
        headers: authHeader(owner.token),
        payload: DEMO_SUBJECT,
      })
    ).json() as Subject;
    const session = (await api<Session[]>('/sessions/new/'))[0];
    await api(`/sessions/${session.id}/set_subject/?subject_id=${subject.id}`);
    await api(`/sessions/${session.id}/set_metadata/?${DEMO_BOARD_QUERY}`);
    return (await importTrial(test, owner.token, session.id, 'calibration', calibration)).id;
  }
  async function waitFor(trialId: string, until: (trial: Trial) => boolean): Promise<Trial> {
    const deadline = Date.now() + TRIAL_TIMEOUT_MS;
    for (;;) {
      const trial = await api<Trial>(`/trials/${trialId}/`);
      if (until(trial)) return trial;
      if (Date.now() > deadline)
        throw new Error(`trial ${trialId} still ${trial.status} ${JSON.stringify(trial.meta)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const ended = (trial: Trial) => trial.status === 'done' || trial.status === 'error';
  async function newToken(name: string): Promise<string> {
    const made = await workerToken(databaseUrl, 'create', '--name', name);
    expect(made.code, made.output).toBe(0);
    return /^kwt_\S+$/m.exec(made.output)![0];
  }

  beforeAll(async () => {
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-remote-worker-'));
    calibration = await makeBoardVideos(join(videoDir, 'calibration'));
    test = await startTestApp('postgres', {
      LOG_LEVEL: 'warn',
      WORKERS: 'remote',
      WORKER_LEASE_TIMEOUT_S: String(LEASE_TIMEOUT_S),
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const address = test.app.server.address();
    server = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    // The operator's command runs on the server's configuration: the same database.
    const { name } = (await test.backends.database.executeSql('select current_database() as name')).rows[0];
    databaseUrl = Object.assign(new URL(postgresAdminUrl), { pathname: `/${String(name)}` }).toString();
    owner = await verifiedUser(test);
  }, 180_000);
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    await test?.close();
    if (videoDir) rmSync(videoDir, { recursive: true, force: true });
  });

  it.skipIf(!postgres)(
    'a worker processes the demo calibration to done; the server ran no pipeline; SIGTERM stops the worker',
    { timeout: TRIAL_TIMEOUT_MS },
    async () => {
      const worker = startWorker(server, await newToken('gpu-box-1'));
      workers.push(worker);
      const trialId = await newSessionWithCalibration();
      const done = await waitFor(trialId, ended);
      expect(done.status, `${String(done.meta.error_msg)}\n${worker.output()}`).toBe('done');
      const tags = done.results.map((result) => result.tag);
      expect(tags.filter((tag) => tag === RESULT_TAGS.cameraParameters)).toHaveLength(DEMO_CAMERAS.length);
      expect(tags.filter((tag) => tag === RESULT_TAGS.calibrationImage)).toHaveLength(DEMO_CAMERAS.length);
      expect(await api(`/sessions/${done.session}/get_n_calibrated_cameras/`)).toEqual({ data: DEMO_CAMERAS.length });
      // The worker ran it; the server has no work folder (its in-process runner never started).
      expect(worker.output()).toContain(`Trial ${trialId} (calibration): leased`);
      expect(existsSync(join(test.dataDir, 'work'))).toBe(false);

      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    },
  );

  it.skipIf(!postgres)(
    'a worker killed mid-trial loses its lease; another worker finishes the trial, done once',
    { timeout: TRIAL_TIMEOUT_MS },
    async () => {
      const first = startWorker(server, await newToken('gpu-box-2'));
      workers.push(first);
      const trialId = await newSessionWithCalibration();
      const leased = await waitFor(trialId, (trial) => typeof trial.meta.processing_worker === 'number');
      first.child.kill('SIGKILL');
      await first.exited;
      expect(leased.status).toBe('processing');

      const second = startWorker(server, await newToken('gpu-box-3'));
      workers.push(second);
      const done = await waitFor(trialId, ended);
      expect(done.status, `${String(done.meta.error_msg)}\n${second.output()}`).toBe('done');
      expect(second.output()).toContain(`Trial ${trialId} (calibration): leased`);
      // One set of results, from one attempt; the queue's job completed once, after the killed worker's attempt.
      const perCamera = done.results.map((result) => `${result.tag} ${String(result.meta?.camera_name)}`);
      expect(new Set(perCamera).size).toBe(perCamera.length);
      expect(perCamera.filter((key) => key.startsWith(`${RESULT_TAGS.cameraParameters} `))).toHaveLength(
        DEMO_CAMERAS.length,
      );
      const rows = await test.backends.database.db
        .select()
        .from(schema.trialResults)
        .where(eq(schema.trialResults.trialId, trialId));
      expect(new Set(rows.map((row) => row.storageKey!.split('/results/')[1].split('/')[0])).size).toBe(1);
      const jobs = await test.backends.database.executeSql(
        `select state, retry_count from pgboss.job where name = 'process-trial' and data->>'trialId' = $1`,
        [trialId],
      );
      expect(jobs.rows, JSON.stringify(jobs.rows)).toHaveLength(1);
      expect(jobs.rows[0].state).toBe('completed');
      expect(jobs.rows[0].retry_count).toBeGreaterThanOrEqual(1);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    },
  );

  it.skipIf(!postgres)('a worker with a revoked or wrong token stops at once with a clear message', async () => {
    const revoked = await newToken('gpu-box-4');
    const revoking = await workerToken(databaseUrl, 'revoke', '--name', 'gpu-box-4');
    expect(revoking.code, revoking.output).toBe(0);
    for (const token of [revoked, 'kwt_not-a-token']) {
      const worker = startWorker(server, token);
      workers.push(worker);
      expect(await worker.exited).toBe(3);
      expect(worker.output()).toContain(workerMessages.tokenRefused);
    }
    const listed = await workerToken(databaseUrl, 'list');
    expect(listed.output).toMatch(/gpu-box-4\s+revoked/);
    expect(listed.output).toMatch(/gpu-box-3\s+live\s+\S+Z\s+-/);
  });
});
