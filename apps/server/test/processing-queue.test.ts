import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importMessages, processingMessages, type Session, type Trial } from '@kinetrace/contracts';
import { importForm, type TrialVideos } from './support/processing-fixtures.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

type Stage = { stage?: string; started_at?: string };
const stageOf = (trial: Trial) => (trial.meta.progress as Stage | undefined)?.stage;

/**
 * Issue 20: the processing queue. A trial is at most a phone's recording limit long (9), users take
 * turns (9), and a trial trashed before it ran does not stay "processing" for ever (15). The jobs start
 * once everything is queued, so that the order they are taken in is the queue's, not the test's.
 */
describe('the processing queue', () => {
  let test: TestApp;
  let videoDir: string;
  let clip: TrialVideos;

  const api = (token: string, method: 'GET' | 'POST', path: string) =>
    test.call({ method, url: `/api${path}`, headers: authHeader(token) });
  const trial = async (token: string, id: string) => (await api(token, 'GET', `/trials/${id}/`)).json() as Trial;
  async function newSession(token: string): Promise<string> {
    return ((await api(token, 'GET', '/sessions/new/')).json() as Session[])[0].id;
  }
  async function importTrial(token: string, sessionId: string, name: string, videos = clip) {
    return test.call({
      method: 'POST',
      url: `/api/sessions/${sessionId}/import/`,
      headers: authHeader(token),
      payload: importForm(name, videos),
    });
  }
  async function imported(token: string, sessionId: string, name: string): Promise<string> {
    const response = await importTrial(token, sessionId, name);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as Trial).id;
  }

  const fair: { first: string[]; second: string[]; token: { first: string; second: string } } = {
    first: [],
    second: [],
    token: { first: '', second: '' },
  };
  const trashed = { token: '', walk: '', replacedCalibration: '' };
  const waiting = { token: { owner: '', other: '' }, owner: '', other: '' };

  beforeAll(async () => {
    test = await startTestApp('pglite', { LOG_LEVEL: 'warn' }, { runJobs: 'after-listen' });
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-queue-'));
    const path = makeTestVideo(videoDir, 'clip', 1);
    clip = [
      { name: 'cam01.mp4', path },
      { name: 'cam02.mp4', path },
    ];

    // One user queues three movement trials, then another user one.
    const first = await verifiedUser(test);
    const second = await verifiedUser(test);
    fair.token = { first: first.token, second: second.token };
    const firstSession = await newSession(first.token);
    for (const name of ['first_1', 'first_2', 'first_3'])
      fair.first.push(await imported(first.token, firstSession, name));
    fair.second.push(await imported(second.token, await newSession(second.token), 'second_1'));

    // A user whose movement trials wait for their neutral (they hold no worker) queues one more, then another user one.
    const waiter = await verifiedUser(test);
    const other = await verifiedUser(test);
    waiting.token = { owner: waiter.token, other: other.token };
    const waiterSession = await newSession(waiter.token);
    for (const name of ['waits_1', 'waits_2', 'waits_3']) {
      const id = await imported(waiter.token, waiterSession, name);
      await test.backends.database.executeSql(
        `update trials set meta = jsonb_set(meta, '{progress,stage}', '"waiting_for_neutral"') where id = $1`,
        [id],
      );
      await test.backends.database.executeSql(`delete from pgboss.job where data->>'trialId' = $1`, [id]);
    }
    waiting.owner = await imported(waiter.token, await newSession(waiter.token), 'owner_next');
    waiting.other = await imported(other.token, await newSession(other.token), 'other_first');

    // A third trashes a queued trial, and replaces a calibration whose attempt was cut off by a crash.
    const third = await verifiedUser(test);
    trashed.token = third.token;
    const thirdSession = await newSession(third.token);
    trashed.walk = await imported(third.token, thirdSession, 'walk');
    expect((await api(third.token, 'POST', `/trials/${trashed.walk}/trash/`)).statusCode).toBe(200);
    trashed.replacedCalibration = await imported(third.token, thirdSession, 'calibration');
    // The process that had taken its job is gone: the job stays active until recovery finds it.
    await test.backends.database.executeSql(
      `update pgboss.job set state = 'active', started_on = now() where name = 'process-trial' and data->>'trialId' = $1`,
      [trashed.replacedCalibration],
    );
    await imported(third.token, thirdSession, 'calibration');

    await test.app.startJobs();
  });
  afterAll(async () => {
    await test?.close();
    rmSync(videoDir, { recursive: true, force: true });
  });

  it('refuses an import longer than a phone records at its frame rate, with a message under `video`', async () => {
    const owner = await verifiedUser(test);
    // 61 s at a low rate keeps the file small; the limit of every rate is recordingLimitS's (contracts test).
    const path = makeTestVideo(videoDir, 'long', 61, 'mp4', 5);
    const response = await importTrial(owner.token, await newSession(owner.token), 'too_long', [
      { name: 'cam01.mp4', path },
      { name: 'cam02.mp4', path },
    ]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ video: [importMessages.videoTooLong('cam01.mp4', 61, 5, 60)] });
  });

  it('takes one user’s trial after another user’s first, not after all of the first user’s', async () => {
    const waited: { id: string; startedAt: string }[] = [];
    for (const [token, ids] of [
      [fair.token.first, fair.first],
      [fair.token.second, fair.second],
    ] as const) {
      for (const id of ids) {
        // Without a neutral, each trial is taken and set waiting for it: the time it was taken.
        await expect.poll(async () => stageOf(await trial(token, id)), { timeout: 60_000 }).toBe('waiting_for_neutral');
        waited.push({ id, startedAt: ((await trial(token, id)).meta.progress as Stage).started_at! });
      }
    }
    const order = waited.sort((a, b) => a.startedAt.localeCompare(b.startedAt)).map((entry) => entry.id);
    expect(order).toEqual([fair.first[0], fair.second[0], fair.first[1], fair.first[2]]);
  });

  it('does not count against a user the trials waiting for a neutral, which hold no worker', async () => {
    const taken = async (token: string, id: string) => {
      await expect.poll(async () => stageOf(await trial(token, id)), { timeout: 60_000 }).toBe('waiting_for_neutral');
      return ((await trial(token, id)).meta.progress as Stage).started_at!;
    };
    const ownerTaken = await taken(waiting.token.owner, waiting.owner);
    const otherTaken = await taken(waiting.token.other, waiting.other);
    // Equal turns: the first queued is taken first.
    expect(ownerTaken < otherTaken, `${ownerTaken} then ${otherTaken}`).toBe(true);
  });

  it('ends a trial trashed while queued in an error that says so, and reprocesses it once restored', async () => {
    const { token, walk } = trashed;
    await expect.poll(async () => (await trial(token, walk)).status, { timeout: 60_000 }).toBe('error');
    expect((await trial(token, walk)).meta.error_msg).toBe(processingMessages.notProcessedInRecycleBin);
    expect((await api(token, 'POST', `/trials/${walk}/restore/`)).statusCode).toBe(200);
    const reprocessed = await api(token, 'POST', `/trials/${walk}/reprocess/`);
    expect(reprocessed.statusCode, reprocessed.body).toBe(200);
    expect(reprocessed.json()).toEqual({ trials: [walk] });
  });

  it('ends a calibration interrupted by a crash and replaced meanwhile in the same error, not "processing" for ever', async () => {
    const { token, replacedCalibration } = trashed;
    await expect.poll(async () => (await trial(token, replacedCalibration)).status, { timeout: 90_000 }).toBe('error');
    const stopped = await trial(token, replacedCalibration);
    expect(stopped.trashed).toBe(true);
    expect(stopped.meta.error_msg).toBe(processingMessages.notProcessedInRecycleBin);
  });
});
