import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import {
  RESULT_TAGS,
  workerMessages,
  type Lease,
  type Session,
  type Trial,
  type TrialInputsManifest,
} from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { workerTokenCommand } from '../src/processing/worker-token-cli.ts';
import { createWorkerTokensRepository } from '../src/processing/worker-tokens-repository.ts';
import { importTrial, type TrialVideos } from './support/processing-fixtures.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

/** A lease silent this long expires (short, so that the test sees it expire). */
const LEASE_TIMEOUT_S = 5;

/**
 * Issue 23: the worker API on a WORKERS=remote server. Worker tokens only (a user's token is refused there,
 * a worker's everywhere else), a revoked token refused at once, a worker reaching nothing but its own lease's
 * inputs, results stored once however often uploaded, and a late result from an expired lease refused.
 */
describe('the worker API', () => {
  let test: TestApp;
  let videoDir: string;
  let clip: TrialVideos;
  let owner: { token: string };
  const tokens: Record<string, string> = {};

  const command = (...argv: string[]) =>
    workerTokenCommand(argv, createWorkerTokensRepository(test.backends.database.db), 'http://kinetrace.test');
  const worker = (name: string) => authHeader(tokens[name]);
  const call = (
    name: string,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    payload?: object | string,
    contentType?: string,
  ) =>
    test.call({
      method,
      url: `/api/worker${path}`,
      headers: { ...worker(name), ...(contentType && { 'content-type': contentType }) },
      ...(payload !== undefined && { payload }),
    });
  async function lease(name: string): Promise<Lease> {
    const response = await call(name, 'POST', '/lease/', { wait_s: 5 });
    expect(response.statusCode, response.body).toBe(200);
    const { lease } = response.json() as { lease: Lease | null };
    expect(lease).not.toBeNull();
    return lease!;
  }
  const userCall = (method: 'GET' | 'POST', path: string, headers: Record<string, string> = authHeader(owner.token)) =>
    test.call({ method, url: `/api${path}`, headers });
  /** A calibration trial of a new session, imported: queued for a remote worker. */
  async function queuedCalibration(): Promise<string> {
    const session = ((await userCall('GET', '/sessions/new/')).json() as Session[])[0];
    return (await importTrial(test, owner.token, session.id, 'calibration', clip)).id;
  }

  beforeAll(async () => {
    test = await startTestApp('pglite', {
      LOG_LEVEL: 'warn',
      WORKERS: 'remote',
      WORKER_LEASE_TIMEOUT_S: String(LEASE_TIMEOUT_S),
    });
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-worker-api-'));
    const path = makeTestVideo(videoDir, 'clip', 1);
    clip = [
      { name: 'cam01.mp4', path },
      { name: 'cam02.mp4', path },
    ];
    owner = await verifiedUser(test);
    for (const name of ['gpu-box-1', 'gpu-box-2']) {
      const created = await command('create', '--name', name);
      expect(created.exitCode, created.output).toBe(0);
      tokens[name] = /^kwt_\S+$/m.exec(created.output)![0];
    }
  });
  afterAll(async () => {
    await test?.close();
    if (videoDir) rmSync(videoDir, { recursive: true, force: true });
  });

  it('makes tokens that are stored hashed, refuses a second live one of a name, and lists them', async () => {
    const rows = await test.backends.database.db.select().from(schema.workerTokens);
    expect(rows.map((row) => row.tokenHash)).not.toContain(tokens['gpu-box-1']);
    expect(JSON.stringify(rows)).not.toContain(tokens['gpu-box-1']);
    const again = await command('create', '--name', 'gpu-box-1');
    expect(again.exitCode).toBe(1);
    expect((await command('create')).exitCode).toBe(2);
    const listed = await command('list');
    expect(listed.output).toMatch(/^NAME\s+STATE\s+LAST CONTACT\s+CURRENT JOB/);
    expect(listed.output).toMatch(/gpu-box-1\s+live\s+never\s+-/);
  });

  it('refuses user tokens on the worker API and worker tokens on the user API', async () => {
    const asUser = await test.call({
      method: 'POST',
      url: '/api/worker/lease/',
      headers: authHeader(owner.token),
      payload: { wait_s: 0 },
    });
    expect(asUser.statusCode).toBe(401);
    expect(asUser.json()).toEqual({ detail: workerMessages.tokenRefused });
    expect((await test.call({ method: 'POST', url: '/api/worker/lease/', payload: { wait_s: 0 } })).statusCode).toBe(
      401,
    );
    // A worker token is no login: the user API answers it as it answers nobody (a private trial does not exist).
    for (const [path, status] of [
      ['/me/', 401],
      ['/sessions/', 401],
      [`/trials/${await queuedCalibration()}/`, 404],
    ] as const) {
      expect((await userCall('GET', path, {})).statusCode, path).toBe(status);
      expect((await userCall('GET', path, worker('gpu-box-1'))).statusCode, path).toBe(status);
    }
  });

  it('leases the queued trial to one worker, whose progress the screens show; another worker reaches none of it', async () => {
    const trialId = await queuedCalibration();
    let leased = await lease('gpu-box-1');
    // The previous test queued a calibration too (its owner's second waits behind it): ours comes last.
    while (leased.trial_id !== trialId) leased = await lease('gpu-box-1');
    expect(leased).toMatchObject({ trial_id: trialId, kind: 'calibration', final_attempt: false });
    expect(leased.lease_timeout_s).toBe(LEASE_TIMEOUT_S);

    expect(
      (await call('gpu-box-1', 'POST', `/leases/${leased.id}/heartbeat/`, { stage: 'board', percent: 40 })).statusCode,
    ).toBe(200);
    const shown = (await userCall('GET', `/trials/${trialId}/`)).json() as Trial;
    expect(shown.status).toBe('processing');
    expect(shown.meta.progress).toMatchObject({ stage: 'board', percent: 40 });
    expect((await command('list')).output).toMatch(new RegExp(`gpu-box-1\\s+live\\s+\\S+Z\\s+.*trial ${trialId}`));

    // Another worker: not its lease.
    for (const [method, path, payload] of [
      ['GET', `/leases/${leased.id}/inputs/`, undefined],
      ['POST', `/leases/${leased.id}/heartbeat/`, { stage: 'board', percent: 90 }],
      ['POST', `/leases/${leased.id}/complete/`, { results: [] }],
      ['POST', `/leases/${leased.id}/fail/`, { kind: 'user', message: 'Not yours' }],
    ] as const) {
      const answer = await call('gpu-box-2', method, path, payload);
      expect(answer.statusCode, `${method} ${path}`).toBe(410);
      expect(answer.json()).toEqual({ detail: workerMessages.leaseGone });
    }
    // Its own: the inputs, each video by a signed link that no one can bend to another video or lease.
    const inputs = await call('gpu-box-1', 'GET', `/leases/${leased.id}/inputs/`);
    expect(inputs.statusCode, inputs.body).toBe(200);
    const manifest = inputs.json() as TrialInputsManifest;
    expect(manifest.kind).toBe('calibration');
    expect(manifest.videos).toHaveLength(2);
    const link = new URL(manifest.videos[0].url, 'http://kinetrace.test');
    const video = await test.call({ method: 'GET', url: `${link.pathname}${link.search}` });
    expect(video.statusCode).toBe(200);
    expect(video.rawPayload.equals(readFileSync(clip[0].path))).toBe(true);
    const otherVideo = link.pathname.replace(/\/videos\/0\//, '/videos/1/');
    expect((await test.call({ method: 'GET', url: `${otherVideo}${link.search}` })).statusCode).toBe(403);
    const otherTrial = await queuedCalibration();
    const otherLease = link.pathname.replace(trialId, otherTrial);
    expect((await test.call({ method: 'GET', url: `${otherLease}${link.search}` })).statusCode).toBe(403);

    // Results: one uploaded twice (a retry) is stored once.
    await call('gpu-box-1', 'POST', `/leases/${leased.id}/heartbeat/`, { stage: 'outputs', percent: 95 });
    const upload = (body: string) =>
      call(
        'gpu-box-1',
        'PUT',
        `/leases/${leased.id}/results/?tag=${RESULT_TAGS.calibrationImage}&name=cam01.jpg&camera_name=cam01`,
        body,
        'application/octet-stream',
      );
    expect((await upload('first try')).statusCode).toBe(200);
    expect((await upload('second try')).statusCode).toBe(200);
    const missing = await call('gpu-box-1', 'POST', `/leases/${leased.id}/complete/`, {
      results: [{ tag: RESULT_TAGS.calibrationImage, name: 'cam02.jpg', camera_name: 'cam02' }],
    });
    expect(missing.statusCode).toBe(400);
    const completed = await call('gpu-box-1', 'POST', `/leases/${leased.id}/complete/`, {
      results: [{ tag: RESULT_TAGS.calibrationImage, name: 'cam01.jpg', camera_name: 'cam01' }],
    });
    expect(completed.statusCode, completed.body).toBe(200);
    const done = (await userCall('GET', `/trials/${trialId}/`)).json() as Trial;
    expect(done.status).toBe('done');
    expect(done.results.map((result) => result.tag)).toEqual([RESULT_TAGS.calibrationImage]);
    const stored = await test.backends.database.db
      .select()
      .from(schema.trialResults)
      .where(eq(schema.trialResults.trialId, trialId));
    const file = await test.backends.files.read(stored[0].storageKey!);
    expect(file?.sizeBytes).toBe('second try'.length);
    // Done: the lease is over, and its links with it.
    expect((await test.call({ method: 'GET', url: `${link.pathname}${link.search}` })).statusCode).toBe(410);
  });

  it('expires a silent lease: the job goes back to the queue and the late result is refused', async () => {
    const trialId = await queuedCalibration();
    let leased = await lease('gpu-box-2');
    while (leased.trial_id !== trialId) leased = await lease('gpu-box-2');
    // Silent since long ago: the next recovery pass (every half lease timeout) takes the job back.
    await test.backends.database.db
      .update(schema.trials)
      .set({ updatedAt: sql`now() - interval '1 hour'` })
      .where(eq(schema.trials.id, trialId));
    const deadline = Date.now() + 10 * LEASE_TIMEOUT_S * 1000;
    let trial = (await userCall('GET', `/trials/${trialId}/`)).json() as Trial;
    while ((trial.meta.progress as { stage?: string } | undefined)?.stage !== 'queued' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      trial = (await userCall('GET', `/trials/${trialId}/`)).json() as Trial;
    }
    expect(trial.status).toBe('processing');
    expect(trial.meta.progress).toMatchObject({ stage: 'queued' });
    const late = await call('gpu-box-2', 'POST', `/leases/${leased.id}/complete/`, { results: [] });
    expect(late.statusCode).toBe(410);
    const lateUpload = await call(
      'gpu-box-2',
      'PUT',
      `/leases/${leased.id}/results/?tag=${RESULT_TAGS.calibrationImage}&name=cam01.jpg`,
      'late',
      'application/octet-stream',
    );
    expect(lateUpload.statusCode).toBe(410);
  }, 60_000);

  it('refuses a revoked token at once, also to a worker holding a lease', async () => {
    await queuedCalibration();
    const leased = await lease('gpu-box-2');
    const revoked = await command('revoke', '--name', 'gpu-box-2');
    expect(revoked.exitCode, revoked.output).toBe(0);
    const heartbeat = await call('gpu-box-2', 'POST', `/leases/${leased.id}/heartbeat/`, {
      stage: 'board',
      percent: 10,
    });
    expect(heartbeat.statusCode).toBe(401);
    expect((await call('gpu-box-2', 'POST', '/lease/', { wait_s: 0 })).statusCode).toBe(401);
    expect((await command('revoke', '--name', 'gpu-box-2')).exitCode).toBe(1);
    expect((await command('list')).output).toMatch(/gpu-box-2\s+revoked \S+Z/);
    // Its name is free for a new token.
    expect((await command('create', '--name', 'gpu-box-2')).exitCode).toBe(0);
  });
});
