import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readCameraFile } from '../../src/camera/formats/index.ts';
import type { CameraModel } from '../../src/camera/camera.ts';
import { readC3d } from '../../src/formats/c3d.ts';
import { readStorage, storageColumn } from '../../src/formats/mot.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { namedModelDocument } from '../../src/default-model/named-models.ts';
import { readScaleSetup } from '../../src/formats/scale-setup.ts';
import type { Vec3 } from '../../src/model/osim-model.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { PoseWorkerPool } from '../../src/pose/pose-worker-pool.ts';
import type { IkJson } from '../../src/session/ik-json.ts';
import type { MainSettings } from '../../src/session/main-settings.ts';
import type { ReportWithModelFit } from '../../src/session/model-fit-report.ts';
import { processMovement } from '../../src/session/process-movement.ts';
import { processNeutral } from '../../src/session/process-neutral.ts';
import { NEUTRAL_STAGES } from '../../src/session/progress.ts';
import type { NeutralOutcome, OutputFile, ProcessingSettings, SessionStage } from '../../src/session/types.ts';
import { ffmpegPath } from '../../src/video/binaries.ts';
import { childNumbers, descendants, parseXmlTree, serializeXml } from '../../src/model/xml-tree.ts';
import { elementCounts } from '../scaling/osim-comparison.ts';
import { probeVideo } from '../../src/video/probe.ts';
import { describeWithData, referencePath, sharedDataDir } from '../reference-data.ts';

/**
 * Neutral then movement on the Pose2Sim demo (4 cameras, Qualisys calibration): the static
 * (T-pose) trial as the neutral, the first second of the balancing trial as the movement.
 */
const demo = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
const staticVideos =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T00_StaticTrial/videos';
const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];
// The scale setup OpenCap's main.py scales LaiUhlrich2022 and LaiUhlrich2022_shoulder with.
const opencapScaleSetup =
  'opencap_outputs/opencap-core@d5a5258954/opensimPipeline/Scaling/Setup_scaling_LaiUhlrich2022.xml';
const subject = { heightM: 1.7, massKg: 70 };
const settings = (scalingSetup: ProcessingSettings['scalingSetup']): ProcessingSettings => ({
  board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
  poseModel: 'blazepose-full',
  requestedPoseModel: 'hrnet',
  filterFrequency: 'default',
  scalingSetup,
});
const LOWER_LIMB = [
  'hip_flexion_r',
  'hip_flexion_l',
  'hip_adduction_r',
  'hip_adduction_l',
  'knee_angle_r',
  'knee_angle_l',
  'ankle_angle_r',
  'ankle_angle_l',
];

