import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { multiply3 } from '../../src/calibration/linalg.ts';
import { type CameraModel, cameraCentreWorld } from '../../src/camera/camera.ts';
import { calibrateSession } from '../../src/session/calibrate-session.ts';
import type { BoardSpec, SessionStage } from '../../src/session/types.ts';
import { ffmpegPath } from '../../src/video/binaries.ts';
import { probeVideo } from '../../src/video/probe.ts';
import { renderBoard, rotation, mul } from '../calibration/synthetic-board.ts';

/**
 * The calibration trial on rendered board videos: a camera with a known pose looks at a 4 x 7
 * board standing upright (the world frame the Perpendicular placement defines: y up, x towards
 * the cameras, origin at the board's origin corner).
 */
const size = { width: 1280, height: 720 };
const K = [1000, 0, 652.3, 0, 1000, 355.1, 0, 0, 1];
const rendered = { rows: 4, cols: 7, squareM: 0.08 };
const session: BoardSpec = { rows: 4, cols: 7, squareSizeMm: 80, placement: 'Perpendicular' };
// Board axes in the world (columns): x along world −z, y down, z towards the cameras (+x).
const worldFromBoard = [0, 0, -1, 0, -1, 0, -1, 0, 0];
const centreW = [0, -((rendered.rows - 1) * rendered.squareM) / 2, -((rendered.cols - 1) * rendered.squareM) / 2];
const cameraCentre = [3.0, 0.5, -0.8];

/** The camera at cameraCentre looking at the board centre, in the world and as the board sees it. */
function scene(): { world: CameraModel; boardView: CameraModel } {
  const forward = normalise(centreW.map((v, i) => v - cameraCentre[i]));
  const right = normalise(cross(forward, [0, 1, 0]));
  const R = mul(rotation([0, 0, 1], (3 * Math.PI) / 180), [...right, ...cross(forward, right), ...forward]);
  const t = [0, 1, 2].map(
    (i) => -(R[i * 3] * cameraCentre[0] + R[i * 3 + 1] * cameraCentre[1] + R[i * 3 + 2] * cameraCentre[2]),
  );
  const base = { name: 'cam', imageSize: size, intrinsics: Float64Array.from(K), distortion: new Float64Array(5) };
  return {
    world: {
      ...base,
      rotationCameraFromWorld: Float64Array.from(R),
      translationCameraFromWorldM: Float64Array.from(t),
    },
    boardView: {
      ...base,
      rotationCameraFromWorld: Float64Array.from(multiply3(R, worldFromBoard)),
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
/** Angle of the rotation between two rotation matrices, degrees. */
function angleBetweenDeg(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let trace = 0;
  for (let i = 0; i < 3; i++) for (let k = 0; k < 3; k++) trace += a[k * 3 + i] * b[k * 3 + i];
  return (Math.acos(Math.min(1, Math.max(-1, (trace - 1) / 2))) * 180) / Math.PI;
}

describe('calibrateSession on rendered board videos', () => {
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-calibrate-session-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const { world, boardView } = scene();
  const video = join(root, 'cam1.mp4');
  const gray = renderBoard(boardView, rendered, { supersample: 2, clutter: true, seed: 5 }).gray;
  // Half a second at 20 fps of the board standing still.
  const encoded = spawnSync(
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
      '-r',
      '20',
      '-i',
      'pipe:0',
      '-c:v',
      'libx264',
      '-crf',
      '14',
      '-pix_fmt',
      'yuv420p',
      '-y',
      video,
    ],
    { input: Buffer.concat(Array.from({ length: 10 }, () => Buffer.from(gray))) },
  );
  const lens = { intrinsics: Float64Array.from(K), distortion: new Float64Array(5), imageSize: size };

  it('recovers the camera pose within 1 cm and 0.5°, keeps both planar solutions and writes the calibration image', async () => {
    expect(encoded.status, encoded.stderr?.toString()).toBe(0);
    const progress: [SessionStage, number][] = [];
    const { cameras } = await calibrateSession(
      { videos: [{ cameraName: 'cam1', path: video, lens }], board: session, outDir: join(root, 'out') },
      { onProgress: (stage, fraction) => progress.push([stage, fraction]) },
    );
    expect(cameras).toHaveLength(1);
    const [camera] = cameras;
    expect(camera.solutions).toHaveLength(2);
    expect(camera.intrinsicsEstimated).toBe(false);
    const best = camera.solutions[0].camera;
    const centreErrorM = Math.hypot(...cameraCentreWorld(best).map((v, i) => v - cameraCentre[i]));
    const angleErrorDeg = angleBetweenDeg(best.rotationCameraFromWorld, world.rotationCameraFromWorld);
    console.log(
      `calibrateSession: centre error ${(centreErrorM * 1000).toFixed(1)} mm, rotation error ${angleErrorDeg.toFixed(3)}°, board rms ${camera.boardRmsPx.toFixed(3)} px`,
    );
    expect(centreErrorM).toBeLessThan(0.01);
    expect(angleErrorDeg).toBeLessThan(0.5);
    expect(camera.boardRmsPx).toBeLessThan(0.5);

    const image = await probeVideo(camera.imagePath);
    expect(image).toMatchObject({ codec: 'mjpeg', width: size.width, height: size.height });
    expect(progress.map(([stage]) => stage)).toEqual(['board', 'board', 'outputs']);
    expect(progress.at(-1)![1]).toBe(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i][1]).toBeGreaterThanOrEqual(progress[i - 1][1]);
  });

  it('finds the board with rows and columns swapped in the settings (the world origin moves to another corner)', async () => {
    const { cameras } = await calibrateSession({
      videos: [{ cameraName: 'cam1', path: video, lens }],
      board: { ...session, rows: 7, cols: 4 },
      outDir: join(root, 'swapped'),
    });
    const best = cameras[0].solutions[0].camera;
    const offset = cameraCentreWorld(best).map((v, i) => v - cameraCentre[i]);
    console.log(
      `calibrateSession, rows and columns swapped: centre offset ${offset.map((v) => (v * 1000).toFixed(1)).join(', ')} mm, rotation error ${angleBetweenDeg(best.rotationCameraFromWorld, world.rotationCameraFromWorld).toFixed(3)}°`,
    );
    expect(cameras[0].boardRmsPx).toBeLessThan(0.5);
    expect(angleBetweenDeg(best.rotationCameraFromWorld, world.rotationCameraFromWorld)).toBeLessThan(0.5);
    // Same axes; the origin corner is (cols − rows) squares higher up the standing board.
    expect(Math.abs(offset[0]) + Math.abs(offset[2])).toBeLessThan(0.01);
  });

  it('says when a board of other dimensions is visible: squares counted, or one corner too few', async () => {
    const calibrate = (rows: number, cols: number) =>
      calibrateSession({
        videos: [{ cameraName: 'cam1', path: video }],
        board: { ...session, rows, cols },
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
      board: session,
      outDir: join(root, 'empty'),
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'BOARD_NOT_FOUND', cameras: ['phone 2'] });
    expect((error as Error).message).toMatch(
      /Camera "phone 2": the 4 x 7 checkerboard was not found[\s\S]*whole board[\s\S]*lit/,
    );
    expect((error as Error).message).not.toContain(root);
  });
});
