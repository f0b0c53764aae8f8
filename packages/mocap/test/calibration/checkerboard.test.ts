import { readdirSync } from 'node:fs';
import { expect, it, describe } from 'vitest';
import { checkerboardObjectPoints, detectCheckerboard, findCheckerboard } from '../../src/calibration/checkerboard.ts';
import { decodeFrames, decodeImage } from '../../src/video/decode.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { POSE2SIM_DEMO } from './pose2sim-reference.ts';
import { type BoardSpec, lookAtBoard, random, renderBoard } from './synthetic-board.ts';

function errors(found: Float64Array, truth: Float64Array): { max: number; mean: number } {
  let max = 0;
  let sum = 0;
  for (let k = 0; k < truth.length / 2; k++) {
    const e = Math.hypot(found[2 * k] - truth[2 * k], found[2 * k + 1] - truth[2 * k + 1]);
    max = Math.max(max, e);
    sum += e;
  }
  return { max, mean: sum / (truth.length / 2) };
}

describe('checkerboard detection on synthetic renders (known corners)', () => {
  const size = { width: 1280, height: 720 };
  const board: BoardSpec = { rows: 6, cols: 9, squareM: 0.04 };
  // [name, distance m, pitch, yaw, roll (deg), render options, distortion]
  const cases: [string, number, number, number, number, Parameters<typeof renderBoard>[2], number[]?][] = [
    ['frontal, sharp', 1.0, 0, 0, 0, {}],
    ['perspective, blur 1 px, noise 3', 1.0, 35, 20, 15, { blurSigma: 1, noiseSigma: 3 }],
    ['seen turned by 90°, clutter', 1.0, 10, -10, 90, { clutter: true, seed: 3 }],
    ['upside down (180°), lighting gradient', 1.1, -20, 15, 180, { lightingGradient: 0.5 }],
    ['far and small (squares ~20 px)', 1.8, 10, 25, -30, { blurSigma: 0.8, noiseSigma: 2 }],
    [
      'everything: perspective, blur 1.5, noise 5, lighting, clutter',
      1.3,
      -25,
      30,
      80,
      { blurSigma: 1.5, noiseSigma: 5, lightingGradient: 0.6, clutter: true, seed: 7 },
    ],
    ['lens distortion k1 = -0.25', 0.9, 15, -20, 5, { blurSigma: 0.7, noiseSigma: 2 }, [-0.25, 0.08, 0, 0, 0]],
  ];
  const lines: string[] = [];
  for (const [name, distance, pitch, yaw, roll, options, distortion] of cases) {
    it(`finds all corners within 0.2 px: ${name}`, () => {
      const camera = lookAtBoard(board, size, 900, distance, pitch, yaw, roll, distortion);
      const { gray, corners } = renderBoard(camera, board, { supersample: 3, ...options });
      const t0 = performance.now();
      const { detection } = findCheckerboard(gray, size.width, size.height, board.rows, board.cols);
      const ms = performance.now() - t0;
      expect(detection, 'board not found').not.toBeNull();
      const e = errors(detection!.corners, corners);
      lines.push(`${name}: max ${e.max.toFixed(3)} px, mean ${e.mean.toFixed(3)} px, ${ms.toFixed(0)} ms`);
      console.log(`synthetic ${lines[lines.length - 1]}`);
      expect(e.max).toBeLessThan(0.2);
      expect(e.mean).toBeLessThan(0.1);
    });
  }

  it('reports the same board as rows x cols whichever way the caller names it', () => {
    const camera = lookAtBoard(board, size, 900, 1.0, 10, 10, 0);
    const { gray, corners } = renderBoard(camera, board, { supersample: 2 });
    // 6 x 9 asked as 9 x 6: the board is then "seen turned by 90°": 9 rows of 6.
    const turned = detectCheckerboard(gray, size.width, size.height, 9, 6);
    expect(turned).not.toBeNull();
    // Same set of points, each board point (c, r) of the 9 x 6 reading is a corner of the 6 x 9 one.
    const asSet = (a: Float64Array) =>
      Array.from({ length: a.length / 2 }, (_, k) => `${Math.round(a[2 * k])},${Math.round(a[2 * k + 1])}`).sort();
    const found = detectCheckerboard(gray, size.width, size.height, 6, 9)!;
    expect(asSet(turned!)).toEqual(asSet(found));
    expect(errors(found, corners).max).toBeLessThan(0.2);
  });

  it('orders corners so the origin is the same physical corner from every side (rows + cols odd)', () => {
    const odd: BoardSpec = { rows: 4, cols: 7, squareM: 0.06 };
    for (const roll of [0, 90, 180, 270, 33]) {
      const camera = lookAtBoard(odd, size, 900, 1.2, 20, -15, roll);
      const { gray, corners } = renderBoard(camera, odd, { supersample: 2 });
      const found = detectCheckerboard(gray, size.width, size.height, 4, 7);
      expect(found, `roll ${roll}`).not.toBeNull();
      // Same order as the truth: corner k is board point (k % 7, floor(k / 7)).
      expect(errors(found!, corners).max, `roll ${roll}`).toBeLessThan(0.2);
    }
  });

  it("does not take the board's outer edge for a row of corners (small board, narrow margin, clutter)", () => {
    // Squares of ~12 px at 1080p with a margin of 0.7 square: at the search scale the edge of the
    // board, where squares meet the margin and clutter, looks like one more row of X-junctions.
    const small: BoardSpec = { rows: 4, cols: 7, squareM: 0.035 };
    const hd = { width: 1920, height: 1080 };
    const camera = lookAtBoard(small, hd, 1400, 4, 20, 15, 0);
    const { gray, corners } = renderBoard(camera, small, {
      supersample: 2,
      blurSigma: 0.6,
      noiseSigma: 2,
      clutter: true,
      seed: 2,
    });
    const { detection } = findCheckerboard(gray, hd.width, hd.height, 4, 7);
    expect(detection).not.toBeNull();
    expect(errors(detection!.corners, corners).max).toBeLessThan(0.2);
  });

  it('object points follow the corner order', () => {
    const p = checkerboardObjectPoints(2, 3, 0.05);
    expect(Array.from(p)).toEqual([0, 0, 0, 0.05, 0, 0, 0.1, 0, 0, 0, 0.05, 0, 0.05, 0.05, 0, 0.1, 0.05, 0]);
  });

  it('returns null, quickly, on images without a board', () => {
    const rnd = random(11);
    const noise = new Uint8Array(size.width * size.height).map(() => Math.floor(rnd() * 256));
    const flat = new Uint8Array(size.width * size.height).fill(128);
    const clutterCamera = lookAtBoard(board, size, 900, 50, 0, 80, 0); // board edge-on, far away: clutter only
    const { gray: clutter } = renderBoard(clutterCamera, board, { clutter: true, seed: 5, supersample: 1 });
    for (const [name, image] of [
      ['noise', noise],
      ['flat', flat],
      ['clutter', clutter],
    ] as const) {
      const t0 = performance.now();
      expect(detectCheckerboard(image, size.width, size.height, 6, 9), name).toBeNull();
      console.log(`no board (${name}): ${(performance.now() - t0).toFixed(0)} ms`);
    }
  });

  it('rejects a wrong board size, and tells what it saw', () => {
    const camera = lookAtBoard(board, size, 900, 1.0, 5, 5, 0);
    const { gray } = renderBoard(camera, board, { supersample: 2 });
    const { detection, diagnostics } = findCheckerboard(gray, size.width, size.height, 5, 9);
    expect(detection).toBeNull();
    expect(diagnostics.largestGrid).not.toBeNull();
    expect(diagnostics.largestGrid!.rows * diagnostics.largestGrid!.cols).toBe(54);
  });
});

