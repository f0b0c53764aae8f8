import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  processingMessages,
  RESULT_TAGS,
  type MainSettingsView,
  type QualityReportView,
  type Session,
  type Subject,
  type Trial,
} from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { readTrc } from '@kinetrace/mocap/formats/trc';
import { detectPoseInVideo } from '@kinetrace/mocap/pose/video-pose';
import { describeWithData } from '../../../packages/mocap/test/reference-data.ts';
import { pairPhones, phoneKeypointsFile, recordOnPhones } from './support/fake-phone.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_SUBJECT,
  DEMO_CAMERAS,
  DEMO_SOURCES,
  importForm,
  makeDemoVideos,
  type DemoVideos,
  type TrialVideos,
} from './support/processing-fixtures.ts';
import {
  authHeader,
  openTestApp,
  startTestApp,
  testBackends,
  verifiedUser,
  type Backend,
  type TestApp,
} from './support/test-app.ts';

/** Real demo videos through the real pose model: minutes, not seconds, on a shared 2-core machine. */
const PROCESSING_TIMEOUT_MS = 600_000;
const MOVEMENT_TAGS = [
  RESULT_TAGS.visualizerTransforms,
  RESULT_TAGS.ikResults,
  RESULT_TAGS.ikJson,
  RESULT_TAGS.markerData,
  RESULT_TAGS.opensimModel,
  RESULT_TAGS.videoSync,
  RESULT_TAGS.mainSettings,
  RESULT_TAGS.qualityReport,
  RESULT_TAGS.c3d,
  RESULT_TAGS.ikCsv,
];

let videos: DemoVideos;
let videoDir: string;
const backends = await testBackends();

