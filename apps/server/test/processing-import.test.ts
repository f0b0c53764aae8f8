import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { schema } from '@kinetrace/db';
import { readCameraFile, readKinetraceCameras, writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/index';
import { readStorage } from '@kinetrace/mocap/formats/mot';
import {
  importMessages,
  type CaptureState,
  type ImportCalibrationResponse,
  type LensCalibration,
  type MainSettingsView,
  type Session,
  type Trial,
} from '@kinetrace/contracts';
import { demoCamerasInBoardWorld } from '../../../packages/mocap/test/calibration/board-in-world.ts';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { createLensCalibrationsRepository } from '../src/repositories/lens-calibrations-repository.ts';
import { authHeader, onTestServer, startTestApp, verifiedUser, type TestApp } from './support/test-app.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_SOURCES,
  importForm,
  makeDemoVideos,
  type DemoVideos,
} from './support/processing-fixtures.ts';
import { makeTestVideo } from './support/videos.ts';

const DEMO = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
const QUALISYS_FILE = `${DEMO}/calibration/Calib.qca.txt`;
const LENS_IMAGES = `${DEMO}/calibration/intrinsics/int_cam02_img`;
const DEMO_CAMERAS = ['cam01', 'cam02', 'cam03', 'cam04'];
const KINETRACE_CLI = fileURLToPath(new URL('../../../packages/mocap/bin/kinetrace.mjs', import.meta.url));
/** Real demo videos through the real pose model: minutes on a shared 2-core machine. */
const PROCESSING_TIMEOUT_MS = 900_000;
const POSE2SIM_BALANCING_POSE =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-associated';
const DEMO_VIDEOS = DEMO_CAMERAS.map((camera) => `${DEMO}/videos/${camera}.mp4`);
const DEMO_SUBJECT = {
  name: 'Demo participant',
  weight: 69,
  height: 1.72,
  birth_year: 1990,
  sex_at_birth: 'man',
  gender: 'man',
  subject_tags: ['unimpaired'],
  terms: true,
};
/** What the demo sessions' settings (openpose, any_pose, the demo's subject) mean for `kinetrace process`: openpose runs BlazePose lite (packages/processing POSE_MODEL_FOR). */
const CLI_SETTINGS = JSON.stringify({
  poseModel: 'blazepose-lite',
  scalingSetup: 'any_pose',
  subject: { heightM: DEMO_SUBJECT.height, massKg: DEMO_SUBJECT.weight },
});

type Upload = { bytes: Buffer | string; name: string };

