import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cameraCentreWorld, projectPoint } from '../../src/camera/camera.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BoardNotFoundError,
  calibrateCameraFromDetection,
  calibrateCameraFromFrames,
  calibrateCameraFromVideo,
} from '../../src/calibration/camera-calibration.ts';
import { checkerboardObjectPoints, findCheckerboard } from '../../src/calibration/checkerboard.ts';
import { boardToWorldAxes, focalFromBoardHomography } from '../../src/calibration/extrinsics.ts';
import { calibrateIntrinsics } from '../../src/calibration/intrinsics.ts';
import { multiply3 } from '../../src/calibration/linalg.ts';
import { decodeImage } from '../../src/video/decode.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { POSE2SIM_DEMO, POSE2SIM_QCA } from './pose2sim-reference.ts';
import {
  boardScene,
  SCENE_BOARD,
  SCENE_BOARD_RENDERED,
  SCENE_IMAGE_SIZE,
  SCENE_K,
  writeGrayVideo,
} from './board-in-world.ts';
import { renderBoard, rotation } from './synthetic-board.ts';

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

const size = SCENE_IMAGE_SIZE;
const board = SCENE_BOARD_RENDERED;
const DISTORTION = [-0.12, 0.06, 0.0005, -0.0007, 0];

/** The scene camera at C, with lens distortion, looking at the board whose axes in the world are the columns of worldFromBoard. */
const scene = (worldFromBoard: number[], C: number[], rollDeg: number) =>
  boardScene(C, { worldFromBoard, rollDeg, distortion: DISTORTION });