const ffmpeg = (args: string[]) => {
  const run = spawnSync(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', ...args]);
  if (run.status !== 0) throw new Error(run.stderr.toString());
};
const byTag = (files: OutputFile[], tag: string) => files.filter((file) => file.tag === tag);
const json = <T>(file: OutputFile | undefined): T => JSON.parse(readFileSync(file!.path, 'utf8')) as T;
const totalMassKg = (osimText: string) =>
  descendants(parseXmlTree(osimText), (node) => node.name === 'Body')
    .map((body) => childNumbers(body, 'mass')![0])
    .reduce((sum, mass) => sum + mass, 0);
const monotone = (progress: [SessionStage, number][]) =>
  progress.every(([, fraction], i) => i === 0 || fraction >= progress[i - 1][1]);

describeWithData('processNeutral then processMovement on the Pose2Sim demo videos', [demo, staticVideos], () => {
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-session-'));
  let pool: PoseWorkerPool;
  let calibration: CameraModel[];
  const movementVideos = cameraNames.map((cameraName) => ({
    cameraName,
    path: join(root, 'movement', `${cameraName}.mp4`),
  }));
  const neutralVideos = cameraNames.map((cameraName) => ({
    cameraName,
    path: referencePath(staticVideos, `${cameraName}.mp4`),
  }));
  const neutrals: Partial<Record<ProcessingSettings['scalingSetup'], NeutralOutcome>> = {};

  beforeAll(async () => {
    pool = await PoseWorkerPool.start({ model: 'blazepose-full' });
    calibration = await readCameraFile(referencePath(demo, 'calibration/Calib.qca.txt'));
    mkdirSync(join(root, 'movement'));
    // The first second (60 frames) of each camera keeps pose detection short (copied: the cut starts at a key frame).
    for (const video of movementVideos)
      ffmpeg([
        '-i',
        referencePath(demo, `videos/${video.cameraName}.mp4`),
        '-frames:v',
        '60',
        '-c',
        'copy',
        '-y',
        video.path,
      ]);
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
    rmSync(root, { recursive: true, force: true });
  });

  for (const scalingSetup of ['any_pose', 'upright_standing_pose'] as const) {
    it(
      `scales the model on the neutral (${scalingSetup}) and writes its files and one image per camera`,
      { timeout: 300_000 },
      async () => {
        const progress: [SessionStage, number][] = [];
        const neutral = await processNeutral(
          {
            videos: neutralVideos,
            cameraSolutions: calibration.map((camera) => [camera]),
            subject,
            settings: settings(scalingSetup),
            outDir: join(root, `neutral-${scalingSetup}`),
          },
          { pool, onProgress: (stage, fraction) => progress.push([stage, fraction]) },
        );
        neutrals[scalingSetup] = neutral;
        expect(neutral.cameras.map((camera) => camera.name)).toEqual(cameraNames);
        expect([...new Set(progress.map(([stage]) => stage))]).toEqual([
          'pose',
          'sync',
          'triangulate',
          'filter',
          'scale_ik',
          'outputs',
        ]);
        expect(monotone(progress) && progress.at(-1)![1]).toBe(1);

        const model = readOsim(readFileSync(byTag(neutral.files, 'opensim_model')[0].path, 'utf8'));
        expect(model.coordinates.map((c) => c.name)).toEqual(expect.arrayContaining(LOWER_LIMB));
        expect(readOsim(neutral.scaledModelOsim).markers.length).toBe(model.markers.length);
        const images = byTag(neutral.files, 'neutral-img');
        expect(images.map((image) => image.cameraName)).toEqual(cameraNames);
        for (const image of images)
          expect(await probeVideo(image.path)).toMatchObject({ codec: 'mjpeg', height: 1280 });
        const mainSettings = json<MainSettings>(byTag(neutral.files, 'main_settings')[0]);
        expect(mainSettings).toMatchObject({
          kind: 'neutral',
          scalingSetup,
          poseModel: { requested: 'hrnet', used: 'blazepose-full' },
          augmenter: { used: 'none (keypoint IK)' },
        });
        const report = json<ReportWithModelFit>(byTag(neutral.files, 'quality_report')[0]);
        expect(report.framesWithoutPerson).toBe(0);
        console.log(
          `neutral ${scalingSetup}: ${report.frameCount} frames, static-pose marker error RMS ${report.modelFit.scaling!.markerErrorRmsMm} mm (max ${report.modelFit.scaling!.markerErrorMaxMm} mm), reprojection median ${report.reprojectionErrorPx?.medianPx.toFixed(1)} px`,
        );
        expect(byTag(neutral.files, 'marker_data')).toHaveLength(1);
      },
    );
  }

  it('holds the subject’s T-pose better with any_pose than with the upright assumption', () => {
    const error = (setup: ProcessingSettings['scalingSetup']) =>
      json<ReportWithModelFit>(byTag(neutrals[setup]!.files, 'quality_report')[0]).modelFit.scaling!.markerErrorRmsMm!;
    expect(error('any_pose')).toBeLessThan(error('upright_standing_pose'));
  });

  it(
    'solves the movement with the scaled model: .mot, IK-json, viewer JSON and videos in step',
    { timeout: 300_000 },
    async () => {
      const neutral = neutrals.any_pose!;
      const progress: [SessionStage, number][] = [];
      const { files } = await processMovement(
        {
          videos: movementVideos,
          cameras: neutral.cameras,
          calibrationErrorsPx: neutral.calibrationErrorsPx,
          scaledModelOsim: neutral.scaledModelOsim,
          subject,
          settings: settings('any_pose'),
          outDir: join(root, 'balancing'),
          trialName: 'balancing',
        },
        { pool, onProgress: (stage, fraction) => progress.push([stage, fraction]) },
      );
      expect(monotone(progress) && progress.at(-1)![1]).toBe(1);
      expect(files.map((file) => file.tag).sort()).toEqual(
        [
          'IK-json',
          'c3d',
          'ik-csv',
          'ik_results',
          'main_settings',
          'marker_data',
          'opensim_model',
          'quality_report',
          'visualizerTransforms-json',
          'video-sync',
          'video-sync',
          'video-sync',
          'video-sync',
          // Each camera's synchronised video again with the faces blurred, for readers of de-identified videos.
          'video-sync-deidentified',
          'video-sync-deidentified',
          'video-sync-deidentified',
          'video-sync-deidentified',
        ].sort(),
      );

      const mot = readStorage(readFileSync(byTag(files, 'ik_results')[0].path, 'utf8'));
      expect(mot.inDegrees).toBe(true);
      // The exports for lab software and spreadsheets: the .trc's points as C3D, the .mot's columns as CSV.
      const c3d = readC3d(readFileSync(byTag(files, 'c3d')[0].path));
      const trc = readTrc(readFileSync(byTag(files, 'marker_data')[0].path, 'utf8'));
      expect([c3d.trajectories.markerNames, c3d.trajectories.timesS.length]).toEqual([
        trc.markerNames,
        trc.timesS.length,
      ]);
      expect(readFileSync(byTag(files, 'ik-csv')[0].path, 'utf8').split('\r\n')[0]).toBe(
        ['time', ...mot.columnLabels].join(','),
      );
      const report = json<ReportWithModelFit>(byTag(files, 'quality_report')[0]);
      expect(mot.timesS.length).toBe(report.frameCount);
      const ranges = LOWER_LIMB.map((name) => {
        const values = storageColumn(mot, name)!;
        expect(values.every(Number.isFinite), name).toBe(true);
        return `${name} ${Math.min(...values).toFixed(0)}..${Math.max(...values).toFixed(0)}°`;
      });
      const ik = report.modelFit.inverseKinematics!;
      console.log(
        `movement: ${mot.timesS.length} frames; IK marker RMS ${ik.markerErrorRmsMm} mm (max ${ik.markerErrorMaxMm} mm); ${ranges.join(', ')}`,
      );
      expect(Object.keys(ik.markerErrorRmsPerMarkerMm)).toEqual(expect.arrayContaining(['RKnee', 'LAnkle']));
      for (const camera of report.cameras) expect(camera.calibrationErrorPx).toBeNull();

      const ikJson = json<IkJson>(byTag(files, 'IK-json')[0]);
      expect(ikJson).toMatchObject({ format: 'kinetrace-ik', units: 'degrees' });
      expect(ikJson.time).toHaveLength(mot.timesS.length);
      expect(ikJson.coordinates.knee_angle_r[10]).toBeCloseTo(storageColumn(mot, 'knee_angle_r')![10], 2);
      expect(ikJson.translationalCoordinates).toEqual(['pelvis_tx', 'pelvis_ty', 'pelvis_tz']);
      const viewer = json<{ time: number[]; bodies: Record<string, unknown> }>(
        byTag(files, 'visualizerTransforms-json')[0],
      );
      expect(viewer.time).toHaveLength(mot.timesS.length);
      expect(Object.keys(viewer.bodies)).toEqual(expect.arrayContaining(['pelvis', 'femur_r', 'tibia_l']));

      // The default model is OpenCap's LaiUhlrich2022, scaled with its muscles and wrap objects to the subject's mass,
      // and the .mot has its 35 coordinates in its order.
      const scaledText = readFileSync(byTag(files, 'opensim_model')[0].path, 'utf8');
      const genericText = readFileSync(new URL('../../models/LaiUhlrich2022.osim', import.meta.url), 'utf8');
      const [scaledCounts, genericCounts] = [elementCounts(scaledText), elementCounts(genericText)];
      expect(scaledCounts.get('Millard2012EquilibriumMuscle')).toBe(80);
      expect(scaledCounts.get('WrapCylinder')).toBe(genericCounts.get('WrapCylinder'));
      expect(scaledCounts.get('WrapCylinder')).toBeGreaterThan(0);
      expect(totalMassKg(scaledText)).toBeCloseTo(subject.massKg, 6);
      const genericCoordinates = readOsim(genericText).coordinates.map((c) => c.name);
      expect(genericCoordinates).toHaveLength(35);
      expect(mot.columnLabels).toEqual(genericCoordinates);
      expect(json<MainSettings>(byTag(files, 'main_settings')[0]).openSimModel.used).toBe('LaiUhlrich2022');

      const synced = [...byTag(files, 'video-sync'), ...byTag(files, 'video-sync-deidentified')];
      expect(synced.map((file) => file.cameraName)).toEqual([...cameraNames, ...cameraNames]);
      const videos = await Promise.all(synced.map((file) => probeVideo(file.path)));
      for (const video of videos) {
        expect(video).toMatchObject({ codec: 'h264', frameCount: report.frameCount, height: 720 });
        expect(video.durationS).toBeCloseTo(report.frameCount / report.frameRateHz, 2);
      }
    },
  );

  describeWithData('with the shoulder model', [opencapScaleSetup], () => {
    it(
      'processes a session with LaiUhlrich2022_shoulder: its bodies scaled by OpenCap’s rule, every element kept, its coordinates in the .mot',
      { timeout: 300_000 },
      async () => {
        // The static trial as both neutral and movement keeps pose detection and IK short.
        const shoulderSettings = { ...settings('any_pose'), requestedModel: 'LaiUhlrich2022_shoulder' };
        const neutral = await processNeutral(
          {
            videos: neutralVideos,
            cameraSolutions: calibration.map((camera) => [camera]),
            subject,
            settings: shoulderSettings,
            outDir: join(root, 'shoulder-neutral'),
          },
          { pool },
        );
        const { files } = await processMovement(
          {
            videos: neutralVideos,
            cameras: neutral.cameras,
            scaledModelOsim: neutral.scaledModelOsim,
            subject,
            settings: shoulderSettings,
            outDir: join(root, 'shoulder-static'),
            trialName: 'static',
          },
          { pool },
        );
        for (const outcome of [neutral.files, files])
          expect(json<MainSettings>(byTag(outcome, 'main_settings')[0]).openSimModel.used).toBe(
            'LaiUhlrich2022_shoulder',
          );

        const generic = serializeXml(namedModelDocument('LaiUhlrich2022_shoulder'));
        const scaledText = readFileSync(byTag(neutral.files, 'opensim_model')[0].path, 'utf8');
        expect(elementCounts(scaledText)).toEqual(elementCounts(generic));
        expect(totalMassKg(scaledText)).toBeCloseTo(subject.massKg, 6);

        // Each body's scale factors, as OpenSim reads them: its geometry's scale factors over the generic model's.
        const genericBodies = new Map(readOsim(generic).bodies.map((body) => [body.name, body.geometryScaleFactors]));
        const factors = new Map(
          readOsim(scaledText).bodies.map((body): [string, Vec3] => {
            const before = genericBodies.get(body.name)!;
            return [body.name, body.geometryScaleFactors.map((value, axis) => value / before[axis]) as Vec3];
          }),
        );
        // OpenCap's rule: a measurement gives one factor to every body axis it lists (the scapulae the torso's on
        // each axis, the patella the femur's, the talus the foot's), and it scales every body of the model.
        const setup = readScaleSetup(readFileSync(join(sharedDataDir, opencapScaleSetup), 'utf8'));
        const scaledByOpenCap = new Set(
          setup.scaler.measurements.flatMap((m) => m.bodyScales.map((scale) => scale.body)),
        );
        expect([...scaledByOpenCap].sort()).toEqual([...factors.keys()].sort());
        for (const measurement of setup.scaler.measurements) {
          const values = measurement.bodyScales.flatMap(({ body, axes }) =>
            axes.map((axis) => factors.get(body)![axis]),
          );
          for (const value of values) {
            expect(value, measurement.name).not.toBeCloseTo(1, 3);
            expect(value, measurement.name).toBeCloseTo(values[0], 9);
          }
        }

        const mot = readStorage(readFileSync(byTag(files, 'ik_results')[0].path, 'utf8'));
        const coordinates = readOsim(generic).coordinates.map((c) => c.name);
        expect(coordinates).toHaveLength(41);
        expect(mot.columnLabels).toEqual(coordinates);
        for (const name of coordinates) expect(storageColumn(mot, name)!.every(Number.isFinite), name).toBe(true);
      },
    );
  });

  it(
    'stops half-way through a trial nobody is in, naming the cameras; names a camera that alone sees nobody, and an unreadable camera without its file',
    { timeout: 120_000 },
    async () => {
      /** `seconds` of a test pattern at 30 fps, as camera `cameraName` filmed it: nobody in it. */
      const nobodyVideo = (cameraName: string, seconds: number) => {
        const path = join(root, `empty-${cameraName}-${seconds}s.mp4`);
        ffmpeg([
          '-f',
          'lavfi',
          '-i',
          `testsrc2=s=540x960:r=30:d=${seconds}`,
          '-c:v',
          'libx264',
          '-pix_fmt',
          'yuv420p',
          '-y',
          path,
        ]);
        return { cameraName, path };
      };
      const input = {
        cameraSolutions: calibration.slice(0, 2).map((camera) => [camera]),
        subject,
        settings: settings('any_pose'),
        outDir: join(root, 'nobody'),
      };
      // Two phones, nobody in front of either: each camera's first half (15 of its 30 frames) shows nobody, and
      // the pose stage stops there.
      const progress: number[] = [];
      const nobody = await processNeutral(
        { ...input, videos: ['cam01', 'cam02'].map((cameraName) => nobodyVideo(cameraName, 1)) },
        { pool, onProgress: (_stage, fraction) => progress.push(fraction) },
      ).catch((thrown: unknown) => thrown);
      expect(nobody).toMatchObject({ code: 'NO_PERSON_FOUND', cameras: ['cam01', 'cam02'] });
      expect((nobody as Error).message).toMatch(
        /^No person was found in the first 0\.5 s of the videos of cameras cam01, cam02\. Check that the subject is in view of every camera/,
      );
      expect(Math.max(...progress)).toBeLessThan(NEUTRAL_STAGES.pose![1]);

      // One phone films the subject (the demo's neutral), the other nobody: that one is named, once it has gone
      // through all its frames (in a movement trial the subject may walk into its view later).
      const oneBlind = await processNeutral(
        { ...input, videos: [neutralVideos[0], nobodyVideo('cam02', 0.2)] },
        { pool },
      ).catch((thrown: unknown) => thrown);
      expect(oneBlind).toMatchObject({ code: 'TOO_FEW_CAMERAS', cameras: ['cam02'] });
      expect((oneBlind as Error).message).toMatch(
        /^No person was found in the video of camera cam02, so only camera cam01 saw the subject/,
      );

      const broken = join(root, 'broken.mp4');
      writeFileSync(broken, 'not a video');
      const error = await processNeutral(
        {
          ...input,
          cameraSolutions: calibration.map((camera) => [camera]),
          videos: [{ cameraName: 'cam01', path: broken }, ...neutralVideos.slice(1)],
        },
        { pool },
      ).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'VIDEO_UNREADABLE', cameras: ['cam01'] });
      expect((error as Error).message).toContain('camera cam01');
      expect((error as Error).message).not.toContain(root);
    },
  );
});