const INTRINSICS = `${POSE2SIM_DEMO}/calibration/intrinsics`;

describeWithData('checkerboard detection on the Pose2Sim demo images (4 x 7 inner corners)', [INTRINSICS], () => {
  // Two of the 28 images do not show the whole board: cam02_06 (board edge-on, out of view) and
  // cam04_04 (board cut by the left image border). Every other image must give all 28 corners.
  const incomplete = new Set(['cam02_06_int.jpg', 'cam04_04_int.jpg']);
  const images = (): string[] =>
    readdirSync(referencePath(INTRINSICS))
      .sort()
      .flatMap((dir) =>
        readdirSync(referencePath(INTRINSICS, dir))
          .filter((f) => f.endsWith('.jpg'))
          .sort()
          .map((f) => `${dir}/${f}`),
      );

  it('finds all 28 corners on every image that shows the whole board, and none on the others', async () => {
    const report: string[] = [];
    let found = 0;
    for (const file of images()) {
      const image = await decodeImage(referencePath(INTRINSICS, file), 'gray');
      const t0 = performance.now();
      const { detection } = findCheckerboard(image.data, image.width, image.height, 4, 7);
      const ms = performance.now() - t0;
      const name = file.split('/')[1];
      if (incomplete.has(name)) {
        expect(detection, `${name} does not show the whole board`).toBeNull();
        report.push(`${name}: no full board (expected), ${ms.toFixed(0)} ms`);
        continue;
      }
      expect(detection, `${name}: board not found`).not.toBeNull();
      found++;
      const d = detection!;
      expect(d.corners.length).toBe(56);
      // Neighbours along a row are about one square apart, and the grid is projective.
      expect(d.homographyRmsPx).toBeLessThan(0.05 * d.spacingPx);
      report.push(
        `${name}: ${ms.toFixed(0)} ms, spacing ${d.spacingPx.toFixed(0)} px, homography rms ${d.homographyRmsPx.toFixed(2)} px`,
      );
    }
    console.log(`Pose2Sim demo boards (${found} found):\n  ${report.join('\n  ')}`);
    expect(found).toBe(26);
  });

  it('finds no board in a frame of the demo videos', async () => {
    const video = referencePath(`${POSE2SIM_DEMO}/videos/cam01.mp4`);
    for await (const frame of decodeFrames(video, { pixelFormat: 'gray', startFrame: 50, endFrame: 51 })) {
      const t0 = performance.now();
      expect(detectCheckerboard(frame.data, frame.width, frame.height, 4, 7)).toBeNull();
      console.log(`video frame without a board: ${(performance.now() - t0).toFixed(0)} ms`);
    }
  });
});