describe('extrinsics and world frame (synthetic camera, known pose)', () => {
  const settings = (placement: 'Perpendicular' | 'Lying') => ({ ...SCENE_BOARD, placement });
  const intrinsics = {
    intrinsics: Float64Array.from(SCENE_K),
    distortion: Float64Array.from(DISTORTION),
    imageSize: size,
  };
  // Board axes in the world (columns X_B, Y_B, Z_B), world y up, x towards the cameras.
  const cases: [string, 'Perpendicular' | 'Lying', number[], number[], number][] = [
    // Vertical board facing +x, X_B along −z, Y_B down: OpenCap's usual backWall view.
    ['Perpendicular, board upright', 'Perpendicular', [0, 0, -1, 0, -1, 0, -1, 0, 0], [3.2, 0.4, -0.9], 4],
    // Same board hung upside down: X_B along +z, Y_B up.
    ['Perpendicular, board upside down', 'Perpendicular', [0, 0, -1, 0, 1, 0, 1, 0, 0], [2.8, 0.6, 1.1], -6],
    // Board flat on the ground: X_B along −z, Y_B along +x (towards the cameras), Z_B down.
    ['Lying, board on the ground', 'Lying', [0, 1, 0, 0, 0, -1, -1, 0, 0], [2.6, 1.6, 0.7], 3],
  ];
  for (const [name, placement, worldFromBoard, C, roll] of cases) {
    it(`recovers the camera pose in the world: ${name}`, () => {
      // The world frame that placement defines is exactly the scene's (y up, x towards cameras).
      const { world, boardView } = scene(worldFromBoard, C, roll);
      const { gray, corners } = renderBoard(boardView, board, {
        supersample: 3,
        blurSigma: 0.8,
        noiseSigma: 2,
        clutter: true,
        seed: 9,
      });
      const { detection } = findCheckerboard(gray, size.width, size.height, 4, 7);
      expect(detection).not.toBeNull();
      let maxCornerError = 0;
      for (let k = 0; k < 28; k++) {
        maxCornerError = Math.max(
          maxCornerError,
          Math.hypot(detection!.corners[2 * k] - corners[2 * k], detection!.corners[2 * k + 1] - corners[2 * k + 1]),
        );
      }
      expect(maxCornerError).toBeLessThan(0.2);
      const result = calibrateCameraFromDetection(detection!, size, settings(placement), {
        cameraName: 'cam',
        intrinsics,
      });
      expect(result.solutions).toHaveLength(2);
      const [best, other] = result.solutions;
      expect(best.boardRmsPx).toBeLessThan(0.15);
      expect(other.boardRmsPx).toBeGreaterThan(best.boardRmsPx);
      const centre = cameraCentreWorld(best.camera);
      const rotationError = maxAbsDiff(best.camera.rotationCameraFromWorld, world.rotationCameraFromWorld);
      const centreErrorMm = Math.hypot(...centre.map((v, i) => v - C[i])) * 1000;
      console.log(
        `${name}: camera centre error ${centreErrorMm.toFixed(1)} mm at ${Math.hypot(...C).toFixed(1)} m, rotation error ${rotationError.toExponential(1)}, ` +
          `board rms ${best.boardRmsPx.toFixed(3)} px (other solution ${other.boardRmsPx.toFixed(2)} px)`,
      );
      expect(rotationError).toBeLessThan(3e-3);
      expect(centreErrorMm).toBeLessThan(10);
      // y is up: the world's up axis points up in the image (negative camera y).
      expect(best.camera.rotationCameraFromWorld[4]).toBeLessThan(0);
      // A point 1 m above the origin projects above the origin's image.
      const origin = projectPoint(best.camera, [0, 0, 0])!;
      const above = projectPoint(best.camera, [0, 1, 0])!;
      expect(above[1]).toBeLessThan(origin[1]);
    });
  }

  it("matches OpenCap's rotations from the board frame (backWall, upside down, ground)", () => {
    // OpenCap rotates board-frame points by space-fixed angles: backWall {y: 90, z: 180},
    // upside down {y: -90}, ground {x: 90, y: 90} (for boards whose Z points into the floor).
    const deg = Math.PI / 180;
    const Rx = (a: number) => rotation([1, 0, 0], a * deg);
    const Ry = (a: number) => rotation([0, 1, 0], a * deg);
    const Rz = (a: number) => rotation([0, 0, 1], a * deg);
    const T = (m: number[]) => [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];
    const upright = [1, 0, 0, 0, 1, 0, 0, 0, 1]; // camera looking at the board, Y_B down in the image
    const upsideDown = [-1, 0, 0, 0, -1, 0, 0, 0, 1];
    expect(maxAbsDiff(boardToWorldAxes('Perpendicular', upright), T(multiply3(Rz(180), Ry(90))))).toBeLessThan(1e-12);
    expect(maxAbsDiff(boardToWorldAxes('Perpendicular', upsideDown), T(Ry(-90)))).toBeLessThan(1e-12);
    expect(maxAbsDiff(boardToWorldAxes('Lying', upright), T(multiply3(Ry(90), Rx(90))))).toBeLessThan(1e-12);
  });

  it('estimates the focal length from one tilted board when no intrinsics are known', () => {
    const pinhole = { ...intrinsicsFree() };
    const { boardView } = scene([0, 0, -1, 0, -1, 0, -1, 0, 0], [2.0, 0.5, -1.2], 0);
    const camera = {
      ...boardView,
      intrinsics: Float64Array.from([1000, 0, 639.5, 0, 1000, 359.5, 0, 0, 1]),
      distortion: new Float64Array(5),
    };
    const { gray } = renderBoard(camera, board, { supersample: 2 });
    const { detection } = findCheckerboard(gray, size.width, size.height, 4, 7);
    const f = focalFromBoardHomography(checkerboardObjectPoints(4, 7, 0.08), detection!.corners, size);
    console.log(`single-board focal estimate: ${f.toFixed(1)} px (true 1000)`);
    expect(Math.abs(f - 1000)).toBeLessThan(20);
    const result = calibrateCameraFromDetection(
      detection!,
      size,
      { ...settings('Perpendicular') },
      { cameraName: pinhole.name },
    );
    expect(result.intrinsicsEstimated).toBe(true);
    expect(result.solutions[0].boardRmsPx).toBeLessThan(0.3);
  });

  it('keeps the sharpest frame near the end of a video, and explains a missing board', async () => {
    const { boardView } = scene([0, 0, -1, 0, -1, 0, -1, 0, 0], [3.0, 0.3, -0.5], 0);
    const sharp = renderBoard(boardView, board, { supersample: 2, seed: 1 });
    const blurred = renderBoard(boardView, board, { supersample: 2, blurSigma: 2.5, seed: 2 });
    const empty = new Uint8Array(size.width * size.height).fill(90);
    const frames = [empty, sharp.gray, blurred.gray, blurred.gray].map((data, index) => ({ data, index, ...size }));
    const intrinsicsForVideo = { intrinsics: Float64Array.from(SCENE_K), distortion: Float64Array.from(DISTORTION) };
    const result = await calibrateCameraFromFrames(frames, settings('Perpendicular'), {
      cameraName: 'cam02',
      intrinsics: intrinsicsForVideo,
      framesToTry: 3,
    });
    expect(result.frameIndex).toBe(1);
    await expect(
      calibrateCameraFromFrames([{ data: empty, ...size }], settings('Perpendicular'), { cameraName: 'cam02' }),
    ).rejects.toThrow(BoardNotFoundError);
    await expect(
      calibrateCameraFromFrames(
        [{ data: sharp.gray, ...size }],
        { ...settings('Lying'), rows: 5, cols: 7 },
        { cameraName: 'cam02' },
      ),
    ).rejects.toThrow(/Camera "cam02".*not found[\s\S]*A grid of 4 x 7 inner corners was seen[\s\S]*INNER corners/);
  });
});

