import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import {
  processingMessages,
  RESULT_TAGS,
  workerMessages,
  type Lease,
  type Session,
  type Subject,
  type Trial,
  type TrialInputsManifest,
} from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { placeKeypoints } from '@kinetrace/processing/keypoints-files';
import { inputsOf } from '@kinetrace/processing/trial-manifest';
import { createProcessingRepository } from '../src/processing/processing-repository.ts';
import { createServerTrialIO } from '../src/processing/server-trial-io.ts';
import { workerTokenCommand } from '../src/processing/worker-token-cli.ts';
import { createWorkerTokensRepository } from '../src/processing/worker-tokens-repository.ts';
import { createSessionsRepository } from '../src/repositories/sessions-repository.ts';
import { createSubjectsRepository } from '../src/repositories/subjects-repository.ts';
import { createTrialsRepository } from '../src/repositories/trials-repository.ts';
import { trialFilesPrefix } from '../src/services/storage-keys.ts';
import { DEMO_SUBJECT, importForm, importTrial, type TrialVideos } from './support/processing-fixtures.ts';
import { testCamera } from './support/test-camera.ts';
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

  it('gives a worker the 2D keypoints imported with a trial (or sent by a phone, marked so) by signed links to their files, laid out as in-process', async () => {
    // A session with its subject and an imported calibration of cam01 and cam02.
    const headers = authHeader(owner.token);
    const session = ((await userCall('GET', '/sessions/new/')).json() as Session[])[0];
    const subject = (
      await test.call({ method: 'POST', url: '/api/subjects/', headers, payload: DEMO_SUBJECT })
    ).json() as Subject;
    expect((await userCall('GET', `/sessions/${session.id}/set_subject/?subject_id=${subject.id}`)).statusCode).toBe(
      200,
    );
    // Its calibration of cam01 and cam02, stored as an imported one is (the import's parser threads are slow to start).
    const db = test.backends.database.db;
    const trials = createTrialsRepository(db);
    const calibration = await trials.insert({ sessionId: session.id, name: 'calibration', status: 'done', meta: {} });
    for (const [index, name] of ['cam01', 'cam02'].entries()) {
      const camera = testCamera(name, index, { width: 320, height: 240 });
      const storageKey = `${trialFilesPrefix(session.id, calibration.id)}/results/${name}.json`;
      await test.backends.files.put(storageKey, Buffer.from(writeKinetraceCameras([camera], { kind: 'imported' })));
      const meta = { device_id: name, camera_name: name };
      await trials.insertResult({ trialId: calibration.id, tag: RESULT_TAGS.cameraParameters, storageKey, meta });
    }

    // Its neutral, cam01's keypoints one Kinetrace file, cam02's OpenPose files (one per frame of the clip).
    const frames = 6;
    const kinetraceFile = JSON.stringify({
      format: 'kinetrace-keypoints-2d',
      version: 1,
      keypointNames: ['nose'],
      imageSize: { width: 320, height: 240 },
      frames: Array.from({ length: frames }, (_, frame) => [frame, 120, 0.9]),
    });
    const openPoseFiles = Array.from({ length: frames }, (_, frame) => ({
      name: `cam02_${String(frame).padStart(12, '0')}_keypoints.json`,
      text: JSON.stringify({ people: [{ pose_keypoints_2d: Array.from({ length: 17 * 3 }, () => frame) }] }),
    }));
    const shortClip = makeTestVideo(videoDir, 'short-clip', frames / 30);
    const form = importForm('neutral', [
      { name: 'cam01.mp4', path: shortClip },
      { name: 'cam02.mp4', path: shortClip },
    ]);
    form.append('keypoint_set', 'coco17');
    form.append('keypoints', new Blob([kinetraceFile]), 'cam01.json');
    // Out of frame order: the import puts them in it.
    for (const file of [...openPoseFiles].reverse()) form.append('keypoints', new Blob([file.text]), file.name);
    const imported = await test.call({
      method: 'POST',
      url: `/api/sessions/${session.id}/import/`,
      headers,
      payload: form,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const trialId = (imported.json() as Trial).id;
    // cam01's stored as a phone's are (video-intake.ts): the worker's engine is told to check them.
    const [cam01Video] = await trials.videosOf(trialId);
    await db
      .update(schema.trialVideos)
      .set({
        parameters: {
          ...cam01Video.parameters,
          keypoints: { ...(cam01Video.parameters.keypoints as object), origin: 'phone' },
        },
      })
      .where(eq(schema.trialVideos.id, cam01Video.id));

    let leased = await lease('gpu-box-1');
    while (leased.trial_id !== trialId) leased = await lease('gpu-box-1');
    expect(leased.kind).toBe('neutral');
    // Another worker gets no manifest of this lease.
    expect((await call('gpu-box-2', 'GET', `/leases/${leased.id}/inputs/`)).statusCode).toBe(410);
    const answer = await call('gpu-box-1', 'GET', `/leases/${leased.id}/inputs/`);
    expect(answer.statusCode, answer.body).toBe(200);
    const manifest = answer.json() as TrialInputsManifest;
    const [cam01, cam02] = manifest.videos.map((video) => video.keypoints);
    expect(cam01).toMatchObject({
      layout: 'kinetrace',
      keypointSet: 'coco17',
      fromPhone: true,
      files: [{ fileName: expect.any(String) }],
    });
    expect(cam02).toMatchObject({ layout: 'openpose', keypointSet: 'coco17' });
    expect(cam02!.files).toHaveLength(frames);

    const get = (link: string) => {
      const url = new URL(link, 'http://kinetrace.test');
      return test.call({ method: 'GET', url: `${url.pathname}${url.search}` });
    };
    // Heart-beating as a worker does: a loaded machine can take longer than the short lease timeout over the files.
    const heartbeat = () => call('gpu-box-1', 'POST', `/leases/${leased.id}/heartbeat/`, { stage: 'pose', percent: 0 });
    // Each link gives its own file: the Kinetrace file, and the OpenPose files in frame order.
    expect((await get(cam01!.files[0].url)).body).toBe(kinetraceFile);
    for (const [frame, file] of cam02!.files.entries()) {
      await heartbeat();
      expect((await get(file.url)).body).toBe(openPoseFiles[frame].text);
    }
    // A link bent to another file, video or lease is refused; so is one past its expiry.
    const link = new URL(cam02!.files[3].url, 'http://kinetrace.test');
    for (const pathname of [
      link.pathname.replace('/keypoints/3/', '/keypoints/4/'),
      link.pathname.replace('/videos/1/', '/videos/0/'),
      link.pathname.replace(trialId, calibration.id),
      link.pathname.replace('/keypoints/3/', '/'),
    ])
      expect((await get(`${pathname}${link.search}`)).statusCode, pathname).toBe(403);
    const expired = new URLSearchParams(link.search);
    expired.set('expires', String(Date.now() - 1));
    expect((await get(`${link.pathname}?${expired}`)).statusCode).toBe(403);

    // A worker's work folder, its inputs by inputsOf: the same inputs and files as the in-process runner's.
    const workDir = mkdtempSync(join(tmpdir(), 'kinetrace-worker-inputs-'));
    const download = async (url: string, path: string) => {
      await heartbeat();
      const answer = await get(url);
      expect(answer.statusCode, url).toBe(200);
      writeFileSync(path, answer.rawPayload);
    };
    try {
      for (const video of manifest.videos) {
        await download(video.url, join(workDir, video.fileName));
        if (video.keypoints) await placeKeypoints(workDir, video.keypoints, (file, path) => download(file.url, path));
      }
      const remote = inputsOf(manifest, workDir, test.dataDir);
      const filesOf = (dir: string) =>
        (readdirSync(dir, { recursive: true }) as string[])
          .filter((path) => statSync(join(dir, path)).isFile())
          .sort()
          .map(
            (path) =>
              `${path} ${createHash('sha256')
                .update(readFileSync(join(dir, path)))
                .digest('hex')}`,
          );
      const downloaded = filesOf(workDir);
      rmSync(workDir, { recursive: true });

      const inProcess = await createServerTrialIO(
        {
          trials,
          subjects: createSubjectsRepository(db),
          files: test.backends.files,
          repository: createProcessingRepository(db),
          installDir: test.dataDir,
          logFailure: () => undefined,
        },
        {
          id: leased.id.slice(trialId.length + 1),
          trial: (await trials.findById(trialId))!,
          session: (await createSessionsRepository(db).findById(session.id))!,
          progress: { stage: 'pose', percent: 0, started_at: new Date().toISOString() },
        },
      ).readInputs(workDir);
      expect(remote).toEqual(inProcess);
      expect(remote.kind === 'neutral' && remote.videos.map((video) => video.keypoints)).toEqual([
        { path: join(workDir, cam01!.name), keypointSet: 'coco17', fromPhone: true },
        { path: join(workDir, cam02!.name), keypointSet: 'coco17' },
      ]);
      expect(filesOf(workDir)).toEqual(downloaded);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }

    // The lease over, its links are too.
    expect(
      (await call('gpu-box-1', 'POST', `/leases/${leased.id}/fail/`, { kind: 'user', message: 'Stopped' })).statusCode,
    ).toBe(200);
    expect((await get(cam01!.files[0].url)).statusCode).toBe(410);
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

  it('keeps a lease past done for its follow-up (issue 24): done with its results at once, the follow-up’s progress, then its results added; a silent follow-up leaves the trial done and says so', async () => {
    const leaseOf = async (trialId: string) => {
      let leased = await lease('gpu-box-1');
      while (leased.trial_id !== trialId) leased = await lease('gpu-box-1');
      return leased;
    };
    const trialOf = async (trialId: string) => (await userCall('GET', `/trials/${trialId}/`)).json() as Trial;
    const upload = (leased: Lease, tag: string, name: string) =>
      call(
        'gpu-box-1',
        'PUT',
        `/leases/${leased.id}/results/?tag=${tag}&name=${name}&camera_name=cam01`,
        `${tag} bytes`,
        'application/octet-stream',
      );
    const image = { tag: RESULT_TAGS.calibrationImage, name: 'cam01.jpg', camera_name: 'cam01' };
    const video = { tag: RESULT_TAGS.videoSync, name: 'cam01_sync.mp4', camera_name: 'cam01' };

    const trialId = await queuedCalibration();
    const leased = await leaseOf(trialId);
    expect((await upload(leased, image.tag, image.name)).statusCode).toBe(200);
    const completed = await call('gpu-box-1', 'POST', `/leases/${leased.id}/complete/`, {
      results: [image],
      follow_up: 'sync_videos',
    });
    expect(completed.statusCode, completed.body).toBe(200);
    const done = await trialOf(trialId);
    expect(done.status).toBe('done');
    expect(done.meta.progress).toBeUndefined();
    expect(done.meta.follow_up).toMatchObject({ stage: 'sync_videos', status: 'running', percent: 0 });
    expect(done.results.map((result) => result.tag)).toEqual([RESULT_TAGS.calibrationImage]);
    // The session's download holds what exists, and says where the videos will be that they are being prepared.
    const pending = (await userCall('GET', `/sessions/${done.session}/download/`)).rawPayload.toString('latin1');
    expect(pending).toContain('CalibrationImages/');
    expect(pending).toContain('VisualizerVideos/calibration/NOT_READY.txt');

    // The heartbeat carries the follow-up's progress now; the processing's is over.
    const beat = (body: object) => call('gpu-box-1', 'POST', `/leases/${leased.id}/heartbeat/`, body);
    expect((await beat({ follow_up: 'sync_videos', percent: 40 })).statusCode).toBe(200);
    expect((await trialOf(trialId)).meta.follow_up).toMatchObject({ status: 'running', percent: 40 });
    expect((await beat({ stage: 'outputs', percent: 99 })).statusCode).toBe(410);
    expect((await beat({ follow_up: 'sync_videos', percent: 40, stage: 'outputs' })).statusCode).toBe(400);

    expect((await upload(leased, video.tag, video.name)).statusCode).toBe(200);
    const added = await call('gpu-box-1', 'POST', `/leases/${leased.id}/add-results/`, { results: [video] });
    expect(added.statusCode, added.body).toBe(200);
    const ready = await trialOf(trialId);
    expect(ready.status).toBe('done');
    expect(ready.meta.follow_up).toBeUndefined();
    expect(ready.results.map((result) => result.tag).sort()).toEqual([
      RESULT_TAGS.calibrationImage,
      RESULT_TAGS.videoSync,
    ]);
    const complete = (await userCall('GET', `/sessions/${done.session}/download/`)).rawPayload.toString('latin1');
    expect(complete).not.toContain('NOT_READY.txt');
    // The follow-up over, the lease is too.
    expect((await beat({ follow_up: 'sync_videos', percent: 50 })).statusCode).toBe(410);

    // A worker that stops during its follow-up: once its lease lapses, the trial is still done, without the videos, saying so.
    const silentId = await queuedCalibration();
    const silent = await leaseOf(silentId);
    expect((await upload(silent, image.tag, image.name)).statusCode).toBe(200);
    expect(
      (
        await call('gpu-box-1', 'POST', `/leases/${silent.id}/complete/`, {
          results: [image],
          follow_up: 'sync_videos',
        })
      ).statusCode,
    ).toBe(200);
    await test.backends.database.db
      .update(schema.trials)
      .set({ updatedAt: sql`now() - interval '1 hour'` })
      .where(eq(schema.trials.id, silentId));
    await expect
      .poll(async () => (await trialOf(silentId)).meta.follow_up, { timeout: 10 * LEASE_TIMEOUT_S * 1000 })
      .toMatchObject({ status: 'failed', error_msg: processingMessages.syncVideosInterrupted });
    const given = await trialOf(silentId);
    expect(given.status).toBe('done');
    expect(given.results.map((result) => result.tag)).toEqual([RESULT_TAGS.calibrationImage]);
    expect((await upload(silent, video.tag, video.name)).statusCode).toBe(410);
    expect(
      (await call('gpu-box-1', 'POST', `/leases/${silent.id}/add-results/`, { results: [video] })).statusCode,
    ).toBe(410);

    // A follow-up the worker reports failed: done still, with the message where the videos would be.
    const failingId = await queuedCalibration();
    const failing = await leaseOf(failingId);
    expect((await upload(failing, image.tag, image.name)).statusCode).toBe(200);
    await call('gpu-box-1', 'POST', `/leases/${failing.id}/complete/`, { results: [image], follow_up: 'sync_videos' });
    const failed = await call('gpu-box-1', 'POST', `/leases/${failing.id}/follow-up-failed/`, {
      kind: 'internal',
      error: 'ffmpeg exited with code 1',
    });
    expect(failed.statusCode, failed.body).toBe(200);
    const reported = await trialOf(failingId);
    expect(reported.status).toBe('done');
    expect(reported.meta.follow_up).toMatchObject({ status: 'failed', error_msg: processingMessages.syncVideosFailed });

    // A worker that failed its attempt after its complete went through (the answer lost): done still, never an error.
    const lostId = await queuedCalibration();
    const lost = await leaseOf(lostId);
    expect((await upload(lost, image.tag, image.name)).statusCode).toBe(200);
    await call('gpu-box-1', 'POST', `/leases/${lost.id}/complete/`, { results: [image], follow_up: 'sync_videos' });
    const failedAfter = await call('gpu-box-1', 'POST', `/leases/${lost.id}/fail/`, {
      kind: 'internal',
      error: 'fetch failed',
    });
    expect(failedAfter.statusCode, failedAfter.body).toBe(200);
    const kept = await trialOf(lostId);
    expect([kept.status, kept.meta.error_msg]).toEqual(['done', undefined]);
    expect(kept.meta.follow_up).toMatchObject({ status: 'failed' });
    expect(kept.results.map((result) => result.tag)).toEqual([RESULT_TAGS.calibrationImage]);
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
