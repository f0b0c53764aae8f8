import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session, Trial } from '@kinetrace/contracts';
import { describeWithData } from '../../../packages/mocap/test/reference-data.ts';
import { openBackends } from '../src/backends.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { ObjectStoreUnreachableError } from '../src/storage/s3-file-store.ts';
import { newSessionWithPhones } from './support/fake-phone.ts';
import { sessionWithSubject } from './support/owned-data.ts';
import { seedEmbeddedDatabase } from './support/pglite-template.ts';
import { seedTrial } from './support/seed.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_SOURCES,
  DEMO_SUBJECT,
  importForm,
  makeBoardVideos,
} from './support/processing-fixtures.ts';
import { startS3Server, type TestS3Server } from './support/s3-server.ts';
import { authHeader, onTestServer, openTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { unzip } from './support/unzip.ts';
import { makeTestVideo } from './support/videos.ts';

/** Board calibration of two cameras, real processing: seconds, with room for a busy shared machine. */
const PROCESSING_TIMEOUT_MS = 300_000;
/** More open video streams than the 50 sockets the AWS SDK allows a client by default. */
const PAUSED_PLAYERS = 60;

/**
 * Issue 23, object storage: with S3_BUCKET set, uploads, videos and results live in the bucket and only
 * there, a phone's upload outlives the server that began receiving it, and media and zips come from the
 * bucket with the same answers as from local disk.
 */
describe('object storage (S3_BUCKET)', () => {
  let s3: TestS3Server;
  let bucket: string;
  let env: Record<string, string>;
  let dataDir: string;
  let test: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let scratch: string;
  let video: Buffer;

  /** A server on the shared data folder and bucket (each one stopped before the next opens the embedded database). */
  async function startServer() {
    test = await openTestApp({ dataDir, databaseUrl: undefined }, { ...env, LOG_LEVEL: 'warn' });
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
  }
  const get = (path: string) => test.call({ method: 'GET', url: `/api${path}`, headers: authHeader(owner.token) });
  /** The bucket's keys outside files/: what tus holds of unfinished uploads. */
  const uploadObjects = async () => (await s3.keys(bucket)).filter((key) => !key.startsWith('files/'));

  beforeAll(async () => {
    s3 = await startS3Server();
    ({ bucket, env } = await s3.newBucket());
    dataDir = mkdtempSync(join(tmpdir(), 'kinetrace-s3-test-'));
    await seedEmbeddedDatabase(dataDir);
    await startServer();
    owner = await verifiedUser(test);
    scratch = mkdtempSync(join(tmpdir(), 'kinetrace-s3-videos-'));
    video = readFileSync(makeTestVideo(scratch, 'clip', 1));
  });
  afterAll(async () => {
    await test?.close();
    await s3?.close();
    for (const folder of [dataDir, scratch]) if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('names the variable that is wrong, and refuses a bucket it cannot use', async () => {
    const refusal = (environment: Record<string, string>) => {
      try {
        loadConfig(environment);
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
    };
    expect(refusal({ S3_BUCKET: 'Bad_Bucket', AWS_REGION: 'eu-west-1' })).toMatch(/^S3_BUCKET takes a bucket name/);
    expect(refusal({ S3_BUCKET: 'videos' })).toMatch(/^S3_BUCKET needs AWS_REGION/);
    expect(refusal({ ...env, AWS_SECRET_ACCESS_KEY: '' })).toMatch(
      /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together/,
    );
    expect(refusal({ ...env, AWS_ENDPOINT_URL_S3: 'minio:9000' })).toMatch(
      /^AWS_ENDPOINT_URL_S3 takes the store's URL/,
    );
    expect(refusal({ ...env, S3_FORCE_PATH_STYLE: 'yes' })).toMatch(/^S3_FORCE_PATH_STYLE takes true/);
    expect(loadConfig({}).objectStore).toBeUndefined(); // local disk stays the default
    expect(loadConfig(env).objectStore).toMatchObject({ bucket, region: 'us-east-1', forcePathStyle: true });

    const opening = (environment: Record<string, string>) =>
      openBackends(loadConfig({ ...environment, DATA_DIR: join(scratch, 'never-opened') }), () => undefined);
    await expect(opening({ ...env, S3_BUCKET: 'no-such-bucket' })).rejects.toThrow(
      new ObjectStoreUnreachableError(
        `S3_BUCKET no-such-bucket at ${s3.endpoint} cannot be used: it does not exist: create it first.`,
      ),
    );
    expect(existsSync(join(scratch, 'never-opened'))).toBe(false); // nothing opened before the check
  });

  it("resumes a phone's upload on the server started after the one receiving it stopped; the video lands in the bucket only", async () => {
    const { session, phones } = await newSessionWithPhones(test, baseUrl, owner.token, 2);
    const trialId = ((await get(`/sessions/${session.id}/record/?name=walk`)).json() as { id: string }).id;
    await get(`/sessions/${session.id}/stop/`);
    const created = await phones[0].createUpload(trialId, video.length);
    expect(created.status).toBe(201);
    const half = video.length >> 1;
    expect((await phones[0].send(created.location!, video.subarray(0, half), 0)).status).toBe(204);
    expect(await uploadObjects()).not.toEqual([]);

    await test.close();
    await startServer();
    const resumed = new URL(new URL(created.location!).pathname, baseUrl).toString();
    expect(await phones[0].offset(resumed)).toBe(half);
    // What the trial's wait for the phone and the cleaning job read: the upload, of that trial and phone.
    expect(await test.backends.staging.list()).toEqual([
      expect.objectContaining({ trialId, deviceId: phones[0].deviceId }),
    ]);
    expect((await phones[0].send(resumed, video.subarray(half), half)).status).toBe(204);

    const trial = (await get(`/trials/${trialId}/`)).json() as Trial;
    expect(trial.videos).toHaveLength(1);
    const stored = await fetch(onTestServer(baseUrl, trial.videos[0].video!));
    expect(Buffer.from(await stored.arrayBuffer()).equals(video)).toBe(true);
    expect(await uploadObjects()).toEqual([]); // the finished upload's parts and description are gone
    expect((await s3.keys(bucket)).filter((key) => key.includes(`/trials/${trialId}/`))).toHaveLength(1);
    for (const folder of ['files', 'uploads']) expect(existsSync(join(dataDir, folder)), folder).toBe(false);
  });

  it('serves a stored video by byte range, and streams the session zip from the bucket', async () => {
    const { session } = await sessionWithSubject(test, owner.token, DEMO_SUBJECT);
    const form = new FormData();
    form.append('name', 'walk');
    for (const camera of ['cam01', 'cam02']) form.append('video', new Blob([new Uint8Array(video)]), `${camera}.mp4`);
    const imported = await test.app.inject({
      method: 'POST',
      url: `/api/sessions/${session.id}/import/`,
      headers: authHeader(owner.token),
      payload: form,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const trial = (await get(`/trials/${(imported.json() as Trial).id}/`)).json() as Trial;

    const ranged = await fetch(onTestServer(baseUrl, trial.videos[0].video!), { headers: { range: 'bytes=100-1099' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-1099/${video.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(video.subarray(100, 1100))).toBe(true);
    const tail = await fetch(onTestServer(baseUrl, trial.videos[0].video!), { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(video.subarray(-10))).toBe(true);
    const beyond = await fetch(onTestServer(baseUrl, trial.videos[0].video!), {
      headers: { range: `bytes=${video.length}-` },
    });
    expect(beyond.status).toBe(416);

    const zip = await fetch(`${baseUrl}/api/sessions/${session.id}/download/`, { headers: authHeader(owner.token) });
    expect(zip.status).toBe(200);
    const entries = await unzip(Buffer.from(await zip.arrayBuffer()));
    const videoEntry = [...entries.keys()].find((name) => name.endsWith('/InputMedia/walk/walk.mp4'));
    expect(videoEntry && entries.get(videoEntry)!.equals(video)).toBe(true);
    expect(existsSync(join(dataDir, 'files'))).toBe(false);
  });

  it('serves every other file while more players than the SDK has sockets by default hold video streams open', async () => {
    const session = ((await get('/sessions/new/')).json() as Session[])[0];
    const long = Buffer.alloc(24 * 1024 * 1024, 3); // more than loopback and stream buffers hold between reads
    const trialId = await seedTrial(test, session.id, {
      name: 'walk',
      videos: [
        { deviceId: 'phone-a', bytes: long },
        { deviceId: 'phone-b', bytes: Buffer.from('short') },
      ],
    });
    const trial = (await get(`/trials/${trialId}/`)).json() as Trial;
    const [longUrl, shortUrl] = trial.videos.map((stored) => onTestServer(baseUrl, stored.video!));
    const players = Array.from({ length: PAUSED_PLAYERS }, () => new AbortController());
    try {
      // Each player reads the answer's head and then nothing, as a paused <video> does.
      // (Bounded: a server out of sockets would never answer the last ones.)
      const opened = await Promise.all(
        players.map((player) =>
          fetch(longUrl, { signal: AbortSignal.any([player.signal, AbortSignal.timeout(20_000)]) }),
        ),
      );
      expect(opened.every((answer) => answer.status === 200)).toBe(true);
      const other = await fetch(shortUrl, { signal: AbortSignal.timeout(10_000) });
      expect(await other.text()).toBe('short');
    } finally {
      for (const player of players) player.abort();
    }
  });

  describeWithData('a processed trial', DEMO_SOURCES.slice(0, 1), () => {
    it(
      'calibrates from imported board videos with its videos and results in the bucket only',
      async () => {
        const session = ((await get('/sessions/new/')).json() as Session[])[0];
        expect((await get(`/sessions/${session.id}/set_metadata/?${DEMO_BOARD_QUERY}`)).statusCode).toBe(200);
        const videos = await makeBoardVideos(join(scratch, 'board'), 2);
        const imported = await test.app.inject({
          method: 'POST',
          url: `/api/sessions/${session.id}/import/`,
          headers: authHeader(owner.token),
          payload: importForm('calibration', videos),
        });
        expect(imported.statusCode, imported.body).toBe(200);
        const trialId = (imported.json() as Trial).id;
        let trial: Trial;
        const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
        do {
          await new Promise((resolve) => setTimeout(resolve, 500));
          trial = (await get(`/trials/${trialId}/`)).json() as Trial;
        } while (!['done', 'error'].includes(trial.status) && Date.now() < deadline);
        expect(trial.status, String(trial.meta.error_msg)).toBe('done');

        const keys = (await s3.keys(bucket)).filter((key) => key.includes(`/trials/${trialId}/`));
        expect(keys.filter((key) => key.includes('/videos/'))).toHaveLength(2);
        expect(trial.results.length).toBeGreaterThanOrEqual(2);
        for (const folder of ['camera-parameters/cam01.json', 'camera-parameters/cam02.json', 'calibration_cam01.jpg'])
          expect(
            keys.some((key) => key.endsWith(folder)),
            folder,
          ).toBe(true);
        for (const result of trial.results) {
          const served = await fetch(onTestServer(baseUrl, result.media!));
          expect(served.status, result.tag).toBe(200);
        }
        for (const folder of ['files', 'uploads']) expect(existsSync(join(dataDir, folder)), folder).toBe(false);
      },
      PROCESSING_TIMEOUT_MS,
    );
  });
});
