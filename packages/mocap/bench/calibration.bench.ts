/**
 * Checkerboard detection speed at 1080p: milliseconds per frame for a synthetic 1920 x 1080 view
 * (perspective, blur, noise, clutter), for the Pose2Sim demo's real 1088 x 1920 board images, and
 * for frames without a board (what a calibration video mostly costs). One core, after warm-up.
 */
import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCheckerboard } from '../src/calibration/checkerboard.ts';
import { decodeFrames, decodeImage } from '../src/video/decode.ts';
import { lookAtBoard, renderBoard } from '../test/calibration/synthetic-board.ts';

const dataDir = resolve(
  fileURLToPath(new URL('../../../../shared/data/pose2sim_demo/Pose2Sim/Demo_SinglePerson', import.meta.url)),
);

function time(
  label: string,
  frames: { data: Uint8Array; width: number; height: number }[],
  rows: number,
  cols: number,
  repeats: number,
): void {
  for (const f of frames) findCheckerboard(f.data, f.width, f.height, rows, cols); // warm-up
  const times: number[] = [];
  let found = 0;
  for (let r = 0; r < repeats; r++) {
    for (const f of frames) {
      const t0 = performance.now();
      const { detection } = findCheckerboard(f.data, f.width, f.height, rows, cols);
      times.push(performance.now() - t0);
      if (detection && r === 0) found++;
    }
  }
  times.sort((a, b) => a - b);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `${label}: ${mean.toFixed(1)} ms/frame mean, median ${times[times.length >> 1].toFixed(1)}, max ${times[times.length - 1].toFixed(1)} ` +
      `(${frames.length} frames x ${repeats}, board found in ${found})`,
  );
}

const board = { rows: 6, cols: 9, squareM: 0.05 };
const size = { width: 1920, height: 1080 };
const synthetic = [
  renderBoard(lookAtBoard(board, size, 1400, 1.6, 25, -20, 8), board, {
    supersample: 2,
    blurSigma: 1,
    noiseSigma: 3,
    clutter: true,
    seed: 1,
  }),
  renderBoard(lookAtBoard(board, size, 1400, 2.6, -15, 35, 95), board, {
    supersample: 2,
    blurSigma: 0.7,
    noiseSigma: 2,
    clutter: true,
    seed: 2,
  }),
].map((r) => ({ data: r.gray, ...size }));
time('synthetic 1920x1080 with a 6x9 board', synthetic, 6, 9, 5);

const emptyScene = renderBoard(lookAtBoard(board, size, 1400, 80, 0, 85, 0), board, {
  supersample: 1,
  clutter: true,
  seed: 3,
});
time('synthetic 1920x1080 clutter, no board', [{ data: emptyScene.gray, ...size }], 6, 9, 5);

if (existsSync(resolve(dataDir, 'calibration/intrinsics/int_cam01_img'))) {
  const dir = resolve(dataDir, 'calibration/intrinsics/int_cam01_img');
  const images = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.jpg'))
    .sort())
    images.push(await decodeImage(resolve(dir, f), 'gray'));
  time('Pose2Sim demo 1088x1920 board images (4x7)', images, 4, 7, 3);
  const frames = [];
  for await (const frame of decodeFrames(resolve(dataDir, 'videos/cam01.mp4'), {
    pixelFormat: 'gray',
    startFrame: 0,
    endFrame: 100,
    step: 25,
  }))
    frames.push(frame);
  time('Pose2Sim demo 1088x1920 video frames, no board', frames, 4, 7, 3);
} else {
  console.log(`real-image part skipped: no Pose2Sim demo under ${dataDir}`);
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
