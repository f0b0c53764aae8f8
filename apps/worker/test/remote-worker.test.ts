import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { probeVideo } from '@kinetrace/mocap/video/probe';
import { RESULT_TAGS, workerMessages, type Session, type Subject, type Trial } from '@kinetrace/contracts';
import {
  BALANCING_TRIAL,
  POSE2SIM_DEMO,
  POSE2SIM_QCA,
  POSE2SIM_SESSION,
} from '../../../packages/mocap/test/calibration/pose2sim-reference.ts';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { FakePhone, heldPatch } from '../../server/test/support/fake-phone.ts';
import {
  ensureBuilt,
  freePort,
  overHttp,
  spawnServer,
  type ServerProcess,
} from '../../server/test/support/npm-start.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_CAMERAS,
  DEMO_SUBJECT,
  importForm,
  makeBoardVideos,
  type TrialVideos,
} from '../../server/test/support/processing-fixtures.ts';
import { startS3Server, type TestS3Server } from '../../server/test/support/s3-server.ts';
import {
  authHeader,
  onTestServer,
  postgresAvailable,
  scratchDatabase,
  verifiedUser,
} from '../../server/test/support/test-app.ts';
import { createWorkerToken, startWorker, workerToken, type WorkerProcess } from './support/worker-processes.ts';

/**
 * Short, so that a killed worker's lease expires within the test; not shorter, as a busy machine holds a
 * worker's event loop (the engine's synchronous stages: OpenCV calls, inverse kinematics) for seconds between
 * its heartbeats: at 8 s, trials on a machine loaded 12 times over its cores lost their leases again and again.
 */
const LEASE_TIMEOUT_S = 30;
/** A trial's patience; each test's timeout is longer, so that a trial that never ends says where it stopped. */
const TRIAL_TIMEOUT_MS = 240_000;
const TEST_TIMEOUT_MS = 300_000;
/** Pose2Sim's demo trials with their 2D keypoints (OpenPose BODY_25B files, one per frame): no pose model runs. */
const KEYPOINT_TRIALS = {
  neutral: {
    videos: `${POSE2SIM_SESSION}/S00_P00_T00_StaticTrial/videos`,
    keypoints: `${POSE2SIM_SESSION}/S00_P00_T00_StaticTrial/pose-associated`,
  },
  balancing: { videos: `${POSE2SIM_DEMO}/videos`, keypoints: `${BALANCING_TRIAL}/pose-associated` },
};
const REFERENCE_FILES = [
  POSE2SIM_QCA,
  ...Object.values(KEYPOINT_TRIALS).flatMap(({ videos, keypoints }) => [
    `${videos}/cam01.mp4`,
    `${keypoints}/cam01_json`,
  ]),
];

/**
 * An import of a keypoint trial: each camera's video and its OpenPose files, named `cam01.0.json`, …, one per
 * frame of the video (Pose2Sim wrote one more file than the static trial's videos have frames: the subject
 * stands still, and the last is left out).
 */
async function keypointsForm(name: string, trial: { videos: string; keypoints: string }): Promise<FormData> {
  const form = new FormData();
  form.append('name', name);
  form.append('keypoint_set', 'body25b');
  for (const camera of DEMO_CAMERAS) {
    const video = referencePath(trial.videos, `${camera}.mp4`);
    form.append('video', new Blob([new Uint8Array(readFileSync(video))]), `${camera}.mp4`);
    const folder = referencePath(trial.keypoints, `${camera}_json`);
    const frames = readdirSync(folder)
      .sort()
      .slice(0, (await probeVideo(video)).frameCount);
    for (const [frame, file] of frames.entries())
      form.append('keypoints', new Blob([new Uint8Array(readFileSync(join(folder, file)))]), `${camera}.${frame}.json`);
  }
  return form;
}

const postgres = await postgresAvailable();
if (!postgres && process.env.CI) throw new Error('PostgreSQL is required on CI');

