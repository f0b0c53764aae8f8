import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStorage } from '../../src/formats/mot.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { compareMotions } from '../../src/ik/compare-motions.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { framesPerInference, onEveryVideoFrame } from '../../src/pose/pose-rate.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from '../../src/pose/types.ts';
import type { QualityReport } from '../../src/report/quality-report.ts';
import type { MainSettings } from '../../src/session/main-settings.ts';
import { processMovementResultsFirst } from '../../src/session/process-movement.ts';
import type { ProcessingSettings } from '../../src/session/types.ts';
import { DEMO_FILES, DEMO_SUBJECT, FLEXION_COORDINATES } from '../model-fitting/pose2sim-demo-chain.ts';
import { CAMERAS, detectDemo, runNeutral } from '../pipeline/two-camera-pairs.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const K = VIDEO_KEYPOINTS.length;
const STRIDE = K * KEYPOINT_VALUES;

describe('the pose model at the rate the filter needs', () => {
  it('runs on every step-th frame whose rate stays at least twice the cutoff, and on every frame without a filter', () => {
    expect(framesPerInference(60, 12, false)).toBe(2); // gait at 60 fps: 30 Hz >= 24 Hz
    expect(framesPerInference(60, 6, false)).toBe(5); // 12 Hz
    expect(framesPerInference(120, 12, false)).toBe(5); // 24 Hz
    expect(framesPerInference(240, 12, false)).toBe(10);
    expect(framesPerInference(30, 12, false)).toBe(1); // 15 Hz would be too few
    expect(framesPerInference(60, 30, true)).toBe(1); // no filter: every frame
  });

  it("fills the frames between inferences from the two around them, the subject's and the other people's", () => {
    // 10 video frames at 60 fps (from 0.5 s), inferred on 0, 2, 4, 6, 8 and the last (9); a keypoint moving 1 px a frame.
    const videoTimesS = Float64Array.from({ length: 10 }, (_, frame) => 0.5 + frame / 60);
    const inferredFrames = [0, 2, 4, 6, 8, 9];
    const keypointsAt = (x: number) =>
      Float32Array.from({ length: STRIDE }, (_, i) => [x, 100 + x, 0.9][i % KEYPOINT_VALUES]);
    const data = new Float32Array(inferredFrames.length * STRIDE);
    inferredFrames.forEach((frame, n) => data.set(keypointsAt(10 + frame), n * STRIDE));
    // Someone else, seen in the first three inferences only (NaN where their layer holds nobody).
    const other = new Float32Array(inferredFrames.length * STRIDE);
    inferredFrames.forEach((frame, n) =>
      other.set(n < 3 ? keypointsAt(300 + frame) : keypointsAt(Number.NaN), n * STRIDE),
    );
    const detected: Keypoints2D = {
      keypointNames: VIDEO_KEYPOINTS,
      frameCount: inferredFrames.length,
      fps: 60,
      timestampsS: Float64Array.from(inferredFrames, (frame) => videoTimesS[frame]),
      imageSize: { width: 640, height: 480 },
      data,
      // The person was lost at frame 6: frames 5 and 7, on either side of it, have nobody.
      personFound: Uint8Array.from(inferredFrames, (frame) => (frame === 6 ? 0 : 1)),
      otherPeople: [other],
    };
    const placed = onEveryVideoFrame(detected, videoTimesS);
    expect(placed.frameCount).toBe(10);
    expect(placed.timestampsS).toEqual(videoTimesS);
    expect(Array.from(placed.personFound)).toEqual([1, 1, 1, 1, 1, 0, 0, 0, 1, 1]);
    const xOf = (values: Float32Array, frame: number) => values[frame * STRIDE];
    expect([0, 1, 2, 3, 4, 8, 9].map((frame) => xOf(placed.data, frame))).toEqual(
      [0, 1, 2, 3, 4, 8, 9].map((frame) => expect.closeTo(10 + frame, 4)),
    );
    const otherX = Array.from({ length: 10 }, (_, frame) => xOf(placed.otherPeople![0], frame));
    expect(otherX.slice(0, 5)).toEqual([0, 1, 2, 3, 4].map((frame) => expect.closeTo(300 + frame, 4)));
    expect(otherX.slice(5).every(Number.isNaN)).toBe(true);
  });
});

/**
 * The Pose2Sim demo's balancing trial from two cameras (cam01 and cam02, as issue 24's bench), the pose model
 * on every frame against at the rate the filter needs (the server's default): the same 3D keypoints and joint
 * angles within issue 24's tolerance (2° RMS for hip, knee and ankle flexion), at a 12 Hz filter (every other
 * frame) and at 6 Hz (every fifth).
 */
