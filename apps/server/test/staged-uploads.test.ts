import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_SHARING_OPTIONS, messages, type RecordingStatus, type Subject } from '@kinetrace/contracts';
import { STAGED_UPLOADS_PER_USER } from '../src/services/import-staging.ts';
import { newSessionWithPhones } from './support/fake-phone.ts';
import { subjectBody } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

const [, , PROCESSED_ONLY] = DATA_SHARING_OPTIONS;
const HOUR_MS = 3_600_000;

/**
 * Issue 20: files on their way in. A trial waits for a phone whose upload has begun (5); an import is
 * refused before its body is read when it cannot be taken (10); nothing of a deleted account, nor an
 * upload nobody finishes, stays on the disk (11).
 */
describe('uploads on their way in', () => {
  let test: TestApp;
  let baseUrl: string;
  let video: Buffer;
  let videoDir: string;

  beforeAll(async () => {
    test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-staged-'));
    video = readFileSync(makeTestVideo(videoDir, 'clip', 1));
  });
  afterAll(async () => {
    await test?.close();
    rmSync(videoDir, { recursive: true, force: true });
  });

  const get = (token: string, path: string) =>
    test.call({ method: 'GET', url: `/api${path}`, headers: authHeader(token) });
  /** The files tus is receiving (each upload's data file beside its .json). */
  const stagedUploads = () =>
    existsSync(join(test.dataDir, 'uploads'))
      ? readdirSync(join(test.dataDir, 'uploads')).filter((name) => !name.endsWith('.json'))
      : [];
  const importFolders = () => {
    const folder = join(test.dataDir, 'staging', 'imports');
    return existsSync(folder) ? readdirSync(folder) : [];
  };

  /** A trial recorded by two phones and stopped; the second phone has sent half its video. */
  async function halfUploaded(token: string) {
    const { session, phones } = await newSessionWithPhones(test, baseUrl, token, 2);
    const trialId = ((await get(token, `/sessions/${session.id}/record/?name=walk`)).json() as { id: string }).id;
    await get(token, `/sessions/${session.id}/stop/`);
    const created = await phones[1].createUpload(trialId, video.length);
    expect(created.status).toBe(201);
    expect((await phones[1].send(created.location!, video.subarray(0, video.length >> 1), 0)).status).toBe(204);
    return { session, phones, trialId, uploadUrl: created.location! };
  }

  it('keeps a trial waiting for a phone whose upload has begun, however long the phone is silent', async () => {
    const owner = await verifiedUser(test);
    const { session, phones, trialId, uploadUrl } = await halfUploaded(owner.token);
    expect((await phones[0].upload(trialId, video)).status).toBe(204);
    test.clock.offsetMs = 60_000; // the second phone has not polled for a minute; the first one polls
    try {
      await phones[0].state();
      const status = (await get(owner.token, `/sessions/${session.id}/status/`)).json() as RecordingStatus;
      expect(status).toMatchObject({ trial_id: trialId, trial_status: 'uploading', n_videos_uploaded: 1 });
      const rest = await phones[1].send(uploadUrl, video.subarray(video.length >> 1), video.length >> 1);
      expect(rest.status).toBe(204);
    } finally {
      test.clock.offsetMs = 0;
    }
    const trial = await get(owner.token, `/trials/${trialId}/`);
    expect((trial.json() as { videos: unknown[] }).videos).toHaveLength(2);
  });

  it('deleting an account removes the subject archive a share-link holder prepared and the uploads on their way to its trials', async () => {
    const owner = await verifiedUser(test);
    const { session } = await halfUploaded(owner.token);
    const subject = (
      await test.call({ method: 'POST', url: '/api/subjects/', headers: authHeader(owner.token), payload: subjectBody })
    ).json() as Subject;
    await get(owner.token, `/sessions/${session.id}/set_subject/?subject_id=${subject.id}`);
    await get(
      owner.token,
      `/sessions/${session.id}/set_metadata/?settings_data_sharing=${encodeURIComponent(PROCESSED_ONLY)}`,
    );
    await seedTrial(test, session.id, {
      name: 'earlier_walk',
      results: [{ tag: 'ik_results', fileName: 'walk.mot', bytes: Buffer.from('knee_angle_r') }],
    });

    // A share-link holder, signed in or not, prepares the subject's archive: its name, birth year, mass...
    const started = await test.call({
      method: 'GET',
      url: `/api/subjects/${subject.id}/async-download/?share_token=${subject.share_token}`,
    });
    expect(started.statusCode, started.body).toBe(200);
    const taskId = (started.json() as { task_id: string }).task_id;
    await expect
      .poll(async () => (await test.call({ method: 'GET', url: `/api/logs/${taskId}/on-ready/` })).statusCode, {
        timeout: 30_000,
      })
      .toBe(200);
    const archiveFolder = join(test.dataDir, 'files', 'downloads', taskId);
    expect(existsSync(archiveFolder)).toBe(true);
    expect(stagedUploads()).toHaveLength(1);

    const deleted = await test.call({
      method: 'POST',
      url: '/api/delete-account/',
      headers: authHeader(owner.token),
      payload: { confirm: owner.username },
    });
    expect(deleted.statusCode).toBe(200);
    expect(existsSync(archiveFolder)).toBe(false);
    expect(stagedUploads()).toEqual([]);
  });

  it('the cleaning job drops an upload left unfinished for a day and the files of an import a crash left', async () => {
    const owner = await verifiedUser(test);
    await halfUploaded(owner.token);
    const leftover = join(test.dataDir, 'staging', 'imports', 'import-left-by-a-crash');
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, '0.mp4'), video);
    expect(stagedUploads()).toHaveLength(1);

    test.clock.offsetMs = 25 * HOUR_MS;
    try {
      await test.backends.queue.send('clean-uploads', {});
      await expect.poll(() => stagedUploads().length + importFolders().length, { timeout: 30_000 }).toBe(0);
    } finally {
      test.clock.offsetMs = 0;
    }
  });

  describe('imports', () => {
    /** A multipart import whose video part keeps coming: the answer, if the server gives one before the body ends. */
    function heldImport(token: string, sessionId: string) {
      const boundary = 'kinetrace-held-upload';
      const request = httpRequest(`${baseUrl}/api/sessions/${sessionId}/import/`, {
        method: 'POST',
        headers: { ...authHeader(token), 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      request.on('error', () => undefined); // the test ends the request itself
      const answer = new Promise<{ status: number; body: string }>((resolve) => {
        request.on('response', (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          response.on('error', () => resolve({ status: response.statusCode ?? 0, body }));
        });
      });
      request.write(
        `--${boundary}\r\ncontent-disposition: form-data; name="name"\r\n\r\nheld\r\n` +
          `--${boundary}\r\ncontent-disposition: form-data; name="video"; filename="cam01.mp4"\r\ncontent-type: video/mp4\r\n\r\n`,
      );
      request.write(Buffer.alloc(256 * 1024));
      const answered = (withinMs: number) =>
        Promise.race([answer, new Promise<null>((resolve) => setTimeout(() => resolve(null), withinMs))]);
      return { answered, end: () => request.destroy() };
    }

    it('answers an import into another user’s session before reading its body, and stages nothing', async () => {
      const owner = await verifiedUser(test);
      const stranger = await verifiedUser(test);
      const { session } = await newSessionWithPhones(test, baseUrl, owner.token, 0);
      const held = heldImport(stranger.token, session.id);
      try {
        const answer = await held.answered(20_000);
        expect(answer?.status).toBe(404);
        expect(importFolders()).toEqual([]);
      } finally {
        held.end();
      }
    });

    it(`stages at most ${STAGED_UPLOADS_PER_USER} imports of a user at once, and takes the next one when one has ended`, async () => {
      const owner = await verifiedUser(test);
      const { session } = await newSessionWithPhones(test, baseUrl, owner.token, 0);
      const held = Array.from({ length: STAGED_UPLOADS_PER_USER }, () => heldImport(owner.token, session.id));
      try {
        await expect.poll(() => importFolders().length, { timeout: 20_000 }).toBe(STAGED_UPLOADS_PER_USER);
        const refused = heldImport(owner.token, session.id);
        const answer = await refused.answered(20_000);
        refused.end();
        expect(answer?.status).toBe(429);
        expect(JSON.parse(answer!.body)).toEqual({ detail: messages.importsInProgress(STAGED_UPLOADS_PER_USER) });

        // Another user is not held back.
        const other = await verifiedUser(test);
        const { session: otherSession } = await newSessionWithPhones(test, baseUrl, other.token, 0);
        const theirs = heldImport(other.token, otherSession.id);
        held.push(theirs);
        await expect.poll(() => importFolders().length, { timeout: 20_000 }).toBe(STAGED_UPLOADS_PER_USER + 1);

        held.shift()!.end(); // the connection drops: its folder goes and its place is free
        await expect.poll(() => importFolders().length, { timeout: 20_000 }).toBe(STAGED_UPLOADS_PER_USER);
        const next = heldImport(owner.token, session.id);
        held.push(next);
        expect(await next.answered(2_000)).toBeNull(); // being received, not refused
        await expect.poll(() => importFolders().length, { timeout: 20_000 }).toBe(STAGED_UPLOADS_PER_USER + 1);
      } finally {
        for (const request of held) request.end();
      }
      await expect.poll(() => importFolders().length, { timeout: 20_000 }).toBe(0);
    });
  });
});