/**
 * Issue 23: Kinetrace scaled out on one machine's loopback. PostgreSQL, an S3-compatible store (s3rver), two
 * server processes with WORKERS=remote (the built server, each with its own data folder), which run no pipeline,
 * and three `kinetrace-worker` processes, which run it over the worker API. Trials come in through both servers;
 * a worker killed mid-trial loses its lease and another finishes the trial; a server killed mid-upload leaves
 * the upload to the other. The trials are cheap: imported 2D keypoints (no pose model) and board videos.
 */
describeWithData('two servers, three workers, one database and one bucket', REFERENCE_FILES, () => {
  let s3: TestS3Server;
  let bucket: string;
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  let db: pg.Client;
  const dataDirs: string[] = [];
  /** Each server's TMPDIR, where tus's S3 store keeps the bytes of a PATCH until they make a part. */
  const tmpDirs: string[] = [];
  const servers: ServerProcess[] = [];
  const workers: WorkerProcess[] = [];
  let owner: { token: string };
  let scratch: string;
  let boards: TrialVideos;
  /** The keypoint session: the demo's subject and cameras (its Qualisys file), its neutral processed by the first test. */
  let keypointSession: string;

  const databaseUrl = () => database.databaseUrl!;
  async function api<T>(server: ServerProcess, path: string, body?: { form: FormData } | { json: object }) {
    const response = await fetch(`${server.baseUrl}/api${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { ...authHeader(owner.token), ...(body && 'json' in body && { 'content-type': 'application/json' }) },
      body: body && ('form' in body ? body.form : JSON.stringify(body.json)),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${path} on ${server.baseUrl}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  async function newSession(server: ServerProcess, query: string): Promise<string> {
    const session = (await api<Session[]>(server, '/sessions/new/'))[0];
    await api(server, `/sessions/${session.id}/set_metadata/?${query}`);
    return session.id;
  }
  const importTrial = async (server: ServerProcess, sessionId: string, form: FormData) =>
    (await api<Trial>(server, `/sessions/${sessionId}/import/`, { form })).id;
  /** Two phones paired through `server` record the board: the calibration trial waiting for their videos. */
  async function phonesRecordBoard(server: ServerProcess, label: string) {
    const sessionId = await newSession(server, DEMO_BOARD_QUERY);
    const { rows } = await db.query<{ pairing_token: string }>('select pairing_token from sessions where id = $1', [
      sessionId,
    ]);
    const pairingToken = rows[0].pairing_token;
    const phones = boards.map((_, index) => new FakePhone(server.baseUrl, pairingToken, `${label}-${index}`));
    for (const phone of phones) expect((await phone.connect()).status).toBe(200);
    const { id } = await api<{ id: string }>(server, `/sessions/${sessionId}/record/?name=calibration`);
    await api(server, `/sessions/${sessionId}/stop/`);
    return { trialId: id, phones, pairingToken };
  }
  /** …and upload their videos to it with tus. */
  async function phoneCalibration(server: ServerProcess, label: string): Promise<string> {
    const { trialId, phones } = await phonesRecordBoard(server, label);
    for (const [index, phone] of phones.entries())
      expect((await phone.upload(trialId, readFileSync(boards[index].path))).status).toBe(204);
    return trialId;
  }
  async function waitFor(trialId: string, until: (trial: Trial) => boolean): Promise<Trial> {
    const deadline = Date.now() + TRIAL_TIMEOUT_MS;
    for (;;) {
      const trial = await api<Trial>(servers[0], `/trials/${trialId}/`);
      if (until(trial)) return trial;
      if (Date.now() > deadline)
        throw new Error(
          `trial ${trial.name} still ${trial.status} ${JSON.stringify(trial.meta)}\n${workers.map((worker) => worker.output()).join('\n')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const ended = (trial: Trial) => trial.status === 'done' || trial.status === 'error';
  /** Ended, and a done trial's follow-up (its synchronised videos, issue 24) over too: every result in. */
  const finished = (trial: Trial) =>
    ended(trial) && (trial.meta.follow_up as { status?: string } | undefined)?.status !== 'running';
  const expectDone = (trial: Trial) =>
    expect(
      trial.status,
      `${trial.name}: ${String(trial.meta.error_msg)}\n${workers.map((worker) => worker.output()).join('\n')}`,
    ).toBe('done');
  const newToken = (name: string) => createWorkerToken(databaseUrl(), name);
  /** Each of the trial's result files stored once: one row each, all of one attempt. */
  async function expectStoredOnce(trialId: string) {
    const { rows } = await db.query<{ storage_key: string }>(
      'select storage_key from trial_results where trial_id = $1 and storage_key is not null',
      [trialId],
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.storage_key)).size).toBe(rows.length);
    expect(new Set(rows.map((row) => row.storage_key.split('/results/')[1].split('/')[0])).size).toBe(1);
    return rows;
  }
  /** …and in the bucket, those objects and no other. */
  async function expectStoredOnceInBucket(trialId: string): Promise<void> {
    const rows = await expectStoredOnce(trialId);
    // Polled: s3rver answers a listing with InternalError while an object in it is being removed.
    await expect
      .poll(async () => (await s3.keys(bucket)).filter((key) => key.includes(`/trials/${trialId}/results/`)))
      .toEqual(rows.map((row) => `files/${row.storage_key}`).sort());
  }

  beforeAll(async () => {
    if (!postgres) return;
    ensureBuilt();
    scratch = mkdtempSync(join(tmpdir(), 'kinetrace-scale-out-'));
    boards = await makeBoardVideos(join(scratch, 'boards'), 2);
    s3 = await startS3Server();
    const made = await s3.newBucket();
    bucket = made.bucket;
    database = await scratchDatabase('postgres', 'kinetrace_scale_out');
    db = new pg.Client({ connectionString: databaseUrl() });
    await db.connect();
    const env = {
      ...made.env,
      DATABASE_URL: databaseUrl(),
      WORKERS: 'remote',
      WORKER_LEASE_TIMEOUT_S: String(LEASE_TIMEOUT_S),
    };
    // One after the other: the first migrates the new database.
    for (let index = 0; index < 2; index++) {
      dataDirs.push(mkdtempSync(join(tmpdir(), `kinetrace-server-${index}-`)));
      tmpDirs.push(join(scratch, `tmp-${index}`));
      mkdirSync(tmpDirs[index]);
      servers.push(
        spawnServer({ dataDir: dataDirs[index], port: await freePort(), env: { ...env, TMPDIR: tmpDirs[index] } }),
      );
      await servers[index].ready();
    }
    const tokens = await Promise.all([1, 2, 3].map((number) => newToken(`gpu-box-${number}`)));
    // Two workers ask the first server for jobs, one the second.
    for (const [index, token] of tokens.entries())
      workers.push(startWorker(servers[index % 2].baseUrl, token, { poseThreads: 1 }));
    owner = await verifiedUser(overHttp(servers[0], dataDirs[0]));

    const subject = await api<Subject>(servers[0], '/subjects/', { json: DEMO_SUBJECT });
    keypointSession = await newSession(servers[0], 'settings_pose_model=openpose&settings_scaling_setup=any_pose');
    await api(servers[0], `/sessions/${keypointSession}/set_subject/?subject_id=${subject.id}`);
    const calibration = new FormData();
    calibration.append('file', new Blob([new Uint8Array(readFileSync(referencePath(POSE2SIM_QCA)))]), 'Calib.qca.txt');
    await api(servers[0], `/sessions/${keypointSession}/import-calibration/`, { form: calibration });
  }, 180_000);
  afterAll(async () => {
    for (const worker of workers) worker.child.kill('SIGKILL');
    for (const server of servers) await server.kill();
    await db?.end();
    await database?.dropDatabase();
    await s3?.close();
    for (const folder of [scratch, ...dataDirs]) if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it.skipIf(!postgres)(
    'six trials submitted through both servers end done, each result stored once, in the bucket only, readable through either server',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const [first, second] = servers;
      const boardSession = await newSession(second, DEMO_BOARD_QUERY);
      const submitted = [
        // Through the first server: the keypoint session's neutral and a movement, and the phones' board videos.
        await importTrial(first, keypointSession, await keypointsForm('neutral', KEYPOINT_TRIALS.neutral)),
        await importTrial(first, keypointSession, await keypointsForm('balancing', KEYPOINT_TRIALS.balancing)),
        await phoneCalibration(first, 'phone-first'),
        // Through the second: another movement of the same session, board videos imported, and other phones'.
        await importTrial(second, keypointSession, await keypointsForm('balancing_again', KEYPOINT_TRIALS.balancing)),
        await importTrial(second, boardSession, importForm('calibration', boards)),
        await phoneCalibration(second, 'phone-second'),
      ];
      // Each watched from the start: how it first showed done, and how it finished.
      const watched = await Promise.all(
        submitted.map(async (trialId) => ({
          atDone: await waitFor(trialId, ended),
          trial: await waitFor(trialId, finished),
        })),
      );
      const trials = watched.map(({ trial }) => trial);
      for (const trial of trials) expectDone(trial);
      // Issue 24: a movement is done before its synchronised videos exist, which its worker adds after (lease kept).
      for (const { atDone, trial } of watched.filter(({ trial }) => trial.name.startsWith('balancing'))) {
        expect(atDone.meta.follow_up, trial.name).toMatchObject({ stage: 'sync_videos', status: 'running' });
        expect(atDone.results.map((result) => result.tag)).not.toContain(RESULT_TAGS.videoSync);
        expect(atDone.results.map((result) => result.tag)).toContain(RESULT_TAGS.ikResults);
        expect(trial.meta.follow_up).toBeUndefined();
        expect(trial.results.filter((result) => result.tag === RESULT_TAGS.videoSync)).toHaveLength(
          trial.videos.length,
        );
      }

      // Workers asking either server ran them; the servers ran no pipeline and kept no file of their own.
      const leasedBy = (trialId: string) =>
        workers.findIndex((worker) => worker.output().includes(`Trial ${trialId} (`));
      expect(submitted.map(leasedBy)).not.toContain(-1);
      expect(new Set(submitted.map(leasedBy)).size).toBeGreaterThan(1);
      for (const dataDir of dataDirs)
        for (const folder of ['files', 'uploads', 'work'])
          expect(existsSync(join(dataDir, folder)), folder).toBe(false);

      const calibrations = trials.filter((trial) => trial.name === 'calibration');
      for (const trial of calibrations) {
        const tags = trial.results.map((result) => result.tag);
        expect(tags.filter((tag) => tag === RESULT_TAGS.cameraParameters)).toHaveLength(2);
        expect(tags.filter((tag) => tag === RESULT_TAGS.calibrationImage)).toHaveLength(2);
      }
      const movements = trials.filter((trial) => trial.name.startsWith('balancing'));
      for (const trial of movements) expect(trial.results.map((result) => result.tag)).toContain(RESULT_TAGS.ikResults);

      for (const trial of trials) {
        await expectStoredOnceInBucket(trial.id);
        const videos = (await s3.keys(bucket)).filter((key) => key.includes(`/trials/${trial.id}/videos/`));
        expect(videos).toHaveLength(trial.videos.length);

        // Every result the same through either server.
        for (const result of trial.results.filter((result) => result.media)) {
          const [viaFirst, viaSecond] = await Promise.all(
            servers.map(async (server) => {
              const served = await fetch(onTestServer(server.baseUrl, result.media!));
              expect(served.status, `${trial.name} ${result.tag} on ${server.baseUrl}`).toBe(200);
              return Buffer.from(await served.arrayBuffer());
            }),
          );
          expect(viaFirst.length).toBeGreaterThan(0);
          expect(viaFirst.equals(viaSecond), `${trial.name} ${result.tag}`).toBe(true);
        }
      }
    },
  );

  it.skipIf(!postgres)(
    'a worker killed mid-trial loses its lease; another worker finishes the trial, done once; SIGTERM stops a worker',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const trialId = await importTrial(
        servers[1],
        keypointSession,
        await keypointsForm('balancing_killed', KEYPOINT_TRIALS.balancing),
      );
      const holding = () => workers.find((worker) => worker.output().includes(`Trial ${trialId} (movement): leased`));
      await expect.poll(holding, { timeout: TRIAL_TIMEOUT_MS, interval: 100 }).toBeDefined();
      const holder = holding()!;
      expect((await api<Trial>(servers[0], `/trials/${trialId}/`)).status).toBe('processing');
      holder.child.kill('SIGKILL');
      await holder.exited;

      const done = await waitFor(trialId, finished);
      expectDone(done);
      const finisher = workers.find((worker) => worker !== holder && worker.output().includes(`Trial ${trialId} (`));
      expect(finisher).toBeDefined();
      // One set of results, from one attempt; the queue's job completed once, after the killed worker's attempt.
      await expectStoredOnceInBucket(trialId);
      const jobs = await db.query<{ state: string; retry_count: number }>(
        `select state, retry_count from pgboss.job where name = 'process-trial' and data->>'trialId' = $1`,
        [trialId],
      );
      expect(jobs.rows, JSON.stringify(jobs.rows)).toHaveLength(1);
      expect(jobs.rows[0].state).toBe('completed');
      expect(jobs.rows[0].retry_count).toBeGreaterThanOrEqual(1);

      finisher!.child.kill('SIGTERM');
      expect(await finisher!.exited).toBe(0);
    },
  );

  it.skipIf(!postgres)('a worker with a revoked or wrong token stops at once with a clear message', async () => {
    const revoked = await newToken('gpu-box-4');
    const revoking = await workerToken(databaseUrl(), 'revoke', '--name', 'gpu-box-4');
    expect(revoking.code, revoking.output).toBe(0);
    for (const token of [revoked, 'kwt_not-a-token']) {
      const worker = startWorker(servers[0].baseUrl, token, { poseThreads: 1 });
      workers.push(worker);
      expect(await worker.exited).toBe(3);
      expect(worker.output()).toContain(workerMessages.tokenRefused);
    }
    const listed = await workerToken(databaseUrl(), 'list');
    expect(listed.output).toMatch(/gpu-box-4\s+revoked/);
    expect(listed.output).toMatch(/gpu-box-1\s+live\s+\S+Z\s+-/);
  });

  // Last: the second server stays dead.
  it.skipIf(!postgres)(
    'a server killed mid-upload: the phone resumes against the other server from the bytes it had sent, and the video arrives whole',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const [survivor, killed] = servers;
      // A worker on the surviving server (the worker-kill case stopped two of the three, on either server).
      const starting = newToken('gpu-box-5').then((token) =>
        workers.push(startWorker(survivor.baseUrl, token, { poseThreads: 1 })),
      );
      const { trialId, phones, pairingToken } = await phonesRecordBoard(killed, 'phone-cut');
      const videos = boards.map((board) => readFileSync(board.path));
      expect((await phones[0].upload(trialId, videos[0])).status).toBe(204);

      // The other phone sends a third of its video, and is sending the next third when its server is killed:
      // the server holds the first third (the upload's tail, read from the bucket) and some of the next in a file.
      const [phone, video] = [phones[1], videos[1]];
      const third = Math.floor(video.length / 3);
      const created = await phone.createUpload(trialId, video.length);
      expect(created.status, created.body).toBe(201);
      expect((await phone.send(created.location!, video.subarray(0, third), 0)).status).toBe(204);
      const held = heldPatch(created.location!, pairingToken, video.subarray(third, 2 * third), third);
      const killedTmp = tmpDirs[1];
      await expect
        .poll(() => readdirSync(killedTmp).some((name) => statSync(join(killedTmp, name)).size > third), {
          timeout: 30_000,
        })
        .toBe(true);
      await killed.kill();
      held.end();

      // The phone asks the other server (once the killed server's upload lock lapses, 10 s): the third whose
      // PATCH ended is in the bucket; the bytes of the cut PATCH were not yet a part, and are sent again.
      const resumeUrl = `${survivor.baseUrl}${new URL(created.location!).pathname}`;
      const offset = await phone.offset(resumeUrl);
      expect(offset).toBeGreaterThanOrEqual(third);
      expect(offset).toBeLessThan(video.length);
      expect((await phone.send(resumeUrl, video.subarray(offset), offset)).status).toBe(204);

      await starting;
      const trial = await waitFor(trialId, ended);
      expectDone(trial);
      const uploaded = trial.videos.find((stored) => stored.device_id === phone.deviceId);
      const served = await fetch(onTestServer(survivor.baseUrl, uploaded!.video!));
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(video)).toBe(true);
    },
  );
});
