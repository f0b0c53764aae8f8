import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Trial } from '@kinetrace/contracts';
import { newSessionWithPhones } from './support/fake-phone.ts';
import { authHeader, startTestApp, testBackends, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

const backends = await testBackends();

/**
 * Issue 20 (5): two phones finishing their uploads at the same moment hand the trial to processing once.
 * Both used to read "every video is in, the trial is uploading" before either had queued it, and both
 * queued it: two processing runs of one trial.
 */
describe.each(backends)('the last two uploads of a trial, at once, on %s', (backend) => {
  let test: TestApp;
  let baseUrl: string;
  let videoDir: string;
  let video: Buffer;

  beforeAll(async () => {
    // No job is taken: the queue keeps what was sent to it.
    test = await startTestApp(backend, { LOG_LEVEL: 'warn' }, { runJobs: false });
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-hand-off-'));
    video = readFileSync(makeTestVideo(videoDir, 'clip', 1));
  });
  afterAll(async () => {
    await test?.close();
    rmSync(videoDir, { recursive: true, force: true });
  });

  /**
   * PGlite takes statements in turn: each phone's video, once written to the file store, waits there until
   * the other's is written too, and both go on in step.
   */
  async function storedTogether<T>(uploads: number, run: () => Promise<T>): Promise<T> {
    const { files } = test.backends;
    const put = files.put.bind(files);
    let written = 0;
    let release!: () => void;
    const together = new Promise<void>((resolve) => (release = resolve));
    files.put = async (key, data) => {
      await put(key, data);
      if (!key.includes('/videos/')) return;
      if (++written === uploads) release();
      await together;
    };
    try {
      return await run();
    } finally {
      files.put = put;
    }
  }

  /**
   * On PostgreSQL a test transaction holds a lock on `table` in `mode`; `granted` settles once it holds it.
   * A lock request waits behind queued requests it conflicts with, which is what orders the uploads below.
   */
  function lockTable(table: 'trials' | 'trial_videos', mode: string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const granted = new Promise<void>((resolve) => (locked = resolve));
    const committed = test.backends.database.db.transaction(async (tx) => {
      await tx.execute(sql.raw(`lock table ${table} in ${mode} mode`));
      locked();
      await released;
    });
    return {
      granted: Promise.race([granted, committed]),
      async release() {
        release();
        await committed;
      },
    };
  }

  async function waitersOn(table: 'trials' | 'trial_videos', count: number) {
    const waiting = async () =>
      Number(
        (
          await test.backends.database.executeSql(
            `select count(*) as n from pg_locks where relation = $1::regclass and not granted`,
            [table],
          )
        ).rows[0].n,
      );
    await expect.poll(waiting, { timeout: 30_000 }).toBe(count);
  }

  /**
   * The uploads run so that both videos are recorded, and both hand-offs have read that every video is
   * in, before either moves the trial on: the worst moment. On PostgreSQL: both video inserts are held;
   * an exclusive lock queued behind them lets both commit and then holds both hand-offs' reads of the
   * videos, so neither reads before the other's video is in; the trial's writes are held until both
   * hand-offs try to queue it.
   */
  async function handOffsTogether<T>(uploads: number, run: () => Promise<T>): Promise<T> {
    if (backend === 'pglite') return storedTogether(uploads, run);
    const inserts = lockTable('trial_videos', 'share row exclusive');
    const queueing = lockTable('trials', 'share row exclusive');
    await Promise.all([inserts.granted, queueing.granted]);
    const running = run();
    await waitersOn('trial_videos', uploads);
    const reads = lockTable('trial_videos', 'access exclusive');
    await waitersOn('trial_videos', uploads + 1);
    await inserts.release();
    await reads.granted;
    await waitersOn('trial_videos', uploads);
    await reads.release();
    await waitersOn('trials', uploads);
    await queueing.release();
    return running;
  }

  it('two phones ending their uploads at the same moment queue the trial for processing once', async () => {
    const owner = await verifiedUser(test);
    const get = (path: string) => test.call({ method: 'GET', url: `/api${path}`, headers: authHeader(owner.token) });
    const { session, phones } = await newSessionWithPhones(test, baseUrl, owner.token, 2);
    const trialId = ((await get(`/sessions/${session.id}/record/?name=walk`)).json() as { id: string }).id;
    await get(`/sessions/${session.id}/stop/`);

    const uploads = await handOffsTogether(phones.length, () =>
      Promise.all(phones.map((phone) => phone.upload(trialId, video))),
    );
    expect(uploads.map((upload) => upload.status)).toEqual([204, 204]);

    const jobs = await test.backends.database.executeSql(
      `select id from pgboss.job where name = 'process-trial' and data->>'trialId' = $1`,
      [trialId],
    );
    expect(jobs.rows).toHaveLength(1);
    const trial = (await get(`/trials/${trialId}/`)).json() as Trial;
    expect(trial.status).toBe('processing');
    expect(trial.videos).toHaveLength(2);
  });
});