describe('calibration step on a video file', () => {
  it('finds the board at the end of an H.264 video and recovers the camera pose', async () => {
    const { world, boardView } = scene([0, 0, -1, 0, -1, 0, -1, 0, 0], [3.0, 0.5, -0.8], 2);
    const pinhole = { ...boardView, distortion: new Float64Array(5) };
    const worldPinhole = { ...world, distortion: new Float64Array(5) };
    const withBoard = renderBoard(pinhole, board, { supersample: 2, clutter: true, seed: 4 }).gray;
    const without = renderBoard({ ...pinhole, translationCameraFromWorldM: Float64Array.from([20, 0, 3]) }, board, {
      supersample: 1,
      clutter: true,
      seed: 4,
    }).gray;
    // 1 s at 20 fps: the board appears for the last half second (it is placed, then left still).
    const frames = Array.from({ length: 20 }, (_, i) => (i < 10 ? without : withBoard));
    const path = join(mkdtempSync(join(tmpdir(), 'kinetrace-calib-video-')), 'calibration.mp4');
    writeGrayVideo(frames, size, path);
    const result = await calibrateCameraFromVideo(path, SCENE_BOARD, {
      cameraName: 'cam01',
      intrinsics: { intrinsics: Float64Array.from(SCENE_K), distortion: new Float64Array(5) },
    });
    expect(result.frameIndex).toBeGreaterThanOrEqual(10);
    expect(result.solutions).toHaveLength(2);
    const centre = cameraCentreWorld(result.solutions[0].camera);
    const errorMm = Math.hypot(...centre.map((v, i) => v - [3.0, 0.5, -0.8][i])) * 1000;
    console.log(
      `video calibration: frame ${result.frameIndex}, camera centre error ${errorMm.toFixed(1)} mm, board rms ${result.solutions[0].boardRmsPx.toFixed(3)} px`,
    );
    expect(errorMm).toBeLessThan(15);
    expect(
      maxAbsDiff(result.solutions[0].camera.rotationCameraFromWorld, worldPinhole.rotationCameraFromWorld),
    ).toBeLessThan(5e-3);
  });
});

function intrinsicsFree(): { name: string } {
  return { name: 'phone' };
}

const INTRINSICS = `${POSE2SIM_DEMO}/calibration/intrinsics`;

describeWithData(
  'lens calibration on the Pose2Sim demo images vs the reference Calib.qca.txt',
  [INTRINSICS, POSE2SIM_QCA],
  () => {
    it('recovers focal length, principal point and distortion close to the reference, with a low RMS error', async () => {
      const reference = readQualisysCalibration(readFileSync(referencePath(POSE2SIM_QCA), 'utf8'));
      const rawRadial = [
        ...readFileSync(referencePath(POSE2SIM_QCA), 'utf8').matchAll(
          /radialDistortion1="([-\d.]+)" radialDistortion2="([-\d.]+)"/g,
        ),
      ].map((m) => [Number(m[1]), Number(m[2])]);
      const lines: string[] = [];
      const dirs = readdirSync(referencePath(INTRINSICS)).sort();
      for (const [c, dir] of dirs.entries()) {
        const views: Float64Array[] = [];
        let imageSize = { width: 0, height: 0 };
        for (const file of readdirSync(referencePath(INTRINSICS, dir))
          .filter((f) => f.endsWith('.jpg'))
          .sort()) {
          const image = await decodeImage(referencePath(INTRINSICS, dir, file), 'gray');
          imageSize = { width: image.width, height: image.height };
          const { detection } = findCheckerboard(image.data, image.width, image.height, 4, 7);
          if (detection) views.push(detection.corners);
        }
        const result = await calibrateIntrinsics(views, { rows: 4, cols: 7, squareSizeMm: 60 }, imageSize, {
          name: dir,
        });
        const k = result.camera.intrinsics;
        const ref = reference[c].intrinsics;
        const d = result.camera.distortion;
        const df = ((k[0] + k[4]) / 2 - (ref[0] + ref[4]) / 2) / ((ref[0] + ref[4]) / 2);
        lines.push(
          `${reference[c].name}: ${views.length} views, RMS ${result.rmsPx.toFixed(3)} px | ` +
            `fx ${k[0].toFixed(1)} fy ${k[4].toFixed(1)} (ref ${ref[0].toFixed(1)} ${ref[4].toFixed(1)}, ${(df * 100).toFixed(2)} %) | ` +
            `cx ${k[2].toFixed(1)} cy ${k[5].toFixed(1)} (ref ${ref[2].toFixed(1)} ${ref[5].toFixed(1)}; Δ ${(k[2] - ref[2]).toFixed(1)}, ${(k[5] - ref[5]).toFixed(1)} px; σ ${result.stdDeviations[2].toFixed(1)}, ${result.stdDeviations[3].toFixed(1)}) | ` +
            `k1 ${d[0].toFixed(4)} k2 ${d[1].toFixed(4)} p1 ${d[2].toFixed(5)} p2 ${d[3].toFixed(5)} (file's raw k1 ${rawRadial[c][0]} k2 ${rawRadial[c][1]})`,
        );
        expect(views.length).toBeGreaterThanOrEqual(6);
        expect(result.rmsPx).toBeLessThan(0.4);
        expect(Math.abs(df)).toBeLessThan(0.015);
        expect(Math.abs(k[2] - ref[2])).toBeLessThan(60);
        expect(Math.abs(k[5] - ref[5])).toBeLessThan(40);
        // The file's radial terms, read raw (before Pose2Sim's division by 64), match our lens model.
        expect(Math.abs(d[0] - rawRadial[c][0])).toBeLessThan(0.02);
        expect(Math.abs(d[1] - rawRadial[c][1])).toBeLessThan(0.1);
      }
      console.log(`Lens calibration vs Calib.qca.txt:\n  ${lines.join('\n  ')}`);
    });
  },
);