describeWithData(
  'the pose model at the rate the filter needs, on the demo',
  [DEMO_FILES.staticVideos, DEMO_FILES.balancingVideos, DEMO_FILES.calibration],
  () => {
    const outDir = mkdtempSync(join(tmpdir(), 'kinetrace-pose-rate-'));
    afterAll(() => rmSync(outDir, { recursive: true, force: true }));
    const pair = ['cam01', 'cam02'];

    let neutralRun: ReturnType<typeof runNeutral> | undefined;
    async function balancing(cutoffHz: number, poseRate: ProcessingSettings['poseRate'], estimatePose?: Keypoints2D[]) {
      neutralRun ??= detectDemo().then((detections) => runNeutral(detections, pair, join(outDir, 'neutral')));
      const neutral = await neutralRun;
      const dir = join(outDir, `balancing-${cutoffHz}-${poseRate}`);
      await processMovementResultsFirst(
        {
          videos: pair.map((cameraName) => ({
            cameraName,
            path: referencePath(DEMO_FILES.balancingVideos, `${cameraName}.mp4`),
          })),
          cameras: neutral.outcome.cameras,
          scaledModelOsim: neutral.outcome.scaledModelOsim,
          subject: DEMO_SUBJECT,
          settings: {
            board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
            poseModel: 'blazepose-full',
            filterFrequency: cutoffHz,
            scalingSetup: 'upright_standing_pose',
            poseRate,
          },
          outDir: dir,
          trialName: 'balancing',
        },
        estimatePose ? { estimatePose: async (video) => estimatePose[pair.indexOf(video.cameraName)] } : {},
      );
      const read = (suffix: string) => readFileSync(join(dir, `balancing${suffix}`), 'utf8');
      return {
        motion: readStorage(read('.mot')),
        keypoints: readTrc(read('.trc')),
        report: JSON.parse(read('_report.json')) as QualityReport,
        settings: JSON.parse(read('_settings.json')) as MainSettings,
      };
    }

    it.each([
      { cutoffHz: 12, hz: 30 },
      { cutoffHz: 6, hz: 12 },
    ])(
      'gives the joint angles of every frame within 2° RMS at a $cutoffHz Hz filter, the model run at $hz Hz',
      async ({ cutoffHz, hz }) => {
        const detections = await detectDemo();
        const everyFrame = await balancing(
          cutoffHz,
          'every_frame',
          pair.map((name) => detections.balancing[CAMERAS.indexOf(name)]),
        );
        const atFilterRate = await balancing(cutoffHz, 'filter');
        // Said per camera in the report and main_settings.
        expect(atFilterRate.report.cameras.map((camera) => [camera.keypoints2D, camera.detectedHz])).toEqual([
          ['detected', hz],
          ['detected', hz],
        ]);
        expect(atFilterRate.settings.detectedHz).toEqual({ cam01: hz, cam02: hz });
        // The same synchronisation, so the same frames.
        expect(atFilterRate.report.cameras.map((camera) => camera.sync.offsetS)).toEqual(
          everyFrame.report.cameras.map((camera) => expect.closeTo(camera.sync.offsetS, 3)),
        );
        expect(atFilterRate.keypoints.timesS.length).toBe(everyFrame.keypoints.timesS.length);

        const angles = compareMotions(atFilterRate.motion, everyFrame.motion, FLEXION_COORDINATES);
        console.log(
          `${cutoffHz} Hz filter, pose at ${hz} Hz against every frame, RMS deg: ${angles.map((c) => `${c.coordinate} ${c.rmsDifferenceDeg.toFixed(2)}`).join(', ')}`,
        );
        for (const coordinate of angles) expect(coordinate.rmsDifferenceDeg, coordinate.coordinate).toBeLessThan(2);
        // The 3D keypoints: the RMS distance over every keypoint and frame both have.
        const { positionsM: a } = atFilterRate.keypoints;
        const { positionsM: b } = everyFrame.keypoints;
        let [sum, count] = [0, 0];
        for (let i = 0; i < a.length; i += 3) {
          const squared = (a[i] - b[i]) ** 2 + (a[i + 1] - b[i + 1]) ** 2 + (a[i + 2] - b[i + 2]) ** 2;
          if (Number.isNaN(squared)) continue;
          sum += squared;
          count++;
        }
        const rmsMm = Math.sqrt(sum / count) * 1000;
        console.log(
          `${cutoffHz} Hz filter, pose at ${hz} Hz: 3D keypoints ${rmsMm.toFixed(1)} mm RMS from every frame's`,
        );
        expect(count).toBeGreaterThan(0.9 * (a.length / 3));
        expect(rmsMm).toBeLessThan(15);
      },
      300_000,
    );
  },
);
