import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrc } from '../../src/formats/trc.ts';
import { parseFolderSettings } from '../../src/pipeline/folder-settings.ts';
import { NO_NEUTRAL_WARNING, processFolder, type ProcessedTrial } from '../../src/pipeline/process-folder.ts';
import { processTrial } from '../../src/pipeline/process-trial.ts';
import type { SessionStage } from '../../src/session/types.ts';
import type { KeypointsJson } from '../../src/report/keypoints-json.ts';
import type { QualityReport } from '../../src/report/quality-report.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { openPoseAsKeypoints2D } from './openpose-keypoints2d.ts';

const demo = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
const poseFolder =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-associated';
const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];
const path = (trial: ProcessedTrial, tag: string) => trial.files.find((file) => file.tag === tag)!.path;

describe('settings.json', () => {
  it('takes the pose rate, every frame unless it asks for the rate the filter needs, and names the field of a bad one', () => {
    expect(parseFolderSettings({}).poseRate).toBeUndefined();
    expect(parseFolderSettings({ poseRate: 'every_frame' }).poseRate).toBe('every_frame');
    expect(parseFolderSettings({ poseRate: 'filter' }).poseRate).toBe('filter');
    expect(() => parseFolderSettings({ poseRate: 'half' })).toThrow(
      'settings.json: "poseRate" must be one of "filter", "every_frame"',
    );
  });
});

