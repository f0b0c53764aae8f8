import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cameraMessages, importMessages, messages, type Session } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { createUploadParserThreads } from '../src/upload-parsing/upload-parser-thread.ts';
import { refusalMessage } from '../src/upload-parsing/upload-refusals.ts';
import { hostileFiles, hostileUpload, POLLUTED_KEYS, type Threat } from './support/hostile-files.ts';
import { multipart, type MultipartPart } from './support/multipart.ts';
import { sessionWithSubject, subjectBody } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import { testCamera } from './support/test-camera.ts';
import { authHeader, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import { makeTestVideo } from './support/videos.ts';

/** Server paths, stack frames, error class names and parsers' own phrases: what no answer to a user may show. */
const INTERNALS =
  /\/(tmp|work|root|home|var|usr)\/|node_modules|\.ts:\d+|\b\w*Error\b|at position|Invalid TOML|smol-toml|ffprobe|camera pickle|XML:/;

/** Issue 20, items 1, 2, 4 and 14: what the upload parsers let an outside probe do, each closed by a check here. */
describe('uploaded calibration and lens files: no pollution, no bombs, no frozen server, sane cameras', () => {
  let test: TestApp;
  let attacker: Record<string, string>;
  let attackerSession: string;
  let victim: Record<string, string>;
  let victimSession: Session;

  beforeAll(async () => {
    test = await startTestApp('pglite');
    attacker = authHeader((await verifiedUser(test)).token);
    attackerSession = (
      (await test.call({ method: 'GET', url: '/api/sessions/new/', headers: attacker })).json() as Session[]
    )[0].id;
    // Another user's public session, whose settings exist but hold no data-sharing choice (no neutral yet):
    // its results are published, but no video, since nobody asked the subject about videos.
    const victimToken = (await verifiedUser(test)).token;
    victim = authHeader(victimToken);
    ({ session: victimSession } = await sessionWithSubject(test, victimToken, { ...subjectBody, name: 'Victim' }));
    await test.call({
      method: 'GET',
      url: `/api/sessions/${victimSession.id}/set_metadata/?settings_framerate=60`,
      headers: victim,
    });
    await seedTrial(test, victimSession.id, {
      name: 'walk',
      videos: [
        { deviceId: 'phone-a', bytes: Buffer.from('video a') },
        { deviceId: 'phone-b', bytes: Buffer.from('video b') },
      ],
    });
    await test.call({
      method: 'PATCH',
      url: `/api/sessions/${victimSession.id}/`,
      headers: victim,
      payload: { public: true },
    });
  });

  afterAll(async () => {
    // Should the server regress, the pollution must not outlive this file's worker.
    for (const key of POLLUTED_KEYS) delete (Object.prototype as Record<string, unknown>)[key];
    await test?.close();
  });

  const upload = (url: string, parts: MultipartPart[], headers = attacker) => {
    const body = multipart(parts);
    return test.call({ method: 'POST', url, payload: body.payload, headers: { ...headers, ...body.headers } });
  };
  const importCalibration = (files: MultipartPart[]) =>
    upload(`/api/sessions/${attackerSession}/import-calibration/`, files);
  const videosSeenByVisitors = async () => {
    const response = await test.call({ method: 'GET', url: `/api/sessions/${victimSession.id}/` });
    expect(response.statusCode).toBe(200);
    return (response.json() as Session).trials.find((trial) => trial.name === 'walk')!.videos.length;
  };

  it("refuses a calibration .toml naming __proto__, and another user's public session still withholds the videos its subject never agreed to share", async () => {
    expect(await videosSeenByVisitors()).toBe(0);
    for (const toml of [
      '[__proto__]\ndata_sharing = "Share processed data and identified videos"\n',
      '[cam_1.__proto__]\npolluted = true\n',
      '["__proto__"]\ndata_sharing = "Share processed data and identified videos"\n',
    ]) {
      const response = await importCalibration([{ field: 'file', fileName: 'Calib.toml', bytes: toml }]);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ file: [importMessages.fileUnsafeName('Calib.toml')] });
    }
    expect(await videosSeenByVisitors()).toBe(0);
    const plain = {} as Record<string, unknown>;
    for (const key of POLLUTED_KEYS) expect(plain[key], `Object.prototype.${key}`).toBeUndefined();
    // The owner still sees the videos, and the server still answers.
    const own = (
      await test.call({ method: 'GET', url: `/api/sessions/${victimSession.id}/`, headers: victim })
    ).json() as Session;
    expect(own.trials.find((trial) => trial.name === 'walk')!.videos).toHaveLength(2);
  });

  it('refuses a 52-byte pickle bomb at once, naming the file, while other requests are answered', async () => {
    // PROTO 2, None, then 24 times DUP + TUPLE2: 2^24 leaves for a reader that copies shared references.
    const bomb = Buffer.from([0x80, 2, 0x4e, ...Array.from({ length: 24 }, () => [0x32, 0x86]).flat(), 0x2e]);
    expect(bomb).toHaveLength(52);
    const [response, ...others] = await Promise.all([
      importCalibration([{ field: 'file', fileName: 'cameraIntrinsicsExtrinsics.pickle', bytes: bomb }]),
      ...Array.from({ length: 5 }, () => test.call({ method: 'GET', url: '/api/instance/' })),
    ]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      file: [importMessages.calibrationFileUnreadable('cameraIntrinsicsExtrinsics.pickle', 'OpenCap')],
    });
    for (const other of others) expect(other.statusCode).toBe(200);
  });

  it('refuses a calibration or lens file larger than any calibration file before reading it, naming it, and keeps answering', async () => {
    // 19 MB of numbers in a camera .json: millions of values where a camera has 26 (2 MB kept the reader busy 2.7 s).
    const huge = `{"format": "kinetrace.cameras", "version": 1, "cameras": [${'0,'.repeat(9_500_000)}0]}`;
    const response = await importCalibration([{ field: 'file', fileName: 'cams.json', bytes: huge }]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ file: [importMessages.calibrationFileTooLarge('cams.json')] });
    const lens = await upload('/api/lens-calibrations/', [
      { field: 'device_model', value: 'Pixel 8' },
      { field: 'file', fileName: 'lens.json', bytes: huge.slice(0, 1_100_000) },
    ]);
    expect(lens.json()).toEqual({ file: [importMessages.calibrationFileTooLarge('lens.json')] });
    expect((await test.call({ method: 'GET', url: '/api/instance/' })).statusCode).toBe(200);
  });

  it("refuses hostile files of every kind and threat with a field-keyed 400 naming them, and leaves nothing for another user's request", async () => {
    // Each upload costs a parser thread's start (a second or two): here every picture, and for each other kind a
    // prototype key and one more threat (a different one per kind); the whole corpus goes through one thread below.
    const corpus = hostileFiles();
    const threats: Threat[] = ['bomb', 'deep nesting', 'huge array', 'huge number', 'unterminated'];
    const kinds = [...new Set(corpus.map((file) => file.kind))];
    const sample = kinds.flatMap((kind, index) => {
      const files = corpus.filter((file) => file.kind === kind);
      if (kind === 'profile picture') return files;
      const other = [...threats.slice(index), ...threats.slice(0, index)].find((threat) =>
        files.some((file) => file.threat === threat),
      );
      return [files.find((file) => file.threat === 'prototype key')!, files.find((file) => file.threat === other)!];
    });
    expect(new Set(sample.map((file) => file.threat)).size).toBe(6);
    const wrong: string[] = [];
    for (const file of sample) {
      const { url, field, parts } = hostileUpload(file, attackerSession);
      const response = await upload(url, parts);
      const answer = response.statusCode === 400 ? (response.json() as Record<string, unknown>) : {};
      const refusal = answer[field];
      const fieldKeyed =
        Object.keys(answer).length === 1 &&
        Array.isArray(refusal) &&
        refusal.length === 1 &&
        typeof refusal[0] === 'string' &&
        (field === 'profile_picture' || refusal[0].startsWith(`"${file.fileName}"`));
      if (!fieldKeyed || INTERNALS.test(response.body))
        wrong.push(`${file.kind}, ${file.label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
    // Nothing reached Object.prototype, and another user's public session still withholds its videos.
    const plain = {} as Record<string, unknown>;
    for (const key of POLLUTED_KEYS) expect(plain[key], `Object.prototype.${key}`).toBeUndefined();
    expect(await videosSeenByVisitors()).toBe(0);
    const calibrated = await test.call({
      method: 'GET',
      url: `/api/sessions/${attackerSession}/get_n_calibrated_cameras/`,
      headers: attacker,
    });
    expect(calibrated.json()).toEqual({ data: 0 });
    expect((await test.call({ method: 'GET', url: '/api/lens-calibrations/', headers: attacker })).json()).toEqual([]);
  }, 120_000);

  it('refuses every calibration and lens file of the corpus in the parser thread the server uses, naming it, without internals', async () => {
    const threads = createUploadParserThreads({ maxThreads: 1 });
    const folder = mkdtempSync(join(tmpdir(), 'kinetrace-hostile-'));
    const wrong: string[] = [];
    try {
      await threads.withThread('files', async (parse) => {
        for (const [index, file] of hostileFiles().entries()) {
          if (file.kind === 'profile picture') continue;
          const path = join(folder, String(index));
          writeFileSync(path, file.bytes);
          const unreadable = 'unreadable';
          const parsed =
            file.kind === 'lens .json'
              ? parse('lens-json', { path })
              : parse('camera-file', { path, fileName: `calibration${extname(file.fileName)}`, options: {} });
          const message = await parsed.then(
            () => 'accepted',
            (error: unknown) => refusalMessage(error, file.fileName, unreadable),
          );
          if (
            message === 'accepted' ||
            (message !== unreadable && !message.startsWith(`"${file.fileName}"`)) ||
            INTERNALS.test(message)
          )
            wrong.push(`${file.kind}, ${file.label}: ${message}`);
        }
      });
    } finally {
      await threads.close();
      rmSync(folder, { recursive: true, force: true });
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  }, 60_000);

  it('refuses a profile picture whose header says more than 16 megapixels, before anything decodes it', async () => {
    const big = hostileFiles().find((file) => file.label === 'a PNG of 60,000 x 60,000 pixels')!;
    const response = await upload('/api/update_profile_picture/', [
      { field: 'profile_picture', fileName: big.fileName, bytes: big.bytes },
    ]);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ profile_picture: [messages.pictureTooManyPixels(16)] });
  });

  it('refuses imported videos whose frames are larger than 8K, naming the camera, before anything decodes them', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'kinetrace-8k-'));
    try {
      const video = readFileSync(makeTestVideo(folder, 'huge', 0.1, 'mp4', 30, '8192x4352'));
      const response = await upload(`/api/sessions/${attackerSession}/import/`, [
        { field: 'name', value: 'calibration' },
        { field: 'video', fileName: 'cam1.mp4', bytes: video },
        { field: 'video', fileName: 'cam2.mp4', bytes: video },
      ]);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        video: [messages.videoUnreadable('cam1.mp4', messages.videoFramesTooLarge(8192, 4352))],
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses cameras no camera could be, in every format, saying which camera and what to fix, and stores nothing', async () => {
    const camera = (name: string) => testCamera(name, 0, { width: 1080, height: 1920 });
    const file = JSON.parse(writeKinetraceCameras([camera('cam1'), camera('cam2')]));
    file.cameras[0].imageSize = { width: '1e400', height: [7] };
    const html = `<script>alert(1)</script>${'x'.repeat(100_000)}`;
    const huge = JSON.parse(writeKinetraceCameras([camera('cam1'), camera('cam2')]));
    huge.cameras[1].intrinsics = [
      [1e308, 0, 1e308],
      [0, 1e308, 1e308],
      [0, 0, 1],
    ];
    const cases: [MultipartPart[], string][] = [
      [
        [{ field: 'file', fileName: 'cams.json', bytes: JSON.stringify(file) }],
        `camera "cam1": ${cameraMessages.imageSide('width')} ${cameraMessages.imageSide('height')}`,
      ],
      [
        [{ field: 'file', fileName: 'cams.json', bytes: writeKinetraceCameras([camera(html), camera('cam2')]) }],
        `camera 1: ${cameraMessages.name}`,
      ],
      [
        [{ field: 'file', fileName: 'cams.json', bytes: JSON.stringify(huge) }],
        `camera "cam2": ${cameraMessages.focalLength} ${cameraMessages.principalPoint}`,
      ],
    ];
    for (const [files, problem] of cases) {
      const response = await importCalibration(files);
      expect(response.statusCode, problem).toBe(400);
      expect(response.json()).toEqual({ file: [importMessages.calibrationCameraInvalid('cams.json', problem)] });
    }
    expect(
      (
        await test.call({
          method: 'GET',
          url: `/api/sessions/${attackerSession}/get_n_calibrated_cameras/`,
          headers: attacker,
        })
      ).json(),
    ).toEqual({ data: 0 });
    // A lens calibration file is checked the same way.
    const lens = await upload('/api/lens-calibrations/', [
      { field: 'device_model', value: 'Pixel 8' },
      { field: 'file', fileName: 'lens.json', bytes: JSON.stringify({ ...file, cameras: [file.cameras[0]] }) },
    ]);
    expect(lens.statusCode).toBe(400);
    expect(lens.json()).toEqual({
      file: [importMessages.calibrationCameraInvalid('lens.json', cases[0][1])],
    });
  });
});