describeWithData(
  'processing without phones: calibration import, imported videos, next subject, lens calibrations',
  [QUALISYS_FILE, LENS_IMAGES],
  () => {
    let test: TestApp;
    let baseUrl: string;
    let owner: Awaited<ReturnType<typeof verifiedUser>>;
    let stranger: Awaited<ReturnType<typeof verifiedUser>>;
    let scratch: string;
    let videoA: Buffer;
    let videoB: Buffer;
    const qualisys = () => readFileSync(referencePath(QUALISYS_FILE));

    beforeAll(async () => {
      test = await startTestApp('pglite');
      baseUrl = (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
      owner = await verifiedUser(test);
      stranger = await verifiedUser(test);
      scratch = mkdtempSync(join(tmpdir(), 'kinetrace-import-test-'));
      videoA = readFileSync(makeTestVideo(scratch, 'a'));
      videoB = readFileSync(makeTestVideo(scratch, 'b'));
    });

    afterAll(async () => {
      await test?.close();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    async function call<T>(method: string, path: string, options: { token?: string; form?: FormData } = {}) {
      const response = await fetch(`${baseUrl}/api${path}`, {
        method,
        headers: authHeader(options.token ?? owner.token),
        body: options.form,
      });
      const text = await response.text();
      return { status: response.status, text, body: (text ? JSON.parse(text) : undefined) as T };
    }
    const form = (field: string, uploads: Upload[], fields: Record<string, string> = {}) => {
      const data = new FormData();
      for (const [key, value] of Object.entries(fields)) data.append(key, value);
      for (const upload of uploads)
        data.append(field, new Blob([new Uint8Array(Buffer.from(upload.bytes))]), upload.name);
      return data;
    };
    const newSession = async () => (await call<Session[]>('GET', '/sessions/new/')).body[0];
    const importCalibration = (sessionId: string, uploads: Upload[], token?: string) =>
      call<ImportCalibrationResponse & Record<string, string[]>>('POST', `/sessions/${sessionId}/import-calibration/`, {
        form: form('file', uploads),
        token,
      });
    const importVideos = (sessionId: string, name: string, uploads: Upload[]) =>
      call<Trial & Record<string, string[]> & { detail?: string }>('POST', `/sessions/${sessionId}/import/`, {
        form: form('video', uploads, { name }),
      });
    const calibratedCount = async (sessionId: string) =>
      (await call<{ data: number }>('GET', `/sessions/${sessionId}/get_n_calibrated_cameras/`)).body.data;
    const liveCalibrations = async (sessionId: string) =>
      (await call<Session>('GET', `/sessions/${sessionId}/`)).body.trials.filter(
        (trial) => trial.name === 'calibration' && !trial.trashed,
      );
    const download = async (mediaUrl: string) =>
      Buffer.from(await (await fetch(onTestServer(baseUrl, mediaUrl))).arrayBuffer());
    /** The demo's cameras as Kinetrace camera files, one per camera. */
    const demoCameraFiles = async (): Promise<Upload[]> =>
      (await readCameraFile(referencePath(QUALISYS_FILE))).map((camera) => ({
        bytes: writeKinetraceCameras([camera]),
        name: `${camera.name}.json`,
      }));

    it('imports the demo Qualisys calibration: the four cameras count as calibrated, their parameters stored as read', async () => {
      const session = await newSession();
      expect(await calibratedCount(session.id)).toBe(0);
      const imported = await importCalibration(session.id, [{ bytes: qualisys(), name: 'Calib.qca.txt' }]);
      expect(imported.status, imported.text).toBe(200);
      expect(imported.body.cameras).toEqual(DEMO_CAMERAS);
      expect(await calibratedCount(session.id)).toBe(4);

      const [calibration] = await liveCalibrations(session.id);
      expect(calibration).toMatchObject({ id: imported.body.trial_id, status: 'done' });
      const parameters = calibration.results.filter((result) => result.tag === 'camera-parameters');
      expect(parameters.map((result) => result.meta)).toEqual(
        DEMO_CAMERAS.map((name) => expect.objectContaining({ device_id: name, camera_name: name })),
      );
      const truth = await readCameraFile(referencePath(QUALISYS_FILE));
      const stored = readKinetraceCameras((await download(parameters[1].media!)).toString('utf8'));
      expect(stored).toHaveLength(1);
      expect(Array.from(stored[0].intrinsics)).toEqual(Array.from(truth[1].intrinsics));
      expect(Array.from(stored[0].translationCameraFromWorldM)).toEqual(
        Array.from(truth[1].translationCameraFromWorldM),
      );

      // One file per camera replaces the previous calibration, which goes to the recycle bin.
      const perCamera = await importCalibration(session.id, (await demoCameraFiles()).slice(0, 3));
      expect(perCamera.status, perCamera.text).toBe(200);
      expect(await calibratedCount(session.id)).toBe(3);
      expect((await liveCalibrations(session.id)).map((trial) => trial.id)).toEqual([perCamera.body.trial_id]);
      const all = (await call<Session>('GET', `/sessions/${session.id}/`)).body.trials;
      expect(all.find((trial) => trial.id === imported.body.trial_id)).toMatchObject({ trashed: true });

      expect(
        (await importCalibration(session.id, [{ bytes: qualisys(), name: 'Calib.qca.txt' }], stranger.token)).status,
      ).toBe(404);
    });

    it('refuses files it cannot use with a message naming the file, and keeps the calibration it had', async () => {
      const session = await newSession();
      expect((await importCalibration(session.id, [{ bytes: qualisys(), name: 'Calib.qca.txt' }])).status).toBe(200);
      const before = (await liveCalibrations(session.id)).map((trial) => trial.id);

      const refusals: [Upload[], string][] = [
        [[{ bytes: videoA, name: 'cam01.mp4' }], importMessages.calibrationFileType('cam01.mp4')],
        [
          [{ bytes: 'not a calibration \u0000\u0001', name: 'lab.qca.txt' }],
          importMessages.calibrationFileUnreadable('lab.qca.txt', 'Qualisys'),
        ],
        [
          [{ bytes: Buffer.from([0x80, 0x04, 0x95, 0xff, 0x00, 0x13]), name: 'cam0.pickle' }],
          importMessages.calibrationFileUnreadable('cam0.pickle', 'OpenCap'),
        ],
        [
          [{ bytes: '{"cameras": [1, 2]}', name: 'cameras.json' }],
          importMessages.calibrationFileUnreadable('cameras.json', 'Kinetrace camera'),
        ],
        [
          [{ bytes: '[cam_1]\nmatrix = "garbage"', name: 'Calib.toml' }],
          importMessages.calibrationFileUnreadable('Calib.toml', 'Pose2Sim'),
        ],
        // A good file does not carry a bad one in with it: nothing is stored.
        [
          [
            { bytes: qualisys(), name: 'Calib.qca.txt' },
            { bytes: 'garbage', name: 'extra.json' },
          ],
          importMessages.calibrationFileUnreadable('extra.json', 'Kinetrace camera'),
        ],
        [(await demoCameraFiles()).slice(0, 1), importMessages.calibrationTooFewCameras(1)],
        [
          [{ bytes: qualisys(), name: 'Calib.qca.txt' }, (await demoCameraFiles())[2]],
          importMessages.calibrationCameraTwice('cam03', 'cam03.json'),
        ],
        [[], 'This field is required.'],
      ];
      for (const [uploads, message] of refusals) {
        const refused = await importCalibration(session.id, uploads);
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body).toEqual({ file: [message] });
      }
      expect((await liveCalibrations(session.id)).map((trial) => trial.id)).toEqual(before);
      expect(await calibratedCount(session.id)).toBe(4);
      const trials = (await call<Session>('GET', `/sessions/${session.id}/`)).body.trials;
      expect(trials.filter((trial) => trial.name === 'calibration')).toHaveLength(1);
    });

    it('pairs imported videos with the calibrated cameras by name, else by order, and refuses when neither pairs them', async () => {
      const session = await newSession();
      await importCalibration(session.id, [{ bytes: qualisys(), name: 'Calib.qca.txt' }]);
      const cameraNames = (trial: Trial) => trial.videos.map((video) => video.parameters.camera_name);

      const byName = await importVideos(session.id, 'by_name', [
        { bytes: videoA, name: 'CAM03.mp4' },
        { bytes: videoB, name: 'cam01.mp4' },
      ]);
      expect(byName.status, byName.text).toBe(200);
      expect(cameraNames(byName.body)).toEqual(['cam03', 'cam01']);

      const unpaired = await importVideos(session.id, 'unpaired', [
        { bytes: videoA, name: 'left.mp4' },
        { bytes: videoB, name: 'right.mp4' },
      ]);
      expect(unpaired.status).toBe(400);
      expect(unpaired.body).toEqual({ video: [importMessages.videosNotPaired(2, DEMO_CAMERAS)] });

      const longModel = await call<Record<string, string[]>>('POST', `/sessions/${session.id}/import/`, {
        form: form(
          'video',
          [
            { bytes: videoA, name: 'cam01.mp4' },
            { bytes: videoB, name: 'cam02.mp4' },
          ],
          { name: 'named_model', device_model: 'x'.repeat(101) },
        ),
      });
      expect(longModel.status).toBe(400);
      expect(Object.keys(longModel.body)).toEqual(['device_model']);

      // With one video per calibrated camera, names that match nothing pair in order.
      await importCalibration(session.id, (await demoCameraFiles()).slice(2, 4));
      const byOrder = await importVideos(session.id, 'by_order', [
        { bytes: videoA, name: 'left.mp4' },
        { bytes: videoB, name: 'right.mp4' },
      ]);
      expect(byOrder.status, byOrder.text).toBe(200);
      expect(cameraNames(byOrder.body)).toEqual(['cam03', 'cam04']);
    });

    it("imports a video set named neutral as the session's neutral trial, of the session's subject", async () => {
      const session = await newSession();
      await importCalibration(session.id, [{ bytes: qualisys(), name: 'Calib.qca.txt' }]);
      const videos = DEMO_CAMERAS.slice(0, 2).map((name, index) => ({
        bytes: index === 0 ? videoA : videoB,
        name: `${name}.mp4`,
      }));
      const withoutSubject = await importVideos(session.id, 'neutral', videos);
      expect(withoutSubject.status).toBe(400);
      expect(withoutSubject.body).toEqual({ detail: importMessages.neutralNeedsSubject });

      const subject = await fetch(`${baseUrl}/api/subjects/`, {
        method: 'POST',
        headers: { ...authHeader(owner.token), 'content-type': 'application/json' },
        body: JSON.stringify({ ...DEMO_SUBJECT, weight: 68 }),
      }).then((response) => response.json() as Promise<{ id: number }>);
      expect((await call('GET', `/sessions/${session.id}/set_subject/?subject_id=${subject.id}`)).status).toBe(200);
      const neutral = await importVideos(session.id, 'neutral', videos);
      expect(neutral.status, neutral.text).toBe(200);
      expect(neutral.body.meta).toMatchObject({
        imported: true,
        subject: { id: subject.id, mass_kg: 68, height_m: 1.72 },
      });
      const again = await importVideos(session.id, 'neutral', videos);
      expect(again.status, again.text).toBe(200);
      const trials = (await call<Session>('GET', `/sessions/${session.id}/`)).body.trials;
      expect(trials.filter((trial) => trial.name === 'neutral' && !trial.trashed).map((trial) => trial.id)).toEqual([
        again.body.id,
      ]);
    });

    it("starts the next subject's session with this one's calibration, board, settings and phones, and no subject", async () => {
      const session = await newSession();
      await importCalibration(session.id, [{ bytes: qualisys(), name: 'Calib.qca.txt' }]);
      await call(
        'GET',
        `/sessions/${session.id}/set_metadata/?cb_rows=6&cb_cols=9&cb_square=40&settings_framerate=120`,
      );
      const [row] = await test.backends.database.db
        .select()
        .from(schema.sessions)
        .where(eq(schema.sessions.id, session.id));
      const phones = ['phone-next-subject-1', 'phone-next-subject-2'];
      for (const deviceId of phones) {
        const connected = await fetch(`${baseUrl}/api/capture/${row.pairingToken}/connect/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            device_id: deviceId,
            capabilities: {
              model: 'Test phone',
              device_model: 'Pixel 8',
              max_width: 1920,
              max_height: 1080,
              framerates: [30, 60],
              mime_types: ['video/mp4'],
            },
          }),
        });
        expect(connected.status).toBe(200);
      }

      const answer = await call<Session[]>('GET', `/sessions/${session.id}/new_subject/`);
      expect(answer.status, answer.text).toBe(200);
      const next = answer.body[0];
      expect(next.id).not.toBe(session.id);
      expect(next.subject).toBeNull();
      expect(next.meta).toMatchObject({
        checkerboard: { rows: 6, cols: 9, squareSize: 40 },
        settings: { framerate: 120 },
      });
      expect(await calibratedCount(next.id)).toBe(4);

      // The phones, still on the QR code they scanned, now follow the new session.
      for (const deviceId of phones) {
        const state = (await (
          await fetch(`${baseUrl}/api/capture/${row.pairingToken}/state/?device_id=${deviceId}`)
        ).json()) as CaptureState;
        expect(state.session_id).toBe(next.id);
      }
      expect(
        (await call<{ n_cameras_connected: number }>('GET', `/sessions/${next.id}/status/`)).body.n_cameras_connected,
      ).toBe(2);

      // The copy is the new session's own: removing the first session for good leaves it calibrated, its files readable.
      expect((await call('POST', `/sessions/${session.id}/permanent_remove/`)).status).toBe(204);
      expect(await calibratedCount(next.id)).toBe(4);
      const [calibration] = await liveCalibrations(next.id);
      const parameters = calibration.results.filter((result) => result.tag === 'camera-parameters');
      expect(parameters).toHaveLength(4);
      expect(readKinetraceCameras((await download(parameters[0].media!)).toString('utf8'))[0].name).toBe('cam01');
      expect((await call('GET', `/sessions/${next.id}/new_subject/`, { token: stranger.token })).status).toBe(404);
    });

    it('stores lens calibrations per device model from board images or a `kinetrace calibrate` file, and refuses what it cannot use', async () => {
      const images = readdirSync(referencePath(LENS_IMAGES))
        .filter((name) => name.endsWith('.jpg'))
        .sort()
        .map((name) => ({ bytes: readFileSync(referencePath(LENS_IMAGES, name)), name }));
      const upload = (uploads: Upload[], fields: Record<string, string>) =>
        call<LensCalibration & Record<string, string[]>>('POST', '/lens-calibrations/', {
          form: form('file', uploads, fields),
        });
      const board = { cb_rows: '4', cb_cols: '7', cb_square: '60' };

      const fromImages = await upload(images, { device_model: 'Demo Cam 02', ...board });
      expect(fromImages.status, fromImages.text).toBe(200);
      expect(fromImages.body).toMatchObject({ device_model: 'Demo Cam 02', image_size: { width: 1088, height: 1920 } });
      // Six of the seven photos show the whole board; a flat printed board calibrates to well under a pixel.
      expect(fromImages.body.rms_error_px).toBeLessThan(0.5);
      const lenses = createLensCalibrationsRepository(test.backends.database.db);
      const lens = (await lenses.lensFor(owner.userId, 'demo cam 02'))!;
      // The demo's own calibration of this camera (Pose2Sim, same photos): focal length within 1%.
      const truth = (await readCameraFile(referencePath(QUALISYS_FILE)))[1];
      expect(Math.abs(lens.intrinsics[0] - truth.intrinsics[0]) / truth.intrinsics[0]).toBeLessThan(0.01);
      expect(await lenses.lensFor(stranger.userId, 'Demo Cam 02')).toBeUndefined();

      // A `kinetrace calibrate` file of the same model (named in other case) replaces it.
      const calibrateFile = writeKinetraceCameras([{ ...truth, name: 'phone' }], { kind: 'lens', rmsPx: 0.31 });
      const fromJson = await upload([{ bytes: calibrateFile, name: 'phone.json' }], { device_model: 'DEMO CAM 02' });
      expect(fromJson.status, fromJson.text).toBe(200);
      expect(fromJson.body.rms_error_px).toBe(0.31);
      const list = await call<LensCalibration[]>('GET', '/lens-calibrations/');
      expect(list.body).toEqual([expect.objectContaining({ device_model: 'DEMO CAM 02', rms_error_px: 0.31 })]);
      expect(Array.from((await lenses.lensFor(owner.userId, 'Demo Cam 02'))!.intrinsics)).toEqual(
        Array.from(truth.intrinsics),
      );
      expect((await call<LensCalibration[]>('GET', '/lens-calibrations/', { token: stranger.token })).body).toEqual([]);

      const refusals: [Upload[], Record<string, string>, Record<string, string[]>][] = [
        [images, { ...board }, { device_model: ['Name the device model.'] }],
        [images, { device_model: '  ', ...board }, { device_model: ['Name the device model.'] }],
        [
          [{ bytes: videoA, name: 'board.mp4' }],
          { device_model: 'X' },
          { file: [importMessages.lensFileType('board.mp4')] },
        ],
        [
          [{ bytes: 'garbage', name: 'lens.json' }],
          { device_model: 'X' },
          { file: [importMessages.lensJsonUnreadable('lens.json')] },
        ],
        [
          [{ bytes: writeKinetraceCameras(truthPair(truth)), name: 'two.json' }],
          { device_model: 'X' },
          { file: [importMessages.lensJsonUnreadable('two.json')] },
        ],
        [
          [{ bytes: calibrateFile, name: 'phone.json' }, images[0]],
          { device_model: 'X' },
          { file: [importMessages.lensOneJson] },
        ],
        [images.slice(0, 2), { device_model: 'X', ...board }, { file: [importMessages.lensTooFewViews(2, 2, 7, 4)] }],
        // Three photos are enough to show it: a board that is not there is searched for in every photo in full.
        [
          images.slice(0, 3),
          { device_model: 'X', cb_rows: '5', cb_cols: '8', cb_square: '60' },
          { file: [importMessages.lensTooFewViews(0, 3, 8, 5)] },
        ],
        [
          [{ bytes: 'not a picture', name: 'board.jpg' }],
          { device_model: 'X', ...board },
          { file: [importMessages.lensImageUnreadable('board.jpg')] },
        ],
      ];
      for (const [uploads, fields, errors] of refusals) {
        const refused = await upload(uploads, fields);
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body).toEqual(errors);
      }
      expect((await call<LensCalibration[]>('GET', '/lens-calibrations/')).body).toHaveLength(1);
    });
  },
);

/** The balancing trial again, imported with Pose2Sim's 2D keypoints beside its videos. */
const GIVEN_KEYPOINTS_TRIAL = 'balancing-keypoints';

const truthPair = <T extends { name: string }>(camera: T) => [camera, { ...camera, name: `${camera.name}-copy` }];

describeWithData(
  'imported calibrations and videos processed: lens calibrations used, joint angles',
  [...DEMO_SOURCES, ...DEMO_VIDEOS, POSE2SIM_BALANCING_POSE],
  () => {
    let test: TestApp;
    let owner: Awaited<ReturnType<typeof verifiedUser>>;
    let videoDir: string;
    let fixtures: DemoVideos;

    beforeAll(async () => {
      test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
      owner = await verifiedUser(test);
      videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-import-processing-'));
      fixtures = await makeDemoVideos(videoDir);
    }, 300_000);
    afterAll(async () => {
      await test?.close();
      if (videoDir) rmSync(videoDir, { recursive: true, force: true });
    });

    const call = async <T>(method: 'GET' | 'POST', url: string, payload?: object | FormData) => {
      const response = await test.app.inject({
        method,
        url: `/api${url}`,
        headers: authHeader(owner.token),
        ...(payload && { payload }),
      });
      return {
        status: response.statusCode,
        text: response.body,
        body: (response.body ? response.json() : undefined) as T,
      };
    };
    const waitForEnd = async (trialId: string): Promise<Trial> => {
      const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
      for (;;) {
        const trial = (await call<Trial>('GET', `/trials/${trialId}/`)).body;
        if (trial.status === 'done' || trial.status === 'error') return trial;
        if (Date.now() > deadline)
          throw new Error(`trial ${trial.name} still ${trial.status}: ${JSON.stringify(trial.meta.progress)}`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    const videosForm = (name: string) => {
      const data = new FormData();
      data.append('name', name);
      for (const path of DEMO_VIDEOS)
        data.append('video', new Blob([new Uint8Array(readFileSync(referencePath(path)))]), path.split('/').at(-1)!);
      return data;
    };

    it(
      "calibrates a board with the lens calibration of the cameras' model instead of the board's estimate",
      { timeout: PROCESSING_TIMEOUT_MS },
      async () => {
        // The rendered boards' true cameras; the lens of cam02 uploaded as the model's lens calibration.
        const truth = await demoCamerasInBoardWorld(referencePath(QUALISYS_FILE));
        const lensFile = new FormData();
        lensFile.append('device_model', 'Lab camera');
        lensFile.append(
          'file',
          new Blob([writeKinetraceCameras([truth[1]], { kind: 'lens', rmsPx: 0.2 })]),
          'lab-camera.json',
        );
        expect((await call('POST', '/lens-calibrations/', lensFile)).status).toBe(200);

        const session = (await call<Session[]>('GET', '/sessions/new/')).body[0];
        expect((await call('GET', `/sessions/${session.id}/set_metadata/?${DEMO_BOARD_QUERY}`)).status).toBe(200);
        const boards = importForm('calibration', fixtures.calibration);
        boards.append('device_model', 'lab camera');
        const imported = await call<Trial>('POST', `/sessions/${session.id}/import/`, boards);
        expect(imported.status, imported.text).toBe(200);
        expect(imported.body.videos.map((video) => video.parameters.device_model)).toEqual(
          DEMO_CAMERAS.map(() => 'lab camera'),
        );
        const calibration = await waitForEnd(imported.body.id);
        expect(calibration.status, String(calibration.meta.error_msg)).toBe('done');
        expect(
          (await call<{ data: number }>('GET', `/sessions/${session.id}/get_n_calibrated_cameras/`)).body.data,
        ).toBe(4);

        const parameters = calibration.results.filter((result) => result.tag === 'camera-parameters');
        expect(parameters).toHaveLength(4);
        for (const result of parameters) {
          const solutions = readKinetraceCameras((await test.app.inject({ method: 'GET', url: result.media! })).body);
          expect(solutions.length).toBeGreaterThan(0);
          for (const solution of solutions) {
            solution.intrinsics.forEach((value, index) => expect(value).toBeCloseTo(truth[1].intrinsics[index], 9));
            solution.distortion.forEach((value, index) => expect(value).toBeCloseTo(truth[1].distortion[index], 12));
          }
        }
      },
    );

    /** The server's joint angles equal those of the `kinetrace process` .mot at `cliMotPath`. */
    const expectSameAngles = (server: ReturnType<typeof readStorage>, cliMotPath: string) => {
      const cli = readStorage(readFileSync(cliMotPath, 'utf8'));
      expect(server.columnLabels).toEqual(cli.columnLabels);
      expect(server.timesS.length).toBe(cli.timesS.length);
      const largestDifferenceDeg = server.values.reduce(
        (largest, value, index) => Math.max(largest, Math.abs(value - cli.values[index])),
        0,
      );
      expect(largestDifferenceDeg).toBeLessThan(1e-6);
    };

    /** A new session of the demo's subject (any_pose, openpose), its cameras from the demo's Qualisys file. */
    const demoSessionWithCalibration = async () => {
      const subject = (await call<{ id: number }>('POST', '/subjects/', DEMO_SUBJECT)).body;
      const session = (await call<Session[]>('GET', '/sessions/new/')).body[0];
      expect((await call('GET', `/sessions/${session.id}/set_subject/?subject_id=${subject.id}`)).status).toBe(200);
      expect(
        (
          await call(
            'GET',
            `/sessions/${session.id}/set_metadata/?settings_pose_model=openpose&settings_scaling_setup=any_pose`,
          )
        ).status,
      ).toBe(200);
      const calibration = new FormData();
      calibration.append(
        'file',
        new Blob([new Uint8Array(readFileSync(referencePath(QUALISYS_FILE)))]),
        'Calib.qca.txt',
      );
      expect((await call('POST', `/sessions/${session.id}/import-calibration/`, calibration)).status).toBe(200);
      return session;
    };

    it(
      "ends an imported neutral and two trials done, the neutral and one trial with their 2D keypoints (Pose2Sim's OpenPose files): the joint angles `kinetrace process` gives for the same folder",
      { timeout: 3 * PROCESSING_TIMEOUT_MS },
      async () => {
        const poseFolder = (camera: string) => referencePath(POSE2SIM_BALANCING_POSE, `${camera}_json`);
        const keypointsForm = (
          files: (camera: string) => { name: string; bytes: Uint8Array<ArrayBuffer> }[],
          set = 'body25b',
          name = GIVEN_KEYPOINTS_TRIAL,
        ) => {
          const data = videosForm(name);
          data.append('keypoint_set', set);
          for (const camera of DEMO_CAMERAS)
            for (const file of files(camera)) data.append('keypoints', new Blob([file.bytes]), file.name);
          return data;
        };
        const pose2simFiles = (camera: string) =>
          readdirSync(poseFolder(camera))
            .sort()
            .map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(poseFolder(camera), name))) }));

        const session = await demoSessionWithCalibration();

        // Refused before anything is stored, naming the file and the field at fault.
        const broken = await call<Record<string, string[]>>(
          'POST',
          `/sessions/${session.id}/import/`,
          keypointsForm((camera) =>
            pose2simFiles(camera).map((file, index) =>
              camera === 'cam02' && index === 3
                ? { ...file, bytes: new TextEncoder().encode('{"people":[{"pose_keypoints_2d":[1,2]}]}') }
                : file,
            ),
          ),
        );
        expect(broken.status).toBe(400);
        expect(broken.body.keypoints[0]).toContain(
          '"cam02.0003.json": people.0.pose_keypoints_2d: Keypoints must be x, y, confidence triplets',
        );
        const shortOne = await call<Record<string, string[]>>(
          'POST',
          `/sessions/${session.id}/import/`,
          keypointsForm((camera) => pose2simFiles(camera).slice(0, camera === 'cam04' ? 99 : 100)),
        );
        expect(shortOne.status).toBe(400);
        expect(shortOne.body.keypoints[0]).toContain('99 frames of keypoints for camera "cam04", whose video has 100');
        const badSet = await call<Record<string, string[]>>(
          'POST',
          `/sessions/${session.id}/import/`,
          keypointsForm(pose2simFiles, 'body99'),
        );
        expect(badSet.status).toBe(400);
        expect(Object.keys(badSet.body)).toEqual(['keypoint_set']);
        expect((await call<Trial[]>('GET', `/sessions/${session.id}/`)).text).not.toContain(
          `"${GIVEN_KEYPOINTS_TRIAL}"`,
        );

        // The neutral comes with keypoints too (any_pose scales from whatever the person does): its pose would be
        // detected twice more, here and by the CLI, for what the detected trial already shows.
        const neutral = await call<Trial>(
          'POST',
          `/sessions/${session.id}/import/`,
          keypointsForm(pose2simFiles, 'body25b', 'neutral'),
        );
        expect(neutral.status, neutral.text).toBe(200);
        const detected = await call<Trial>('POST', `/sessions/${session.id}/import/`, videosForm('balancing'));
        expect(detected.status, detected.text).toBe(200);
        const given = await call<Trial>('POST', `/sessions/${session.id}/import/`, keypointsForm(pose2simFiles));
        expect(given.status, given.text).toBe(200);
        const neutralDone = await waitForEnd(neutral.body.id);
        expect(neutralDone.status, String(neutralDone.meta.error_msg)).toBe('done');
        const serverAngles = async (trialId: string, keypoints2D: string) => {
          const trial = await waitForEnd(trialId);
          expect(trial.status, String(trial.meta.error_msg)).toBe('done');
          const settings = trial.results.find((result) => result.tag === 'main_settings')!;
          const used = (await test.app.inject({ method: 'GET', url: settings.media! })).json() as MainSettingsView;
          expect(used.keypoints2D).toEqual(Object.fromEntries(DEMO_CAMERAS.map((camera) => [camera, keypoints2D])));
          const mot = trial.results.find((result) => result.tag === 'ik_results')!;
          return readStorage((await test.app.inject({ method: 'GET', url: mot.media! })).body);
        };
        const detectedAngles = await serverAngles(detected.body.id, 'detected');
        expect(detectedAngles.inDegrees).toBe(true);
        expect(detectedAngles.columnLabels).toContain('knee_angle_r');
        const givenAngles = await serverAngles(given.body.id, 'given');

        // The same folder through `kinetrace process`: the same chain, so the same joint angles; one trial's
        // keypoints from Pose2Sim's files, the other's detected.
        const folder = join(videoDir, 'cli-session');
        mkdirSync(join(folder, 'calibration'), { recursive: true });
        symlinkSync(referencePath(QUALISYS_FILE), join(folder, 'calibration', 'Calib.qca.txt'));
        for (const camera of DEMO_CAMERAS) {
          mkdirSync(join(folder, 'videos', camera), { recursive: true });
          mkdirSync(join(folder, 'keypoints', camera), { recursive: true });
          for (const trialName of ['neutral', 'balancing', GIVEN_KEYPOINTS_TRIAL])
            symlinkSync(
              referencePath(`${DEMO}/videos/${camera}.mp4`),
              join(folder, 'videos', camera, `${trialName}.mp4`),
            );
          for (const trialName of ['neutral', GIVEN_KEYPOINTS_TRIAL])
            symlinkSync(poseFolder(camera), join(folder, 'keypoints', camera, trialName));
        }
        writeFileSync(join(folder, 'settings.json'), CLI_SETTINGS);
        await promisify(execFile)(process.execPath, [KINETRACE_CLI, 'process', folder, '--keypoint-set', 'body25b'], {
          maxBuffer: 16 << 20,
        });
        expectSameAngles(detectedAngles, join(folder, 'output', 'balancing', 'balancing.mot'));
        expectSameAngles(givenAngles, join(folder, 'output', GIVEN_KEYPOINTS_TRIAL, `${GIVEN_KEYPOINTS_TRIAL}.mot`));
      },
    );
  },
);
