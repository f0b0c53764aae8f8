import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { RESULT_TAGS, type Session } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/index';
import { sessionWithSubject } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { testCamera } from './support/test-camera.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

/**
 * Issue 13, loose end 3: importing a calibration or a neutral replaces the session's current one only
 * when the import completes. One that fails half-way (here the file store refuses the second file)
 * leaves the previous one in use, out of the recycle bin, and nothing of its own behind.
 */
describe('a failed replacing import leaves everything as it was', () => {
  let test: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let scratch: string;
  let video: Buffer;
  /** Makes the file store refuse every write whose key matches, as a full disk would. */
  let failingKeys: RegExp | null = null;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    owner = await verifiedUser(test);
    scratch = mkdtempSync(join(tmpdir(), 'kinetrace-replacing-import-'));
    video = readFileSync(makeTestVideo(scratch, 'board'));
    const files = test.backends.files;
    const put = files.put.bind(files);
    files.put = async (key, data) => {
      if (failingKeys?.test(key)) throw new Error('no space left on device');
      return put(key, data);
    };
  });

  afterAll(async () => {
    await test?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** A session with a subject and a done calibration of two cameras (and a done neutral). */
  async function calibratedSession(): Promise<{ session: Session; calibrationId: string; neutralId: string }> {
    const { session } = await sessionWithSubject(test, owner.token);
    const calibrationId = await seedTrial(test, session.id, {
      name: 'calibration',
      results: ['cam01', 'cam02'].map((camera) => ({
        tag: RESULT_TAGS.cameraParameters,
        fileName: `${camera}.json`,
        bytes: Buffer.from('{}'),
      })),
    });
    const neutralId = await seedTrial(test, session.id, { name: 'neutral' });
    return { session, calibrationId, neutralId };
  }

  async function post(url: string, field: string, uploads: { name: string; bytes: Buffer }[], name?: string) {
    const form = new FormData();
    if (name) form.append('name', name);
    for (const upload of uploads) form.append(field, new Blob([new Uint8Array(upload.bytes)]), upload.name);
    const response = await fetch(`${baseUrl}/api${url}`, {
      method: 'POST',
      headers: authHeader(owner.token),
      body: form,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  const trialsOf = async (sessionId: string) =>
    (await test.backends.database.db.select().from(schema.trials).where(eq(schema.trials.sessionId, sessionId))).map(
      (trial) => ({ id: trial.id, name: trial.name, trashed: trial.trashed }),
    );
  const liveCameraCount = async (sessionId: string) =>
    (
      (
        await test.call({
          method: 'GET',
          url: `/api/sessions/${sessionId}/get_n_calibrated_cameras/`,
          headers: authHeader(owner.token),
        })
      ).json() as { data: number }
    ).data;

  async function withFailingStore<T>(keys: RegExp, run: () => Promise<T>): Promise<T> {
    failingKeys = keys;
    try {
      return await run();
    } finally {
      failingKeys = null;
    }
  }

  it.each(['calibration', 'neutral'])(
    'keeps the previous %s in use when its replacement from videos fails on the second video',
    async (name) => {
      const { session, calibrationId, neutralId } = await calibratedSession();
      const before = await trialsOf(session.id);
      const failed = await withFailingStore(/\/videos\/import-1-/, () =>
        post(
          `/sessions/${session.id}/import/`,
          'video',
          [
            { name: 'cam01.mp4', bytes: video },
            { name: 'cam02.mp4', bytes: video },
          ],
          name,
        ),
      );
      expect(failed.status).toBe(500);
      expect(JSON.stringify(failed.body)).not.toMatch(/no space|\/videos\//);
      expect(await trialsOf(session.id)).toEqual(before);
      expect(before).toEqual([
        { id: calibrationId, name: 'calibration', trashed: false },
        { id: neutralId, name: 'neutral', trashed: false },
      ]);
      expect(await liveCameraCount(session.id)).toBe(2);

      // The same import, once the store takes the files, does replace it (the old one to the recycle bin).
      const done = await post(
        `/sessions/${session.id}/import/`,
        'video',
        [
          { name: 'cam01.mp4', bytes: video },
          { name: 'cam02.mp4', bytes: video },
        ],
        name,
      );
      expect(done.status).toBe(200);
      const replaced = (await trialsOf(session.id)).filter((trial) => trial.name === name);
      expect(replaced).toEqual([
        { id: name === 'calibration' ? calibrationId : neutralId, name, trashed: true },
        { id: done.body.id, name, trashed: false },
      ]);
    },
  );

  it('keeps the previous calibration in use when an imported calibration file cannot be stored', async () => {
    const { session } = await calibratedSession();
    const before = await trialsOf(session.id);
    const uploads = ['left', 'right'].map((name, index) => ({
      name: `${name}.json`,
      bytes: Buffer.from(writeKinetraceCameras([testCamera(name, index)])),
    }));
    const failed = await withFailingStore(/\/2-right\.json$/, () =>
      post(`/sessions/${session.id}/import-calibration/`, 'file', uploads),
    );
    expect(failed.status).toBe(500);
    expect(await trialsOf(session.id)).toEqual(before);
    expect(await liveCameraCount(session.id)).toBe(2);
  });
});
