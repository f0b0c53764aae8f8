import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cameraCentreWorld } from '../../src/camera/camera.ts';
import { calibrateSession } from '../../src/session/calibrate-session.ts';
import type { SessionStage } from '../../src/session/types.ts';
import { ffmpegPath } from '../../src/video/binaries.ts';
import { probeVideo } from '../../src/video/probe.ts';
import {
  boardScene,
  poseError,
  SCENE_BOARD,
  SCENE_BOARD_RENDERED,
  SCENE_IMAGE_SIZE,
  SCENE_K,
  writeGrayVideo,
} from '../calibration/board-in-world.ts';
import { renderBoard } from '../calibration/synthetic-board.ts';

/**
 * The calibration trial on rendered board videos: a camera with a known pose looks at a 4 x 7
 * board standing upright (the world frame the Perpendicular placement defines: y up, x towards
 * the cameras, origin at the board's origin corner).
 */
const cameraCentre = [3.0, 0.5, -0.8];

describe('calibrateSession on rendered board videos', () => {
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-calibrate-session-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const { world, boardView } = boardScene(cameraCentre, { rollDeg: 3 });
  const video = join(root, 'cam1.mp4');
  const gray = renderBoard(boardView, SCENE_BOARD_RENDERED, { supersample: 2, clutter: true, seed: 5 }).gray;
  // Half a second at 20 fps of the board standing still.
  writeGrayVideo(
    Array.from({ length: 10 }, () => gray),
    SCENE_IMAGE_SIZE,
    video,
  );
  const lens = { intrinsics: Float64Array.from(SCENE_K), distortion: new Float64Array(5), imageSize: SCENE_IMAGE_SIZE };

  it('recovers the camera pose within 1 cm and 0.5°, keeps both planar solutions and writes the calibration image', async () => {
    const progress: [SessionStage, number][] = [];
    const { cameras } = await calibrateSession(
      { videos: [{ cameraName: 'cam1', path: video, lens }], board: SCENE_BOARD, outDir: join(root, 'out') },
      { onProgress: (stage, fraction) => progress.push([stage, fraction]) },
    );
    expect(cameras).toHaveLength(1);
    const [camera] = cameras;
    expect(camera.solutions).toHaveLength(2);
    expect(camera.intrinsicsEstimated).toBe(false);
    const best = camera.solutions[0].camera;
    const { centreErrorM, rotationErrorDeg: angleErrorDeg } = poseError(best, world);
    console.log(
      `calibrateSession: centre error ${(centreErrorM * 1000).toFixed(1)} mm, rotation error ${angleErrorDeg.toFixed(3)}°, board rms ${camera.boardRmsPx.toFixed(3)} px`,
    );
    expect(centreErrorM).toBeLessThan(0.01);
    expect(angleErrorDeg).toBeLessThan(0.5);
    expect(camera.boardRmsPx).toBeLessThan(0.5);

    const image = await probeVideo(camera.imagePath);
    expect(image).toMatchObject({ codec: 'mjpeg', width: SCENE_IMAGE_SIZE.width, height: SCENE_IMAGE_SIZE.height });
    expect(progress.map(([stage]) => stage)).toEqual(['board', 'board', 'outputs']);
    expect(progress.at(-1)![1]).toBe(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i][1]).toBeGreaterThanOrEqual(progress[i - 1][1]);
  });

  it('finds the board with rows and columns swapped in the settings (the world origin moves to another corner)', async () => {
    const { cameras } = await calibrateSession({
      videos: [{ cameraName: 'cam1', path: video, lens }],
      board: { ...SCENE_BOARD, rows: 7, cols: 4 },
      outDir: join(root, 'swapped'),
    });
    const best = cameras[0].solutions[0].camera;
    const offset = cameraCentreWorld(best).map((v, i) => v - cameraCentre[i]);
    const { rotationErrorDeg } = poseError(best, world);
    console.log(
      `calibrateSession, rows and columns swapped: centre offset ${offset.map((v) => (v * 1000).toFixed(1)).join(', ')} mm, rotation error ${rotationErrorDeg.toFixed(3)}°`,
    );
    expect(cameras[0].boardRmsPx).toBeLessThan(0.5);
    expect(rotationErrorDeg).toBeLessThan(0.5);
    // Same axes; the origin corner is (cols − rows) squares higher up the standing board.
    expect(Math.abs(offset[0]) + Math.abs(offset[2])).toBeLessThan(0.01);
  });

  it('says when a board of other dimensions is visible: squares counted, or one corner too few', async () => {
    const calibrate = (rows: number, cols: number) =>
      calibrateSession({
        videos: [{ cameraName: 'cam1', path: video }],
        board: { ...SCENE_BOARD, rows, cols },
        outDir: join(root, `wrong-${rows}x${cols}`),
      });
    await expect(calibrate(5, 8)).rejects.toMatchObject({
      code: 'BOARD_NOT_FOUND',
      cameras: ['cam1'],
      message: expect.stringContaining(
        'A board with 4 × 7 inner corners is visible, but the session is set to 5 × 8: count the inner corners where four squares meet, not the squares.',
      ),
    });
    await expect(calibrate(3, 6)).rejects.toMatchObject({
      code: 'BOARD_NOT_FOUND',
      message: expect.stringContaining('A board with 4 × 7 inner corners is visible, but the session is set to 3 × 6'),
    });
  });

  it('names the camera and what to try when no board is in view', async () => {
    const empty = join(root, 'empty.mp4');
    const made = spawnSync(ffmpegPath(), [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'color=c=gray:s=640x360:r=20:d=0.5',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-y',
      empty,
    ]);
    expect(made.status).toBe(0);
    const error = await calibrateSession({
      videos: [
        { cameraName: 'cam1', path: video },
        { cameraName: 'phone 2', path: empty },
      ],
      board: SCENE_BOARD,
      outDir: join(root, 'empty'),
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'BOARD_NOT_FOUND', cameras: ['phone 2'] });
    expect((error as Error).message).toMatch(
      /Camera "phone 2": the 4 x 7 checkerboard was not found[\s\S]*whole board[\s\S]*lit/,
    );
    expect((error as Error).message).not.toContain(root);
  });
});
