import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIDEO_KEYPOINTS } from '@kinetrace/mocap/pose/keypoints';
import { packagedModelsDir } from '@kinetrace/mocap/pose/packaged-models';
import { DEFAULT_POSE_MODEL } from '@kinetrace/mocap/pose/pose-model';
import {
  capturePaths,
  estimateClockOffsetMs,
  messages,
  PHONE_KEYPOINTS_UPLOAD,
  phoneKeypointsMessages,
  type ClockSample,
  type RecordingStatus,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { authHeader, onTestServer, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { newSessionWithPhones, tusPatchHeaders } from './support/fake-phone.ts';
import { makeTestVideo } from './support/videos.ts';

describe('capture: pairing, recording and uploads', () => {
  let test: TestApp;
  let baseUrl: string;
  let owner: Awaited<ReturnType<typeof verifiedUser>>;
  let videoDir: string;
  let videoA: Buffer;
  let videoB: Buffer;

  beforeAll(async () => {
    test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
    baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    owner = await verifiedUser(test);
    videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-videos-'));
    videoA = readFileSync(makeTestVideo(videoDir, 'a', 1));
    videoB = readFileSync(makeTestVideo(videoDir, 'b', 1, 'webm'));
  });
  afterAll(async () => {
    await test?.close();
    rmSync(videoDir, { recursive: true, force: true });
  });

  const api = (path: string) => test.call({ method: 'GET', url: `/api${path}`, headers: authHeader(owner.token) });
  const pairedSession = (phones = 2) => newSessionWithPhones(test, baseUrl, owner.token, phones);
  const status = async (sessionId: string) => (await api(`/sessions/${sessionId}/status/`)).json() as RecordingStatus;

  it('pairs phones through the QR code token and counts the connected ones', async () => {
    const { session, phones, pairingToken } = await pairedSession(2);
    expect(session.qrcode).toMatch(/^data:image\/png;base64,/);
    const state = await phones[0].state();
    expect(state).toMatchObject({
      session_id: session.id,
      recording: null,
      n_cameras_connected: 2,
      uploads_expected: [],
    });
    expect((await status(session.id)).n_cameras_connected).toBe(2);
    const stranger = await fetch(`${baseUrl}/api/capture/not-a-real-token-at-all/connect/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        device_id: 'abcdefgh',
        capabilities: { model: 'x', max_width: 1, max_height: 1, framerates: [], mime_types: [] },
      }),
    });
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toEqual({ detail: messages.pairingInvalid });
    // A phone that stops polling is no longer counted after 5 s.
    test.clock.offsetMs = 6_000;
    try {
      await phones[0].state();
      expect((await status(session.id)).n_cameras_connected).toBe(1);
    } finally {
      test.clock.offsetMs = 0;
    }
    expect(pairingToken.length).toBeGreaterThan(20);
  });

  it('serves the pose model files the phones run, from the npm package, cacheable, and no other file of the package', async () => {
    const modelFile = (name: string) => test.call({ method: 'GET', url: `${capturePaths.poseModels}${name}` });
    const modelJson = await modelFile(`${DEFAULT_POSE_MODEL}.json`);
    expect(modelJson.statusCode).toBe(200);
    expect(modelJson.headers['cache-control']).toBe('public, max-age=86400');
    const packaged = join(packagedModelsDir(), `${DEFAULT_POSE_MODEL}.json`);
    expect(modelJson.body).toBe(readFileSync(packaged, 'utf8'));
    const { weightsManifest } = modelJson.json() as { weightsManifest: { paths: string[] }[] };
    for (const weights of weightsManifest.flatMap((group) => group.paths))
      expect((await modelFile(weights)).statusCode).toBe(200);
    expect((await modelFile('blazepose-detector.json')).statusCode).toBe(200);
    // The package ships some 80 models; the phones load only the engine's.
    for (const other of ['blazeface.json', 'movenet-lightning.json', '%2E%2E%2Fpackage.json'])
      expect({ other, status: (await modelFile(other)).statusCode }).toEqual({ other, status: 404 });
  });

  it('records with two phones: a common start time, stop, both uploads, then processing, which finds no board in a test pattern', async () => {
    const { session, phones } = await pairedSession(2);
    const recorded = await api(`/sessions/${session.id}/record/?name=calibration`);
    expect(recorded.statusCode).toBe(200);
    const trialId = (recorded.json() as { id: string }).id;
    expect(await status(session.id)).toMatchObject({ status: 'recording', trial_id: trialId, n_videos_expected: 2 });

    const orders = await Promise.all(phones.map((phone) => phone.state()));
    for (const order of orders) {
      expect(order.recording).toMatchObject({ trial_id: trialId, trial_name: 'calibration', framerate: 30 });
      expect(order.recording!.start_at_ms).toBeGreaterThan(order.server_time_ms);
    }
    expect(orders[0].recording!.start_at_ms).toBe(orders[1].recording!.start_at_ms);
    expect((await api(`/sessions/${session.id}/record/?name=calibration`)).statusCode).toBe(409);

    expect((await api(`/sessions/${session.id}/stop/`)).json()).toEqual({ status: 'uploading' });
    expect(await status(session.id)).toMatchObject({ status: 'processing', n_videos_uploaded: 0 });
    expect((await phones[0].state()).uploads_expected).toEqual([{ trial_id: trialId, trial_name: 'calibration' }]);

    expect((await phones[0].upload(trialId, videoA)).status).toBe(204);
    expect(await status(session.id)).toMatchObject({ status: 'processing', n_videos_uploaded: 1 });
    expect((await phones[0].upload(trialId, videoA)).status).toBe(410); // stored once
    expect((await phones[1].upload(trialId, videoB)).status).toBe(204);
    expect(await status(session.id)).toMatchObject({ status: 'ready', n_videos_uploaded: 2 });

    const trial = (await api(`/trials/${trialId}/`)).json() as Trial;
    expect(trial.videos.map((video) => video.device_id).sort()).toEqual(phones.map((phone) => phone.deviceId).sort());
    expect(trial.videos.find((video) => video.device_id === phones[1].deviceId)!.parameters).toMatchObject({
      codec: 'vp9',
      width: 320,
      height: 240,
    });
    const jobs = await test.backends.database.executeSql(`select data from pgboss.job where name = 'process-trial'`);
    expect(jobs.rows.map((row) => (row.data as { trialId: string }).trialId)).toContain(trialId);

    // Processed in-process: ffmpeg's test pattern has no checkerboard, and the message names the phone.
    let processed = trial;
    for (let polls = 0; processed.status !== 'done' && processed.status !== 'error' && polls < 600; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      processed = (await api(`/trials/${trialId}/`)).json() as Trial;
    }
    expect(processed.status).toBe('error');
    expect(String(processed.meta.error_msg)).toMatch(new RegExp(`${phones[0].deviceId}|${phones[1].deviceId}`));
    expect(processed.meta.progress).toBeUndefined();
    expect((await api(`/sessions/${session.id}/get_n_calibrated_cameras/`)).json()).toEqual({ data: 0 });
  });

  it('resumes an upload cut half-way: one intact video, byte-identical to the source', async () => {
    const { session, phones, pairingToken } = await pairedSession(2);
    const trialId = ((await api(`/sessions/${session.id}/record/?name=walk`)).json() as { id: string }).id;
    await api(`/sessions/${session.id}/stop/`);
    const created = await phones[0].createUpload(trialId, videoA.length);
    const half = Math.floor(videoA.length / 2);
    const controller = new AbortController();
    // The connection drops after half of the bytes: the body stream errors mid-way.
    const cut = new ReadableStream<Uint8Array>({
      start(stream) {
        stream.enqueue(videoA.subarray(0, half));
        setTimeout(() => controller.abort(), 200);
      },
    });
    await fetch(created.location!, {
      method: 'PATCH',
      headers: tusPatchHeaders(pairingToken, 0),
      body: cut,
      signal: controller.signal,
      duplex: 'half',
    } as RequestInit).catch(() => undefined);
    let offset = 0;
    for (let attempt = 0; attempt < 50 && offset === 0; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      offset = await phones[0].offset(created.location!);
    }
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(half);
    expect((await phones[0].send(created.location!, videoA.subarray(offset), offset)).status).toBe(204);

    const trial = (await api(`/trials/${trialId}/`)).json() as Trial;
    const stored = await fetch(onTestServer(baseUrl, trial.videos[0].video!));
    expect(Buffer.from(await stored.arrayBuffer()).equals(videoA)).toBe(true);
    expect(readdirSync(join(test.dataDir, 'uploads')).filter((name) => !name.endsWith('.json'))).toEqual([]);
  });

  it('refuses a file that is not a video and a truncated video with a message on the trial, and the session stays usable', async () => {
    const { session, phones } = await pairedSession(2);
    for (const [name, bytes] of [
      ['notes', Buffer.from('these are not the frames you are looking for')],
      ['truncated', videoA.subarray(0, Math.floor(videoA.length / 3))],
    ] as const) {
      const trialId = ((await api(`/sessions/${session.id}/record/?name=${name}`)).json() as { id: string }).id;
      await api(`/sessions/${session.id}/stop/`);
      const refused = await phones[0].upload(trialId, bytes);
      expect(refused.status).toBe(422);
      const trial = (await api(`/trials/${trialId}/`)).json() as Trial;
      expect(trial.status).toBe('error');
      expect(String(trial.meta.error_msg)).toMatch(
        new RegExp(`^The video from camera ${phones[0].deviceId} could not be read`),
      );
      expect(trial.videos).toEqual([]);
    }
    const next = await api(`/sessions/${session.id}/record/?name=after_errors`);
    expect(next.statusCode).toBe(200);
    await api(`/sessions/${session.id}/cancel_trial/`);
  });

  it("a phone that disconnects mid-recording gives §8's message instead of waiting forever", async () => {
    const { session, phones } = await pairedSession(2);
    const trialId = ((await api(`/sessions/${session.id}/record/?name=lost_phone`)).json() as { id: string }).id;
    await api(`/sessions/${session.id}/stop/`);
    await phones[0].upload(trialId, videoA);
    test.clock.offsetMs = 20_000; // phone 1 has not been seen for 20 s; phone 0 keeps polling
    try {
      await phones[0].state();
      const state = await status(session.id);
      expect(state).toMatchObject({ status: 'ready', trial_status: 'error' });
      const trial = (await api(`/trials/${trialId}/`)).json() as Trial;
      expect(trial.meta.error_msg).toBe(messages.videosMissing(2, 1));
      expect((await api(`/sessions/${session.id}/record/?name=next_try`)).statusCode).toBe(400); // only one phone left
    } finally {
      test.clock.offsetMs = 0;
    }
  });

  it('stops by itself at the time limit, and a cancelled trial is dropped by the phones', async () => {
    const { session, phones } = await pairedSession(2);
    const trialId = ((await api(`/sessions/${session.id}/record/?name=long_one`)).json() as { id: string }).id;
    test.clock.offsetMs = 63_000;
    try {
      await Promise.all(phones.map((phone) => phone.state())); // both phones still polling
      expect(await status(session.id)).toMatchObject({ status: 'processing', trial_status: 'uploading' });
      expect(((await api(`/trials/${trialId}/`)).json() as Trial).meta).toMatchObject({ stopped_at_limit: true });
    } finally {
      test.clock.offsetMs = 0;
    }
    expect((await api(`/sessions/${session.id}/cancel_trial/`)).json()).toEqual({ status: 'ready' });
    expect((await phones[0].state()).cancelled_trial_ids).toContain(trialId);
    expect((await phones[1].upload(trialId, videoB)).status).toBe(410);
    expect((await status(session.id)).status).toBe('ready');
  });

  it("takes a phone's keypoints before its video where told to send them: the last one stored with the video; refused after it, invalid, too large or unwanted", async () => {
    const { session, phones } = await pairedSession(2);
    // Told at pairing, the phones load the pose model before the first trial.
    expect((await phones[0].connect()).body).toMatchObject({ phone_keypoints: true });
    const keypointsFile = (shiftPx: number, change: Record<string, unknown> = {}) =>
      Buffer.from(
        JSON.stringify({
          format: 'kinetrace-keypoints-2d',
          version: 1,
          keypointNames: [...VIDEO_KEYPOINTS],
          imageSize: { width: 320, height: 240 },
          timestampsS: [0, 0.04, 0.08],
          frames: [VIDEO_KEYPOINTS.flatMap((_, k) => [100 + k + shiftPx, 50 + k, 0.9]), null, null],
          producer: { model: 'BlazePose lite', backend: 'webgl', achievedHz: 25 },
          ...change,
        }),
      );
    const record = async (name: string) => {
      const trialId = ((await api(`/sessions/${session.id}/record/?name=${name}`)).json() as { id: string }).id;
      return { trialId, order: (await phones[0].state()).recording! };
    };

    // A calibration films a board: no keypoints asked for, none taken.
    const calibration = await record('calibration');
    expect(calibration.order.phone_keypoints).toBe(false);
    expect((await phones[0].upload(calibration.trialId, keypointsFile(0), 'keypoints')).status).toBe(410);
    await api(`/sessions/${session.id}/cancel_trial/`);

    const walk = await record('walk');
    expect(walk.order.phone_keypoints).toBe(true);
    await api(`/sessions/${session.id}/stop/`);
    const refusal = async (bytes: Buffer) => {
      const refused = await phones[0].upload(walk.trialId, bytes, 'keypoints');
      expect(refused.status, refused.body).toBe(400);
      return (JSON.parse(refused.body) as { keypoints: string[] }).keypoints[0];
    };
    expect(await refusal(Buffer.from('{"format": "kinetrace-keypoints-2d", '))).toBe(phoneKeypointsMessages.notJson);
    expect(await refusal(keypointsFile(0, { frames: [[1, 2, 0.5], null, null] }))).toMatch(
      /^"keypoints.json": frames\.0: /,
    );
    expect(await refusal(keypointsFile(0, { timestampsS: undefined }))).toMatch(/timestampsS/);
    expect((await phones[0].createUpload(walk.trialId, PHONE_KEYPOINTS_UPLOAD.maxBytes + 1, 'keypoints')).status).toBe(
      413,
    );
    expect((await phones[0].upload(walk.trialId, keypointsFile(0), 'keypoints')).status).toBe(204);
    expect((await phones[0].upload(walk.trialId, keypointsFile(7), 'keypoints')).status).toBe(204); // replaces the first
    expect(await status(session.id)).toMatchObject({ status: 'processing', n_videos_uploaded: 0 });
    expect((await phones[0].upload(walk.trialId, videoA)).status).toBe(204);
    expect((await phones[0].upload(walk.trialId, keypointsFile(0), 'keypoints')).status).toBe(410); // after the video

    const [video] = ((await api(`/trials/${walk.trialId}/`)).json() as Trial).videos;
    const stored = video.parameters.keypoints as { origin: string; keys: string[] };
    expect(stored).toMatchObject({ origin: 'phone', layout: 'kinetrace' });
    const kept = await test.backends.files.read(stored.keys[0]);
    const chunks: Buffer[] = [];
    for await (const chunk of kept!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(keypointsFile(7))).toBe(true);
    await api(`/sessions/${session.id}/cancel_trial/`);

    // The session's Advanced Settings turn them off.
    await api(`/sessions/${session.id}/set_metadata/?settings_phone_keypoints=off`);
    const offSession = await record('walk_again');
    expect(offSession.order.phone_keypoints).toBe(false);
    expect((await phones[0].upload(offSession.trialId, keypointsFile(0), 'keypoints')).status).toBe(410);
    await api(`/sessions/${session.id}/cancel_trial/`);
  });

  it("asks no phone for its keypoints where the operator turned them off (PHONE_KEYPOINTS=off), whatever the session's setting", async () => {
    const strict = await startTestApp('pglite', { LOG_LEVEL: 'warn', PHONE_KEYPOINTS: 'off' }, { runJobs: false });
    try {
      const url = (await strict.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
      const user = await verifiedUser(strict);
      const { session, phones } = await newSessionWithPhones(strict, url, user.token, 2);
      // Told at pairing, the phones do not load the pose model (about 12 MB) at all.
      expect((await phones[0].connect()).body).toMatchObject({ phone_keypoints: false });
      const call = (path: string) =>
        strict.call({ method: 'GET', url: `/api/sessions/${session.id}${path}`, headers: authHeader(user.token) });
      expect((await call('/get_session_settings/')).json()).toMatchObject({ phone_keypoints: false });
      await call('/set_metadata/?settings_phone_keypoints=on');
      const trialId = ((await call('/record/?name=walk')).json() as { id: string }).id;
      expect((await phones[0].state()).recording).toMatchObject({ trial_id: trialId, phone_keypoints: false });
      await call('/stop/');
      const refused = await phones[0].upload(trialId, Buffer.from('{}'), 'keypoints');
      expect(refused.status).toBe(410);
      expect(JSON.parse(refused.body)).toEqual({ detail: messages.phoneKeypointsNotWanted });
    } finally {
      await strict.close();
    }
  });

  it('estimates a phone clock offset within 50 ms of a known injected offset', async () => {
    const injectedMs = 3_217; // the phone's clock is this far behind the server's
    const phoneNow = () => Date.now() - injectedMs;
    const samples: ClockSample[] = [];
    for (let index = 0; index < 8; index++) {
      const sentAtLocalMs = phoneNow();
      const { server_time_ms } = (await (await fetch(`${baseUrl}/api/capture/time/`)).json()) as {
        server_time_ms: number;
      };
      samples.push({ sentAtLocalMs, serverTimeMs: server_time_ms, receivedAtLocalMs: phoneNow() });
    }
    const { offsetMs, uncertaintyMs } = estimateClockOffsetMs(samples);
    expect(Math.abs(offsetMs - injectedMs)).toBeLessThan(50);
    expect(uncertaintyMs).toBeLessThan(50);
  });

  it('imports existing videos, one per camera, into a trial handed to processing', async () => {
    const { session } = await pairedSession(0);
    const form = new FormData();
    form.append('name', 'lab_cameras');
    form.append('video', new Blob([new Uint8Array(videoA)]), 'left.mp4');
    form.append('video', new Blob([new Uint8Array(videoB)]), 'right.webm');
    const imported = await fetch(`${baseUrl}/api/sessions/${session.id}/import/`, {
      method: 'POST',
      headers: authHeader(owner.token),
      body: form,
    });
    expect(imported.status, await imported.clone().text()).toBe(200);
    expect(await imported.json()).toMatchObject({ name: 'lab_cameras', status: 'processing', videos: [{}, {}] });

    const bad = new FormData();
    bad.append('name', 'bad_import');
    bad.append('video', new Blob([new Uint8Array(videoA)]), 'left.mp4');
    bad.append('video', new Blob(['not a video']), 'right.mp4');
    const refused = await fetch(`${baseUrl}/api/sessions/${session.id}/import/`, {
      method: 'POST',
      headers: authHeader(owner.token),
      body: bad,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { video: string[] }).video[0]).toMatch(/could not be read/);
    const sessionAfter = (await api(`/sessions/${session.id}/`)).json() as Session;
    expect(sessionAfter.trials.find((trial) => trial.name === 'lab_cameras')!.videos).toHaveLength(2);
  });
});
