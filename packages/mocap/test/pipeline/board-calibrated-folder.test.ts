import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectPoint, type CameraModel } from '../../src/camera/camera.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { processFolder } from '../../src/pipeline/process-folder.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { ffmpegPath } from '../../src/video/binaries.ts';
import { renderBoard, type BoardSpec } from '../calibration/synthetic-board.ts';

/**
 * A folder calibrated from checkerboard images (rendered for three synthetic cameras with known
 * poses) and keypoints projected through the same cameras: calibration → IPPE choice → sync →
 * triangulation must give back the 3D points, in the world the board's placement defines.
 */
const size = { width: 1280, height: 720 };
const board: BoardSpec = { rows: 4, cols: 7, squareM: 0.08 };
// A standing board facing +x (towards the cameras): board x along world −z, board y down (world −y).
const worldFromBoard = [0, 0, -1, 0, -1, 0, -1, 0, 0];
const boardCentreW = [0, -((board.rows - 1) * board.squareM) / 2, -((board.cols - 1) * board.squareM) / 2];

function lookAt(name: string, centre: number[], target: number[]): { world: CameraModel; boardView: CameraModel } {
  const forward = normalise(target.map((v, i) => v - centre[i]));
  const right = normalise(cross(forward, [0, 1, 0]));
  const down = cross(forward, right);
  const R = [...right, ...down, ...forward];
  const t = [0, 1, 2].map((i) => -(R[i * 3] * centre[0] + R[i * 3 + 1] * centre[1] + R[i * 3 + 2] * centre[2]));
  // The board's own frame seen by this camera: R_CB = R_CW · R_WB.
  const RB = [0, 1, 2].flatMap((i) =>
    [0, 1, 2].map(
      (j) => R[i * 3] * worldFromBoard[j] + R[i * 3 + 1] * worldFromBoard[3 + j] + R[i * 3 + 2] * worldFromBoard[6 + j],
    ),
  );
  const base = {
    name,
    imageSize: size,
    intrinsics: Float64Array.from([1000, 0, (size.width - 1) / 2, 0, 1000, (size.height - 1) / 2, 0, 0, 1]),
    distortion: new Float64Array(5),
  };
  return {
    world: {
      ...base,
      rotationCameraFromWorld: Float64Array.from(R),
      translationCameraFromWorldM: Float64Array.from(t),
    },
    boardView: {
      ...base,
      rotationCameraFromWorld: Float64Array.from(RB),
      translationCameraFromWorldM: Float64Array.from(t),
    },
  };
}
function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function normalise(v: number[]): number[] {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Keypoint k at frame f: a small figure moving in front of the board (metres, world frame). */
const truePoint = (f: number, k: number): number[] => [
  0.6 + 0.1 * Math.sin(f / 8 + k),
  boardCentreW[1] + 0.3 - 0.03 * k + 0.05 * Math.cos(f / 5 + k),
  boardCentreW[2] + 0.2 * Math.sin(0.7 * k) + 0.04 * Math.sin(f / 6),
];

describe('a folder calibrated from checkerboard images (synthetic cameras with known poses)', () => {
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-board-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const scenes = [
    lookAt('cam1', [2.6, 0.1, -1.6], boardCentreW),
    lookAt('cam2', [3.0, 0.4, -0.3], boardCentreW),
    lookAt('cam3', [2.5, -0.1, 1.1], boardCentreW),
  ];

  it('recovers the 3D keypoints in the board’s world within a centimetre', async () => {
    const folder = join(root, 'session');
    mkdirSync(join(folder, 'videos'), { recursive: true });
    mkdirSync(join(folder, 'calibration'));
    for (const { boardView } of scenes) {
      const { gray } = renderBoard(boardView, board, { supersample: 3, blurSigma: 0.7, noiseSigma: 1.5, seed: 3 });
      const png = spawnSync(
        ffmpegPath(),
        [
          '-hide_banner',
          '-loglevel',
          'error',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'gray',
          '-s',
          `${size.width}x${size.height}`,
          '-i',
          'pipe:0',
          '-y',
          join(folder, 'calibration', `${boardView.name}.png`),
        ],
        { input: gray },
      );
      expect(png.status).toBe(0);
      // The videos are never decoded here (keypoints are given below); the names are what matter.
      symlinkSync(
        join(folder, 'calibration', `${boardView.name}.png`),
        join(folder, 'videos', `${boardView.name}.mp4`),
      );
    }
    writeFileSync(
      join(folder, 'settings.json'),
      JSON.stringify({ board: { rows: 4, cols: 7, squareSizeMm: 80, placement: 'Perpendicular' }, synchronise: false }),
    );

    const frameCount = 60;
    const estimatePose = async (video: { cameraName: string }): Promise<Keypoints2D> => {
      const camera = scenes.find((scene) => scene.world.name === video.cameraName)!.world;
      const data = new Float32Array(frameCount * VIDEO_KEYPOINTS.length * 3);
      for (let f = 0; f < frameCount; f++) {
        VIDEO_KEYPOINTS.forEach((_, k) => {
          const pixel = projectPoint(camera, truePoint(f, k))!;
          data.set([pixel[0], pixel[1], 0.9], (f * VIDEO_KEYPOINTS.length + k) * 3);
        });
      }
      return {
        keypointNames: VIDEO_KEYPOINTS,
        frameCount,
        fps: 60,
        timestampsS: Float64Array.from({ length: frameCount }, (_, f) => f / 60),
        imageSize: size,
        data,
        personFound: new Uint8Array(frameCount).fill(1),
      };
    };

    const [trial] = await processFolder(folder, { estimatePose, filterFrequency: 30 });
    const report = trial.report;
    console.log(
      `board-calibrated folder: board rms ${report.cameras.map((c) => c.calibrationErrorPx?.toFixed(3)).join(', ')} px; ` +
        `keypoint reprojection median ${report.reprojectionErrorPx?.medianPx.toFixed(2)} px`,
    );
    for (const camera of report.cameras) expect(camera.calibrationErrorPx).toBeLessThan(0.5);
    // Calibrated as a session's calibration trial is: one image per camera with the corners and axes.
    for (const { boardView } of scenes)
      expect(existsSync(join(folder, 'output', 'calibration', `calibration_${boardView.name}.jpg`))).toBe(true);
    const trc = readTrc(readFileSync(trial.files.find((file) => file.tag === 'marker_data')!.path, 'utf8'));
    const errors: number[] = [];
    for (let f = 0; f < frameCount; f++) {
      VIDEO_KEYPOINTS.forEach((_, k) => {
        const i = (f * VIDEO_KEYPOINTS.length + k) * 3;
        const truth = truePoint(f, k);
        errors.push(
          Math.hypot(trc.positionsM[i] - truth[0], trc.positionsM[i + 1] - truth[1], trc.positionsM[i + 2] - truth[2]),
        );
      });
    }
    errors.sort((a, b) => a - b);
    console.log(
      `board-calibrated folder: 3D error median ${(1000 * errors[errors.length >> 1]).toFixed(1)} mm, max ${(1000 * errors[errors.length - 1]).toFixed(1)} mm`,
    );
    expect(errors[errors.length >> 1]).toBeLessThan(0.01);
  });
});
