import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages, type Session } from '@kinetrace/contracts';
import { newSessionWithPhones } from './support/fake-phone.ts';
import { importForm, type TrialVideos } from './support/processing-fixtures.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

/** A small real file system of its own (tmpfs) that fills up, where the machine lets this process mount one. */
function mountSmallDisk(path: string): boolean {
  mkdirSync(path, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', path]).status === 0;
}
const unmount = (path: string) => spawnSync('umount', ['-l', path]);

const probe = mkdtempSync(join(tmpdir(), 'kinetrace-mount-probe-'));
const canMount = mountSmallDisk(probe);
unmount(probe);
rmSync(probe, { recursive: true, force: true });
if (!canMount)
  console.warn('Disk-full tests skipped: this machine does not let the tests mount a small tmpfs (root needed).');

/** Fills the file system holding `path` but for `leftBytes`. */
function fill(path: string, leftBytes: number): void {
  const { bavail, bsize } = statfsSync(path);
  writeFileSync(join(path, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - leftBytes)));
}
/** Every file under `path`, as paths relative to it. */
const filesUnder = (path: string) =>
  (readdirSync(path, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(path.length + 1));

/** Issue 20 (17): a full disk answered a generic 500 and left the partial archive behind. */
describe.skipIf(!canMount)('a full disk', () => {
  let test: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let videoDir: string;
  let clip: TrialVideos;
  let filesDir: string;
  let uploadsDir: string;

  beforeAll(async () => {
    test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    filesDir = join(test.dataDir, 'files');
    uploadsDir = join(test.dataDir, 'uploads');
    expect(mountSmallDisk(filesDir) && mountSmallDisk(uploadsDir)).toBe(true);
    owner = await verifiedUser(test);
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-disk-full-'));
    const path = makeTestVideo(videoDir, 'clip', 1);
    clip = [
      { name: 'cam01.mp4', path },
      { name: 'cam02.mp4', path },
    ];
  });
  afterAll(async () => {
    unmount(filesDir);
    unmount(uploadsDir);
    await test?.close();
    rmSync(videoDir, { recursive: true, force: true });
  });

  const importTrial = (sessionId: string, name: string) =>
    test.call({
      method: 'POST',
      url: `/api/sessions/${sessionId}/import/`,
      headers: authHeader(owner.token),
      payload: importForm(name, clip),
    });

  it('says the server is out of space (507) for an import, a phone’s upload and an archive, and keeps no partial file', async () => {
    const session = (
      (
        await test.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(owner.token) })
      ).json() as Session[]
    )[0];
    expect((await importTrial(session.id, 'before')).statusCode).toBe(200);
    const stored = filesUnder(filesDir);

    fill(filesDir, 16 * 1024);
    const refused = await importTrial(session.id, 'after');
    expect(refused.statusCode).toBe(507);
    expect(refused.json()).toEqual({ detail: messages.serverOutOfSpace });
    expect(filesUnder(filesDir).sort()).toEqual([...stored, 'filler'].sort()); // nothing half-written stays

    // The archive of the session cannot be written either: the task says why, and its partial file is gone.
    const started = await test.call({
      method: 'GET',
      url: `/api/sessions/${session.id}/async-download/`,
      headers: authHeader(owner.token),
    });
    const taskId = (started.json() as { task_id: string }).task_id;
    let answer = await test.call({
      method: 'GET',
      url: `/api/logs/${taskId}/on-ready/`,
      headers: authHeader(owner.token),
    });
    await expect
      .poll(
        async () => {
          answer = await test.call({
            method: 'GET',
            url: `/api/logs/${taskId}/on-ready/`,
            headers: authHeader(owner.token),
          });
          return answer.statusCode;
        },
        { timeout: 30_000 },
      )
      .toBe(507);
    expect(answer.json()).toEqual({ detail: messages.serverOutOfSpace });
    expect(filesUnder(filesDir).sort()).toEqual([...stored, 'filler'].sort());

    // A phone's upload arriving on a full disk is answered the same way (its client retries later).
    const { session: phoneSession, phones } = await newSessionWithPhones(test, baseUrl, owner.token, 2);
    const trialId = (
      (
        await test.call({
          method: 'GET',
          url: `/api/sessions/${phoneSession.id}/record/?name=walk`,
          headers: authHeader(owner.token),
        })
      ).json() as { id: string }
    ).id;
    await test.call({ method: 'GET', url: `/api/sessions/${phoneSession.id}/stop/`, headers: authHeader(owner.token) });
    fill(uploadsDir, 4 * 1024);
    const upload = await phones[0].upload(trialId, readFileSync(clip[0].path));
    expect(upload.status).toBe(507);
    expect(JSON.parse(upload.body)).toEqual({ detail: messages.serverOutOfSpace });

    // Space freed, the same import goes through.
    rmSync(join(filesDir, 'filler'));
    expect((await importTrial(session.id, 'after')).statusCode).toBe(200);
  });
});
