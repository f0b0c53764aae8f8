import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectPoint } from '../../src/camera/camera.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { processFolder } from '../../src/pipeline/process-folder.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import {
  boardScene,
  SCENE_BOARD,
  SCENE_BOARD_RENDERED,
  SCENE_IMAGE_SIZE,
  sceneBoardCentre,
  writeGrayImage,
} from '../calibration/board-in-world.ts';
import { renderBoard } from '../calibration/synthetic-board.ts';

/**
 * A folder calibrated from checkerboard images (rendered for three synthetic cameras with known
 * poses) and keypoints projected through the same cameras: calibration → IPPE choice → sync →
 * triangulation must give back the 3D points, in the world the board's placement defines.
 */
const size = SCENE_IMAGE_SIZE;
const boardCentreW = sceneBoardCentre();
/** A scene camera looking at the board centre, its principal point at the image centre. */
const sceneCamera = (name: string, centre: number[]) =>
  boardScene(centre, { name, intrinsics: [1000, 0, (size.width - 1) / 2, 0, 1000, (size.height - 1) / 2, 0, 0, 1] });

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
    sceneCamera('cam1', [2.6, 0.1, -1.6]),
    sceneCamera('cam2', [3.0, 0.4, -0.3]),
    sceneCamera('cam3', [2.5, -0.1, 1.1]),
  ];

  it('recovers the 3D keypoints in the board’s world within a centimetre', async () => {
    const folder = join(root, 'session');
    mkdirSync(join(folder, 'videos'), { recursive: true });
    mkdirSync(join(folder, 'calibration'));
    for (const { boardView } of scenes) {
      const { gray } = renderBoard(boardView, SCENE_BOARD_RENDERED, {
        supersample: 3,
        blurSigma: 0.7,
        noiseSigma: 1.5,
        seed: 3,
      });
      writeGrayImage(gray, size, join(folder, 'calibration', `${boardView.name}.png`));
      // The videos are never decoded here (keypoints are given below); the names are what matter.
      symlinkSync(
        join(folder, 'calibration', `${boardView.name}.png`),
        join(folder, 'videos', `${boardView.name}.mp4`),
      );
    }
    writeFileSync(join(folder, 'settings.json'), JSON.stringify({ board: SCENE_BOARD, synchronise: false }));

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
