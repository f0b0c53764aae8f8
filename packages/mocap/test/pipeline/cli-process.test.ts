import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { readStorage, storageColumn } from '../../src/formats/mot.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import type { QualityReport } from '../../src/report/quality-report.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const demo = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
const pose2simTrc =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100.trc';
const staticVideos =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T00_StaticTrial/videos';
const cli = fileURLToPath(new URL('../../bin/kinetrace.mjs', import.meta.url));

describeWithData(
  'kinetrace process on the real 4-camera demo with our pose model: static trial as the neutral, then the balancing trial',
  [demo, pose2simTrc, staticVideos],
  () => {
    const root = mkdtempSync(join(tmpdir(), 'kinetrace-cli-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it(
      'writes joint angles, and keypoints that agree with Pose2Sim’s (OpenPose) triangulation to a few centimetres',
      { timeout: 900_000 },
      async () => {
        const folder = join(root, 'session');
        mkdirSync(join(folder, 'calibration'), { recursive: true });
        symlinkSync(referencePath(demo, 'calibration/Calib.qca.txt'), join(folder, 'calibration/Calib.qca.txt'));
        for (const camera of ['cam01', 'cam02', 'cam03', 'cam04']) {
          mkdirSync(join(folder, 'videos', camera), { recursive: true });
          symlinkSync(referencePath(staticVideos, `${camera}.mp4`), join(folder, 'videos', camera, 'neutral.mp4'));
          symlinkSync(referencePath(demo, `videos/${camera}.mp4`), join(folder, 'videos', camera, 'balancing.mp4'));
        }
        // The demo's static trial is a T-pose, and the demo's subject 1.7 m tall.
        writeFileSync(
          join(folder, 'settings.json'),
          JSON.stringify({ scalingSetup: 'any_pose', subject: { heightM: 1.7, massKg: 70 } }),
        );

        const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, 'process', folder], {
          maxBuffer: 16 << 20,
        });
        for (const stage of [
          'Decoding + 2D pose',
          'Synchronising',
          'Triangulating',
          'Filtering',
          'Scaling + IK',
          'Writing outputs',
        ])
          expect(stderr).toContain(stage);
        expect(stdout).toContain('Processed 2 trial(s), 444 camera frames');
        expect(stdout).toContain('model: LaiUhlrich2022 (The model shipped with Kinetrace');

        const mot = readStorage(readFileSync(join(folder, 'output/balancing/balancing.mot'), 'utf8'));
        for (const coordinate of ['hip_flexion_r', 'knee_angle_r', 'knee_angle_l', 'ankle_angle_l'])
          expect(storageColumn(mot, coordinate)!.every(Number.isFinite)).toBe(true);
        expect(
          readOsim(readFileSync(join(folder, 'output/neutral/neutral_scaled.osim'), 'utf8')).bodies.map(
            (body) => body.name,
          ),
        ).toContain('pelvis');

        const report = JSON.parse(
          readFileSync(join(folder, 'output/balancing/balancing_report.json'), 'utf8'),
        ) as QualityReport;
        expect(mot.timesS.length).toBe(report.frameCount);
        const ours = readTrc(readFileSync(join(folder, 'output/balancing/balancing.trc'), 'utf8'));
        const reference = readTrc(readFileSync(referencePath(pose2simTrc), 'utf8'));

        // Same joints, same frames (our time base starts at the reference camera's first frame).
        const perJointMm: string[] = [];
        const all: number[] = [];
        for (const [k, name] of ours.markerNames.entries()) {
          const j = reference.markerNames.indexOf(name);
          if (j < 0) continue;
          const distances: number[] = [];
          for (let f = 0; f < ours.timesS.length; f++) {
            const a = (f * ours.markerNames.length + k) * 3;
            const b = (f * reference.markerNames.length + j) * 3;
            const d = Math.hypot(
              ours.positionsM[a] - reference.positionsM[b],
              ours.positionsM[a + 1] - reference.positionsM[b + 1],
              ours.positionsM[a + 2] - reference.positionsM[b + 2],
            );
            if (!Number.isNaN(d)) distances.push(d);
          }
          distances.sort((x, y) => x - y);
          all.push(...distances);
          perJointMm.push(`${name} ${(1000 * distances[distances.length >> 1]).toFixed(0)}`);
        }
        all.sort((x, y) => x - y);
        const medianM = all[all.length >> 1];
        console.log(
          `demo, our pose model: median reprojection error per camera ${report.cameras.map((c) => `${c.name} ${c.reprojectionErrorPx?.medianPx.toFixed(1)} px`).join(', ')}; ` +
            `sync lags ${report.cameras.map((c) => c.sync.lagFrames.toFixed(2)).join(', ')} frames; distance to Pose2Sim median ${(1000 * medianM).toFixed(1)} mm (per joint, mm: ${perJointMm.join(', ')})`,
        );
        expect(report.framesWithoutPerson).toBe(0);
        expect(ours.timesS.length).toBeGreaterThan(90);
        for (const camera of report.cameras) expect(camera.reprojectionErrorPx!.medianPx).toBeLessThan(20);
        // Two different 2D models (BlazePose vs OpenPose BODY_25B) place joints differently by a couple
        // of centimetres (hip and neck definitions differ most); far more would mean a broken stage.
        expect(medianM).toBeLessThan(0.08);
      },
    );
  },
);