/** A researcher's view of the API: their session, imports, and trials polled until processing ends. */
function researcher(test: () => TestApp, user: () => { token: string }) {
  const call = async (method: 'GET' | 'POST', url: string, payload?: object) =>
    test().call({ method, url: `/api${url}`, headers: authHeader(user().token), ...(payload && { payload }) });
  const get = async <T>(url: string) => (await call('GET', url)).json() as T;

  return {
    call,
    get,
    async newSession(): Promise<string> {
      const created = await call('POST', '/subjects/', DEMO_SUBJECT);
      expect(created.statusCode, created.body).toBe(201);
      const subject = created.json() as Subject;
      const session = (await get<Session[]>('/sessions/new/'))[0];
      expect((await call('GET', `/sessions/${session.id}/set_subject/?subject_id=${subject.id}`)).statusCode).toBe(200);
      // Lite pose model (openpose) keeps the tests quick; any_pose scales from whatever the person does.
      const settings = await call(
        'GET',
        `/sessions/${session.id}/set_metadata/?${DEMO_BOARD_QUERY}&settings_pose_model=openpose&settings_scaling_setup=any_pose`,
      );
      expect(settings.statusCode, settings.body).toBe(200);
      return session.id;
    },
    async importTrial(sessionId: string, name: string, files: TrialVideos): Promise<Trial> {
      const response = await test().app.inject({
        method: 'POST',
        url: `/api/sessions/${sessionId}/import/`,
        headers: authHeader(user().token),
        payload: importForm(name, files),
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as Trial;
    },
    trial: (id: string) => get<Trial>(`/trials/${id}/`),
    /** Polls the trial until `until` holds (processing ended, by default). */
    async waitFor(
      id: string,
      until: (trial: Trial) => boolean = (trial) => trial.status === 'done' || trial.status === 'error',
    ): Promise<Trial> {
      const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
      for (;;) {
        const trial = await get<Trial>(`/trials/${id}/`);
        if (until(trial)) return trial;
        if (Date.now() > deadline)
          throw new Error(`trial ${id} still ${trial.status} (${JSON.stringify(trial.meta.progress)})`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
  };
}

const tagsOf = (trial: Trial) => trial.results.map((result) => result.tag).sort();

describeWithData(
  'processing: calibration, neutral and movement trials end done with their results',
  DEMO_SOURCES,
  () => {
    beforeAll(async () => {
      videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-processing-'));
      videos = await makeDemoVideos(videoDir);
    }, 300_000);
    afterAll(() => rmSync(videoDir, { recursive: true, force: true }));

    describe.each(backends)('on %s', (backend) => {
      let test: TestApp;
      let owner: Awaited<ReturnType<typeof verifiedUser>>;
      const api = researcher(
        () => test,
        () => owner,
      );
      let sessionId: string;

      beforeAll(async () => {
        test = await startTestApp(backend, { LOG_LEVEL: 'warn' });
        owner = await verifiedUser(test);
        sessionId = await api.newSession();
      });
      afterAll(async () => test?.close());
      /**
       * The flow above runs on both databases; each of the long cases below on one of them (the other where only
       * one is reachable): they exercise the processing rules, which do not differ between the two, and each
       * costs minutes of pose estimation.
       */
      const onlyOn = (database: Backend) => backend === database || !backends.includes(database);
      /** Where the phones reach the app: it listens from the first test that pairs some on. */
      const listening = async () => {
        const address = test.app.server.address();
        if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
        return (await test.app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
      };

      it(
        'calibrates from rendered board videos: every camera calibrated, one calibration image each',
        { timeout: PROCESSING_TIMEOUT_MS },
        async () => {
          const imported = await api.importTrial(sessionId, 'calibration', videos.calibration);
          const calibration = await api.waitFor(imported.id);
          expect(calibration.status, String(calibration.meta.error_msg)).toBe('done');
          expect(calibration.meta.progress).toBeUndefined();
          expect(await api.get(`/sessions/${sessionId}/get_n_calibrated_cameras/`)).toEqual({
            data: DEMO_CAMERAS.length,
          });
          const images = await api.get<{ images: string[] }>(`/sessions/${sessionId}/calibration_img/`);
          expect(images.images).toHaveLength(DEMO_CAMERAS.length);
          const image = await test.app.inject({ method: 'GET', url: images.images[0] });
          expect(image.statusCode).toBe(200);
          expect(image.rawPayload.subarray(0, 2).toString('hex')).toBe('ffd8'); // a JPEG
        },
      );

      it(
        'a movement trial recorded before the neutral waits for it, then both end done with their results listed and downloadable',
        { timeout: 2 * PROCESSING_TIMEOUT_MS },
        async () => {
          const walk = await api.importTrial(sessionId, 'balance', videos.trial);
          const waiting = await api.waitFor(
            walk.id,
            (trial) => (trial.meta.progress as { stage?: string } | undefined)?.stage === 'waiting_for_neutral',
          );
          expect(waiting.status).toBe('processing');

          const neutral = await api.waitFor((await api.importTrial(sessionId, 'neutral', videos.neutral)).id);
          expect(neutral.status, String(neutral.meta.error_msg)).toBe('done');
          expect(tagsOf(neutral)).toEqual(
            expect.arrayContaining([
              RESULT_TAGS.opensimModel,
              RESULT_TAGS.markerData,
              RESULT_TAGS.neutralImage,
              RESULT_TAGS.cameraParameters,
            ]),
          );
          expect((await api.get<{ images: string[] }>(`/sessions/${sessionId}/neutral_img/`)).images).toHaveLength(
            DEMO_CAMERAS.length,
          );

          // Issue 24: done as soon as the angles, keypoints, model, viewer data and report are stored, the
          // synchronised videos (each video decoded again) following with their own stage and percentage.
          const done = await api.waitFor(walk.id);
          expect(done.status, String(done.meta.error_msg)).toBe('done');
          expect(done.meta.follow_up).toMatchObject({ stage: 'sync_videos', status: 'running' });
          expect(new Set(tagsOf(done))).toEqual(new Set(MOVEMENT_TAGS.filter((tag) => tag !== RESULT_TAGS.videoSync)));
          // The download meanwhile holds what exists, and where the videos go says they are being prepared; or,
          // made a moment later, the videos themselves.
          const pending = (await api.call('GET', `/sessions/${sessionId}/download/`)).rawPayload.toString('latin1');
          expect(pending).toContain('OpenSimData/Kinematics/balance.mot');
          expect(pending.includes('VisualizerVideos/balance/NOT_READY.txt')).toBe(
            !pending.includes('balance_sync.mp4'),
          );

          const ready = await api.waitFor(walk.id, (trial) => trial.meta.follow_up === undefined);
          expect(ready.status).toBe('done');
          expect(new Set(tagsOf(ready))).toEqual(new Set(MOVEMENT_TAGS));
          expect(ready.results.filter((result) => result.tag === RESULT_TAGS.videoSync)).toHaveLength(
            DEMO_CAMERAS.length,
          );
          // The results stored at done are the ones kept: the videos were added to them.
          for (const result of done.results) expect(ready.results.map((kept) => kept.id)).toContain(result.id);
          const mot = ready.results.find((result) => result.tag === RESULT_TAGS.ikResults)!;
          const motFile = await test.app.inject({ method: 'GET', url: mot.media! });
          expect(motFile.statusCode).toBe(200);
          expect(motFile.body).toMatch(/inDegrees=yes/);
          expect(motFile.body).toMatch(/knee_angle_r/);

          const zip = await api.call('GET', `/sessions/${sessionId}/download/`);
          expect(zip.statusCode).toBe(200);
          const names = zip.rawPayload.toString('latin1');
          for (const path of [
            'OpenSimData/Kinematics/balance.mot',
            'MarkerData/balance.trc',
            'CameraParameters/calibration/',
            'NeutralImages/',
            'Videos/Cam0/InputMedia/balance/balance_sync.mp4',
          ])
            expect(names).toContain(path);
          expect(names).not.toContain('NOT_READY.txt');
        },
      );

      if (onlyOn('postgres'))
        it(
          'reprocesses a trial and a session: the new results replace the old ones, none duplicated',
          { timeout: 2 * PROCESSING_TIMEOUT_MS },
          async () => {
            const session = await api.get<Session>(`/sessions/${sessionId}/`);
            const walk = session.trials.find((trial) => trial.name === 'balance')!;
            const reprocessed = await api.call('POST', `/trials/${walk.id}/reprocess/`);
            expect(reprocessed.json()).toEqual({ trials: [walk.id] });
            expect(['reprocess', 'processing']).toContain((await api.trial(walk.id)).status);
            // Done again: none of the earlier results is left, the earlier synchronised videos neither (issue 24).
            const again = await api.waitFor(walk.id, (trial) => trial.status === 'done');
            expect(again.results.filter((result) => walk.results.some((old) => old.id === result.id))).toEqual([]);
            expect(tagsOf(await api.waitFor(walk.id, (trial) => trial.meta.follow_up === undefined))).toEqual(
              tagsOf(walk),
            );
            expect((await api.call('POST', `/trials/${walk.id}/reprocess/`)).statusCode).toBe(200);
            expect((await api.call('POST', `/trials/${walk.id}/reprocess/`)).statusCode).toBe(400); // already queued
            await api.waitFor(walk.id);

            const whole = await api.call('POST', `/sessions/${sessionId}/reprocess/`);
            const queued = (whole.json() as { trials: string[] }).trials;
            expect(queued).toHaveLength(3);
            for (const id of queued) expect((await api.waitFor(id)).status).toBe('done');
            expect(await api.get(`/sessions/${sessionId}/get_n_calibrated_cameras/`)).toEqual({
              data: DEMO_CAMERAS.length,
            });
            expect(tagsOf(await api.waitFor(walk.id, (trial) => trial.meta.follow_up === undefined))).toEqual(
              tagsOf(walk),
            );
            const stranger = await verifiedUser(test);
            const refused = await test.call({
              method: 'POST',
              url: `/api/trials/${walk.id}/reprocess/`,
              headers: authHeader(stranger.token),
            });
            expect(refused.statusCode).toBe(404);
          },
        );

      if (onlyOn('pglite'))
        it(
          "uses a phone's own keypoints for its camera when they agree with the server's check, and detects that camera itself when they are shifted by 100 px, saying why",
          { timeout: 2 * PROCESSING_TIMEOUT_MS },
          async () => {
            const baseUrl = await listening();
            // One phone per calibrated camera, uploading in the cameras' order (recorded videos pair with them in order).
            const { phones } = await pairPhones(test, baseUrl, sessionId, DEMO_CAMERAS.length);
            // What a phone running our model sends: the engine's own detection of cam01's video at 30 Hz.
            const detected = await detectPoseInVideo(videos.trial[0].path, { model: 'blazepose-lite', workers: 1 });
            const phoneFile = (shiftPx: number) =>
              phoneKeypointsFile(detected, { model: 'blazepose-lite', backend: 'test' }, { shiftPx });
            const recordWithPhones = async (name: string, shiftPx: number) => {
              const { trialId, orders } = await recordOnPhones(phones, sessionId, name, api.get);
              expect(orders.map((order) => order.recording?.phone_keypoints)).toEqual(phones.map(() => true));
              expect((await phones[0].upload(trialId, phoneFile(shiftPx), 'keypoints')).status).toBe(204);
              for (const [index, phone] of phones.entries())
                expect((await phone.upload(trialId, readFileSync(videos.trial[index].path))).status).toBe(204);
              const done = await api.waitFor(trialId);
              expect(done.status, String(done.meta.error_msg)).toBe('done');
              const json = async <T>(tag: string) => {
                const result = done.results.find((candidate) => candidate.tag === tag)!;
                return (await test.app.inject({ method: 'GET', url: result.media! })).json() as T;
              };
              const report = await json<QualityReportView>(RESULT_TAGS.qualityReport);
              const settings = await json<MainSettingsView>(RESULT_TAGS.mainSettings);
              const phoneCamera = report.cameras.find((camera) => camera.name === phones[0].deviceId)!;
              return { phoneCamera, report, settings, camera: phones[0].deviceId };
            };

            const agreeing = await recordWithPhones('walk_phone', 0);
            expect(agreeing.phoneCamera.keypoints2D).toBe('phone');
            expect(agreeing.phoneCamera.phoneKeypoints).toMatchObject({ used: true, neededHz: 24 });
            expect(agreeing.phoneCamera.phoneKeypoints!.achievedHz).toBeGreaterThanOrEqual(29);
            expect(agreeing.phoneCamera.phoneKeypoints!.medianDistancePx).toBeLessThan(
              agreeing.phoneCamera.phoneKeypoints!.tolerancePx!,
            );
            expect(
              agreeing.report.cameras
                .filter((camera) => camera.name !== agreeing.camera)
                .map((camera) => camera.keypoints2D),
            ).toEqual(['detected', 'detected', 'detected']);
            expect(agreeing.settings.keypoints2D?.[agreeing.camera]).toBe('phone');
            expect(agreeing.settings.phoneKeypoints).toEqual({ [agreeing.camera]: { used: true } });

            const shifted = await recordWithPhones('walk_phone_shifted', 100);
            expect(shifted.phoneCamera.keypoints2D).toBe('detected');
            expect(shifted.phoneCamera.phoneKeypoints).toMatchObject({ used: false });
            expect(shifted.phoneCamera.phoneKeypoints!.medianDistancePx).toBeGreaterThan(90);
            const why = shifted.settings.phoneKeypoints?.[shifted.camera].reason;
            expect(why).toMatch(/^disagreed with the server's check: median \d+ px \(at most \d+ px\)$/);
            expect(shifted.phoneCamera.phoneKeypoints!.reason).toBe(why);
          },
        );

      if (onlyOn('pglite'))
        it(
          "detects a recorded trial's first videos while the last is still arriving, and its 3D result is the one without (issue 24)",
          { timeout: 2 * PROCESSING_TIMEOUT_MS },
          async () => {
            const baseUrl = await listening();
            const { phones } = await pairPhones(test, baseUrl, sessionId, DEMO_CAMERAS.length, 'arrival');
            const { trialId } = await recordOnPhones(phones, sessionId, 'walk_arrival', api.get);
            const { db } = test.backends.database;
            const videoRows = (id = trialId) =>
              db.select().from(schema.trialVideos).where(eq(schema.trialVideos.trialId, id));

            // The phones upload one after the other; all but the last one's video is detected before the last is in.
            for (const [index, phone] of phones.slice(0, -1).entries())
              expect((await phone.upload(trialId, readFileSync(videos.trial[index].path))).status).toBe(204);
            const deadline = Date.now() + PROCESSING_TIMEOUT_MS;
            while ((await videoRows()).some((video) => !video.parameters.detected_on_arrival)) {
              if (Date.now() > deadline) throw new Error('the first videos were not detected on arrival');
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
            expect((await api.trial(trialId)).status).toBe('uploading');
            const last = phones.length - 1;
            expect((await phones[last].upload(trialId, readFileSync(videos.trial[last].path))).status).toBe(204);
            const processed = async (id = trialId) => {
              const done = await api.waitFor(id);
              expect(done.status, String(done.meta.error_msg)).toBe('done');
              const file = async (tag: string) => {
                const result = done.results.find((candidate) => candidate.tag === tag)!;
                return (await test.app.inject({ method: 'GET', url: result.media! })).body;
              };
              return {
                report: JSON.parse(await file(RESULT_TAGS.qualityReport)) as QualityReportView,
                settings: JSON.parse(await file(RESULT_TAGS.mainSettings)) as MainSettingsView,
                markers: readTrc(await file(RESULT_TAGS.markerData)),
              };
            };
            const early = await processed();
            const earlyCameras = phones.slice(0, -1).map((phone) => phone.deviceId);
            expect(early.settings.detectedOnArrival).toEqual(earlyCameras);
            for (const camera of early.report.cameras) {
              expect(camera.keypoints2D).toBe('detected');
              expect(camera.detectedHz).toBeCloseTo(30, 2); // a gait trial at 60 fps: the pose model at 30 Hz
              expect(camera.detectedOnArrival).toBe(earlyCameras.includes(camera.name) || undefined);
            }

            // The session's pose rate changed since: the keypoints detected on arrival are not how processing detects now.
            const reprocessed = async () => {
              await api.waitFor(trialId, (trial) => trial.meta.follow_up === undefined);
              expect((await api.call('POST', `/trials/${trialId}/reprocess/`)).statusCode).toBe(200);
              return processed();
            };
            const setPoseRate = (rate: string) =>
              api.call('GET', `/sessions/${sessionId}/set_metadata/?settings_pose_rate=${rate}`);
            await setPoseRate('every_frame');
            const changed = await reprocessed();
            expect(changed.settings.detectedOnArrival).toEqual([]);
            for (const camera of changed.report.cameras) expect(camera.detectedHz).toBeCloseTo(60, 2);
            await setPoseRate('filter');

            // The same trial with its cameras all detected by processing, as without detection on arrival.
            await db
              .update(schema.trialVideos)
              .set({ parameters: sql`${schema.trialVideos.parameters} - 'detected_on_arrival'` })
              .where(eq(schema.trialVideos.trialId, trialId));
            const whole = await reprocessed();
            expect(whole.settings.detectedOnArrival).toEqual([]);
            expect(whole.markers.markerNames).toEqual(early.markers.markerNames);
            expect(Array.from(whole.markers.timesS)).toEqual(Array.from(early.markers.timesS));
            const differenceM = whole.markers.positionsM.reduce(
              (most, value, index) => Math.max(most, Math.abs(value - early.markers.positionsM[index]) || 0),
              0,
            );
            expect(differenceM).toBeLessThan(0.001);
            const missing = (positionsM: Float64Array) => Array.from(positionsM, (value) => Number.isNaN(value));
            expect(missing(whole.markers.positionsM)).toEqual(missing(early.markers.positionsM));

            // Uploaded one right after another: processing waits for the detections still under way, and uses them.
            const together = await recordOnPhones(phones, sessionId, 'walk_arrival_together', api.get);
            for (const [index, phone] of phones.entries())
              expect((await phone.upload(together.trialId, readFileSync(videos.trial[index].path))).status).toBe(204);
            const detectedWhenLastArrived = (await videoRows(together.trialId)).filter(
              (video) => video.parameters.detected_on_arrival,
            ).length;
            expect(detectedWhenLastArrived).toBeLessThan(earlyCameras.length);
            const waited = await processed(together.trialId);
            expect(waited.settings.detectedOnArrival).toEqual(earlyCameras);
            // The next tests start with no follow-up of this trial's still running.
            await api.waitFor(together.trialId, (trial) => trial.meta.follow_up === undefined);
          },
        );

      if (onlyOn('pglite'))
        it(
          'ends in error with a clear message, and the session stays usable',
          { timeout: 2 * PROCESSING_TIMEOUT_MS },
          async () => {
            const other = await api.newSession();
            const noBoard = await api.waitFor((await api.importTrial(other, 'calibration', videos.noBoard)).id);
            expect(noBoard.status).toBe('error');
            expect(String(noBoard.meta.error_msg)).toMatch(/cam0\d/);
            // Issue 13 (9): what users read names cameras, never the server's folders, a tool's output or a stack.
            const internals = /\/tmp|\/work|\/data\/|uploads|ffprobe|ffmpeg|at .*\.ts/;
            expect(String(noBoard.meta.error_msg)).not.toMatch(internals);
            expect(await api.get(`/sessions/${other}/get_n_calibrated_cameras/`)).toEqual({ data: 0 });

            expect(
              (await api.waitFor((await api.importTrial(other, 'calibration', videos.calibration)).id)).status,
            ).toBe('done');
            const nobody = await api.waitFor((await api.importTrial(other, 'neutral', videos.nobody)).id);
            expect(nobody.status).toBe('error');
            expect(String(nobody.meta.error_msg).length).toBeGreaterThan(20);
            expect(nobody.meta.error_msg).not.toBe(processingMessages.internalFailure);
            expect(String(nobody.meta.error_msg)).not.toMatch(internals);

            expect((await api.waitFor((await api.importTrial(other, 'neutral', videos.neutral)).id)).status).toBe(
              'done',
            );
            // A video cut short is refused as it arrives (issue 13, defect 8), before any processing: the import leaves no trial.
            const unreadable = await test.app.inject({
              method: 'POST',
              url: `/api/sessions/${other}/import/`,
              headers: authHeader(owner.token),
              payload: importForm('one_camera_broken', videos.oneUnreadable),
            });
            expect(unreadable.statusCode).toBe(400);
            expect(unreadable.body).toMatch(/cam02/);
            expect(unreadable.body).not.toMatch(internals);
            expect((await api.get<Session>(`/sessions/${other}/`)).trials.map((trial) => trial.name)).not.toContain(
              'one_camera_broken',
            );
          },
        );

      if (backend === 'pglite')
        it(
          'runs a trial interrupted by a server stop again when the server starts: done once, no duplicated results',
          { timeout: 2 * PROCESSING_TIMEOUT_MS },
          async () => {
            const walk = await api.importTrial(sessionId, 'balance_again', videos.trial);
            await api.waitFor(
              walk.id,
              (trial) => (trial.meta.progress as { stage?: string } | undefined)?.stage === 'pose',
            );

            const stopped = test;
            await stopped.app.close();
            await stopped.backends.close();
            const restarted = await openTestApp(
              { dataDir: stopped.dataDir, databaseUrl: undefined },
              { LOG_LEVEL: 'warn' },
            );
            test = {
              ...restarted,
              async close() {
                await restarted.close();
                rmSync(stopped.dataDir, { recursive: true, force: true });
              },
            };

            // Done, and its synchronised videos made after (issue 24).
            const done = await api.waitFor(
              walk.id,
              (trial) => (trial.status === 'done' && trial.meta.follow_up === undefined) || trial.status === 'error',
            );
            expect(done.status, String(done.meta.error_msg)).toBe('done');
            expect(new Set(tagsOf(done))).toEqual(new Set(MOVEMENT_TAGS));
            const files = done.results.map((result) => `${result.tag} ${String(result.meta?.camera_name ?? '')}`);
            expect(new Set(files).size).toBe(files.length);
            // Still done once a while later: no second attempt finishing behind it.
            await new Promise((resolve) => setTimeout(resolve, 2_000));
            expect((await api.trial(walk.id)).results.map((result) => result.id)).toEqual(
              done.results.map((result) => result.id),
            );
          },
        );
    });
  },
);