describeWithData(
  'processing a folder (Pose2Sim demo videos and calibration, OpenPose keypoints for speed)',
  [demo, poseFolder],
  () => {
    const root = mkdtempSync(join(tmpdir(), 'kinetrace-process-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    /** A session folder linking the demo's videos and calibration (nothing is copied). */
    const makeFolder = (name: string, layout: 'flat' | 'per-camera', settings?: object) => {
      const folder = join(root, name);
      mkdirSync(join(folder, 'videos'), { recursive: true });
      mkdirSync(join(folder, 'calibration'));
      symlinkSync(referencePath(demo, 'calibration/Calib.qca.txt'), join(folder, 'calibration/Calib.qca.txt'));
      for (const camera of cameraNames) {
        if (layout === 'flat')
          symlinkSync(referencePath(demo, `videos/${camera}.mp4`), join(folder, 'videos', `${camera}.mp4`));
        else {
          mkdirSync(join(folder, 'videos', camera));
          for (const trial of ['balance_1', 'balance_2'])
            symlinkSync(referencePath(demo, `videos/${camera}.mp4`), join(folder, 'videos', camera, `${trial}.mp4`));
        }
      }
      if (settings) writeFileSync(join(folder, 'settings.json'), JSON.stringify(settings));
      return folder;
    };
    const estimatePose = async (video: { cameraName: string }, onProgress: (done: number, total: number) => void) => {
      onProgress(1, 1);
      return openPoseAsKeypoints2D(referencePath(poseFolder, `${video.cameraName}_json`));
    };

    it('writes a .trc, the keypoints JSON and the quality report for a one-trial folder', async () => {
      const folder = makeFolder('Balancing', 'flat');
      const stages: SessionStage[] = [];
      const [trial] = await processFolder(folder, {
        estimatePose,
        onProgress: (stage) => stages.at(-1) !== stage && stages.push(stage),
      });
      expect(trial).toMatchObject({ name: 'Balancing', kind: 'keypoints' });
      expect(stages).toEqual(['pose', 'sync', 'triangulate', 'filter', 'outputs']);
      expect(path(trial, 'marker_data')).toBe(join(folder, 'output', 'Balancing', 'Balancing.trc'));

      const trc = readTrc(readFileSync(path(trial, 'marker_data'), 'utf8'));
      expect(trc.markerNames).toHaveLength(23);
      expect(trc.frameRateHz).toBe(60);
      expect(trc.timesS[0]).toBe(0);
      // y up, metres: at the start, standing on both feet, the nose is about 1.5 m above the toes.
      const frame = 0;
      const y = (name: string) =>
        trc.positionsM[(frame * trc.markerNames.length + trc.markerNames.indexOf(name)) * 3 + 1];
      expect(y('Nose') - y('RBigToe')).toBeGreaterThan(1.3);
      expect(y('Nose') - y('RBigToe')).toBeLessThan(1.9);

      const json = JSON.parse(readFileSync(path(trial, 'keypoints-json'), 'utf8')) as KeypointsJson;
      expect(json).toMatchObject({ format: 'kinetrace-keypoints-3d', version: 1, units: 'm', frameRateHz: 60 });
      expect(json.keypointNames).toEqual(trc.markerNames);
      const nose = json.positionsM[frame][json.keypointNames.indexOf('Nose')]!;
      expect(nose[1]).toBeCloseTo(y('Nose'), 6);

      const report = JSON.parse(readFileSync(path(trial, 'quality_report'), 'utf8')) as QualityReport;
      expect(report.format).toBe('kinetrace-quality-report');
      expect(report.cameras.map((camera) => camera.name)).toEqual(cameraNames);
      expect(report.cameras.filter((camera) => camera.sync.isReference)).toHaveLength(1);
      expect(report.framesWithoutPerson).toBe(0);
      expect(report.keypoints).toHaveLength(23);
      expect(report.warnings).toContain(NO_NEUTRAL_WARNING);
    });

    it('processes every trial of a per-camera layout and applies settings.json', async () => {
      const folder = makeFolder('session', 'per-camera', { filterFrequency: 6, synchronise: false });
      const trials = await processFolder(folder, { estimatePose, outDir: join(root, 'elsewhere') });
      expect(trials.map((trial) => trial.name)).toEqual(['balance_1', 'balance_2']);
      expect(path(trials[1], 'quality_report')).toBe(join(root, 'elsewhere', 'balance_2', 'balance_2_report.json'));
      expect(trials[0].report.filter).toEqual({ cutoffHz: 6, applied: true });
      expect(trials[0].report.cameras.every((camera) => camera.sync.lagS === 0)).toBe(true);
    });

    it("runs the pose model at the rate settings.json's poseRate asks: every other frame of 60 fps at a 12 Hz filter", async () => {
      const folder = makeFolder('Balancing-filter-rate', 'flat', { poseRate: 'filter', filterFrequency: 12 });
      for (const camera of ['cam03', 'cam04']) rmSync(join(folder, 'videos', `${camera}.mp4`));
      const [trial] = await processFolder(folder, { workers: 2 });
      // Every frame (60 Hz) without it: the command line's default.
      expect(trial.report.cameras.map((camera) => [camera.name, camera.detectedHz])).toEqual([
        ['cam01', 30],
        ['cam02', 30],
      ]);
    }, 300_000);

    it('says what is missing: calibration, videos, readable videos', async () => {
      const noCalibration = makeFolder('no-calibration', 'flat');
      rmSync(join(noCalibration, 'calibration'), { recursive: true });
      await expect(processFolder(noCalibration, { estimatePose })).rejects.toMatchObject({
        code: 'CALIBRATION_MISSING',
      });

      await expect(processFolder(join(root, 'nothing-here'), { estimatePose })).rejects.toMatchObject({
        code: 'INVALID_FOLDER',
      });

      // Calibration from videos: a video without the board names the camera and what to check.
      const noBoard = makeFolder('no-board', 'flat');
      rmSync(join(noBoard, 'calibration/Calib.qca.txt'));
      symlinkSync(referencePath(demo, 'videos/cam01.mp4'), join(noBoard, 'calibration/cam01.mp4'));
      const error = await processFolder(noBoard, { estimatePose }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'BOARD_NOT_FOUND', cameras: ['cam01'] });
      expect((error as Error).message).toMatch(/checkerboard was not found/);

      const broken = join(root, 'broken.mp4');
      writeFileSync(broken, 'not a video');
      const cameras = (await import('../../src/camera/formats/index.ts')).readCameraFile(
        referencePath(demo, 'calibration/Calib.qca.txt'),
      );
      const models = await cameras;
      await expect(
        processTrial({
          trialName: 't',
          cameras: models.slice(0, 2),
          videos: [
            { cameraName: 'cam01', path: broken },
            { cameraName: 'cam02', path: referencePath(demo, 'videos/cam02.mp4') },
          ],
        }),
      ).rejects.toMatchObject({ code: 'VIDEO_UNREADABLE', cameras: ['cam01'] });
    });
  },
);
