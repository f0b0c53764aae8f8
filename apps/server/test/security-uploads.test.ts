import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schema } from '@kinetrace/db';
import { ffmpegPath } from '@kinetrace/mocap/video/binaries';
import { importMessages, messages, PAIRING_TOKEN_HEADER, type Session, type Trial } from '@kinetrace/contracts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';

/** Issue 13, defects 8, 11 and 13d: video imports and phone uploads as an outside tester probed them. */
describe('uploads: whole videos only, nothing left by a refused import, every tus call needs the pairing token, quiet logs', () => {
  let test: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let scratch: string;
  let good: Buffer;
  let truncated: Buffer;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    owner = await verifiedUser(test);
    scratch = mkdtempSync(join(tmpdir(), 'kinetrace-uploads-test-'));
    // Index (moov) first, as phones and `-movflags +faststart` write it: cut in half, the file still opens.
    const path = join(scratch, 'faststart.mp4');
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=size=320x240:rate=30',
      '-t',
      '2',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      path,
    ]);
    good = readFileSync(path);
    truncated = good.subarray(0, Math.floor(good.length / 2));
  });

  afterAll(async () => {
    await test?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const newSession = async () =>
    (
      (
        await test.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(owner.token) })
      ).json() as Session[]
    )[0];
  async function importVideos(sessionId: string, name: string, videos: { bytes: Buffer; name: string }[]) {
    const form = new FormData();
    form.append('name', name);
    for (const video of videos) form.append('video', new Blob([new Uint8Array(video.bytes)]), video.name);
    const response = await fetch(`${baseUrl}/api/sessions/${sessionId}/import/`, {
      method: 'POST',
      headers: authHeader(owner.token),
      body: form,
    });
    return { status: response.status, body: (await response.json()) as Trial & Record<string, string[]> };
  }
  const trialsOf = async (sessionId: string) =>
    test.backends.database.db.select().from(schema.trials).where(eq(schema.trials.sessionId, sessionId));
  const storedFiles = (sessionId: string) => {
    const folder = join(test.dataDir, 'files', 'sessions', sessionId);
    return existsSync(folder) ? readdirSync(folder, { recursive: true }) : [];
  };

  it('refuses an MP4 cut short after its index, naming the file', async () => {
    const session = await newSession();
    const answer = await importVideos(session.id, 'walk', [
      { bytes: good, name: 'cam01.mp4' },
      { bytes: truncated, name: 'cam02.mp4' },
    ]);
    expect(answer.status).toBe(400);
    expect(answer.body.video).toEqual([messages.videoUnreadable('cam02.mp4', 'the file is incomplete or not a video')]);
  });

  it('leaves nothing after a refused import (no trial, no file), so the same name can be imported again', async () => {
    const session = await newSession();
    const refused = await importVideos(session.id, 'walk', [
      { bytes: good, name: 'cam01.mp4' },
      { bytes: Buffer.from('not a video at all'), name: 'cam02.mp4' },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.video).toEqual([
      messages.videoUnreadable('cam02.mp4', 'the file is incomplete or not a video'),
    ]);
    expect(await trialsOf(session.id)).toEqual([]);
    expect(storedFiles(session.id)).toEqual([]);

    const retried = await importVideos(session.id, 'walk', [
      { bytes: good, name: 'cam01.mp4' },
      { bytes: good, name: 'cam02.mp4' },
    ]);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ name: 'walk' });
    expect((await trialsOf(session.id)).map((trial) => trial.name)).toEqual(['walk']);
  });

  it('answers one imported video with what an import needs, not the phone-pairing message', async () => {
    const session = await newSession();
    const answer = await importVideos(session.id, 'walk', [{ bytes: good, name: 'cam01.mp4' }]);
    expect(answer.status).toBe(400);
    expect(answer.body.video).toEqual([importMessages.videosTooFew(1)]);
    expect(await trialsOf(session.id)).toEqual([]);
  });

  it('needs the pairing token on every tus call: no offset, metadata or cancel for a caller without it', async () => {
    const session = await newSession();
    const { db } = test.backends.database;
    const [row] = await db.select().from(schema.sessions).where(eq(schema.sessions.id, session.id));
    const token = row.pairingToken;
    for (const device of ['phone-a1', 'phone-b1']) {
      const connected = await fetch(`${baseUrl}/api/capture/${token}/connect/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          device_id: device,
          capabilities: {
            model: 'Test phone',
            max_width: 1920,
            max_height: 1080,
            framerates: [30],
            mime_types: ['video/mp4'],
          },
        }),
      });
      expect(connected.status).toBe(200);
    }
    const recorded = await test.call({
      method: 'GET',
      url: `/api/sessions/${session.id}/record/?name=walk`,
      headers: authHeader(owner.token),
    });
    const trialId = (recorded.json() as { id: string }).id;
    const metadata = Object.entries({
      pairing_token: token,
      trial_id: trialId,
      device_id: 'phone-a1',
      filetype: 'video/mp4',
    })
      .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
      .join(',');
    const tus = { 'tus-resumable': '1.0.0' };
    const uploads = `${baseUrl}/api/capture/uploads/`;
    const create = (headers: Record<string, string>) =>
      fetch(uploads, {
        method: 'POST',
        headers: { ...tus, 'upload-length': String(good.length), 'upload-metadata': metadata, ...headers },
      });

    expect((await create({})).status).toBe(404);
    const created = await create({ [PAIRING_TOKEN_HEADER]: token });
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location')!, baseUrl).toString();

    const credentials: Record<string, string>[] = [{}, { [PAIRING_TOKEN_HEADER]: 'someone-elses-pairing-token' }];
    for (const credential of credentials) {
      const head = await fetch(url, { method: 'HEAD', headers: { ...tus, ...credential } });
      expect(head.status).toBe(404);
      expect([...head.headers.values()].join(' ')).not.toContain(Buffer.from(token).toString('base64'));
      expect(head.headers.get('upload-metadata')).toBeNull();
      const patch = await fetch(url, {
        method: 'PATCH',
        headers: { ...tus, ...credential, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
        body: new Uint8Array(good.subarray(0, 100)),
      });
      expect(patch.status).toBe(404);
      expect((await fetch(url, { method: 'DELETE', headers: { ...tus, ...credential } })).status).toBe(404);
    }

    // The phone itself still resumes and cancels its upload, which nothing above touched.
    const phone = { ...tus, [PAIRING_TOKEN_HEADER]: token };
    const head = await fetch(url, { method: 'HEAD', headers: phone });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe('0');
    expect((await fetch(url, { method: 'DELETE', headers: phone })).status).toBe(204);
  });

  it('logs neither a failed delete of what is already gone nor a client error (413) as a server error', async () => {
    const session = await newSession();
    const since = test.logs.length;
    expect(
      (
        await importVideos(session.id, 'jump', [
          { bytes: good, name: 'cam01.mp4' },
          { bytes: good, name: 'cam02.mp4' },
        ])
      ).status,
    ).toBe(200);
    // A camera file over the calibration import's 20 MB limit.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(21 * 1024 ** 2)]), 'cam01.json');
    const tooLarge = await fetch(`${baseUrl}/api/sessions/${session.id}/import-calibration/`, {
      method: 'POST',
      headers: authHeader(owner.token),
      body: form,
    });
    expect(tooLarge.status).toBe(413);
    const lines = test.logs.slice(since).map((line) => JSON.parse(line) as { level: number; msg?: string });
    expect(lines.filter((line) => /could not delete/i.test(line.msg ?? ''))).toEqual([]);
    // pino levels: 50 is error, 60 fatal.
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
