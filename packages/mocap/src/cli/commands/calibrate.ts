import { readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { findCheckerboard } from '../../calibration/checkerboard.ts';
import { calibrateIntrinsics } from '../../calibration/intrinsics.ts';
import { writeCameraFile } from '../../camera/formats/index.ts';
import { decodeFrames, decodeImage } from '../../video/decode.ts';
import { probeVideo } from '../../video/probe.ts';
import type { CliCommand } from '../command.ts';

const USAGE = `Usage: kinetrace calibrate --images <folder or video> --board <cols>x<rows> --square <mm> --out camera.json

Lens calibration: finds the checkerboard in each image (or in frames spread over the video),
then estimates the focal length, principal point and distortion (k1, k2, p1, p2) and prints them
with the RMS reprojection error. Writes Kinetrace's camera JSON (docs/calibration.md).

  --images     folder of images (.jpg, .png, ...) or a video of the board moved around
  --board      INNER corners, columns x rows, e.g. 7x4 for a board of 8 x 5 squares
  --square     side of one square in millimetres
  --out        output camera file (.json)
  --name       camera name in the file (default: the folder or video name)
  --frames     video only: how many frames to sample, evenly spaced (default 40)
  --k3         also estimate the k3 distortion term (needs many varied views)

Tips: 10-30 views; tilt the board 20-45° in different directions; cover the image corners;
keep the whole board in view and sharp.`;

const IMAGE_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.bmp', '.tif', '.tiff', '.webp']);

function parseBoard(text: string | undefined): { cols: number; rows: number } | null {
  const m = /^\s*(\d+)\s*[xX×]\s*(\d+)\s*$/.exec(text ?? '');
  if (!m) return null;
  const cols = Number(m[1]);
  const rows = Number(m[2]);
  return cols >= 2 && rows >= 2 ? { cols, rows } : null;
}

function progress(message: string): void {
  process.stderr.write(`${message}\n`);
}

export const command: CliCommand = {
  summary: 'Lens calibration from checkerboard images or a video (writes camera.json)',
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        images: { type: 'string' },
        board: { type: 'string' },
        square: { type: 'string' },
        out: { type: 'string' },
        name: { type: 'string' },
        frames: { type: 'string' },
        k3: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    const board = parseBoard(values.board);
    const square = Number(values.square);
    if (!values.images || !board || !(square > 0) || !values.out) {
      if (values.board && !board)
        console.error(`--board must look like 7x4 (inner corners, columns x rows), got "${values.board}"\n`);
      console.error(USAGE);
      return 1;
    }
    const source = values.images;
    const name = values.name ?? basename(source, extname(source));
    const views: Float64Array[] = [];
    const used: string[] = [];
    let imageSize: { width: number; height: number } | null = null;
    let tried = 0;
    const consider = (label: string, data: Uint8Array, width: number, height: number) => {
      tried++;
      if (imageSize && (imageSize.width !== width || imageSize.height !== height)) {
        throw new Error(
          `${label} is ${width} x ${height} but the first image is ${imageSize.width} x ${imageSize.height}: all views must have the same size and orientation`,
        );
      }
      imageSize = { width, height };
      const t0 = performance.now();
      const { detection, diagnostics } = findCheckerboard(data, width, height, board.rows, board.cols);
      const ms = (performance.now() - t0).toFixed(0);
      if (detection) {
        views.push(detection.corners);
        used.push(label);
        progress(`  ${label}: board found (${ms} ms)`);
      } else {
        const seen = diagnostics.largestGrid
          ? `; saw a ${diagnostics.largestGrid.cols} x ${diagnostics.largestGrid.rows} grid`
          : '';
        progress(`  ${label}: no ${board.cols} x ${board.rows} board (${ms} ms${seen})`);
      }
    };

    if (statSync(source).isDirectory()) {
      const files = readdirSync(source)
        .filter((f) => IMAGE_EXTENSIONS.has(extname(f).toLowerCase()))
        .sort();
      if (files.length === 0) throw new Error(`No images (${[...IMAGE_EXTENSIONS].join(', ')}) in ${source}`);
      progress(`Looking for a ${board.cols} x ${board.rows} board in ${files.length} images...`);
      for (const [i, file] of files.entries()) {
        const image = await decodeImage(join(source, file), 'gray');
        consider(`[${i + 1}/${files.length}] ${file}`, image.data, image.width, image.height);
      }
    } else {
      const info = await probeVideo(source);
      const wanted = Math.max(3, Math.floor(Number(values.frames ?? 40)));
      const step = Math.max(1, Math.floor(info.frameCount / wanted));
      const total = Math.ceil(info.frameCount / step);
      progress(
        `Looking for a ${board.cols} x ${board.rows} board in ${total} of ${info.frameCount} frames of ${basename(source)}...`,
      );
      let i = 0;
      for await (const frame of decodeFrames(source, { pixelFormat: 'gray', step, info })) {
        i++;
        consider(`[${i}/${total}] frame ${frame.index}`, frame.data, frame.width, frame.height);
      }
    }
    if (!imageSize) throw new Error(`Nothing to calibrate in ${source}`);
    progress(`Board found in ${views.length} of ${tried} views. Calibrating...`);
    const size: { width: number; height: number } = imageSize;
    const result = await calibrateIntrinsics(
      views,
      { rows: board.rows, cols: board.cols, squareSizeMm: square },
      size,
      {
        estimateK3: values.k3 ?? false,
        name,
      },
    );
    const K = result.camera.intrinsics;
    const d = result.camera.distortion;
    const sd = result.stdDeviations;
    const lines = [
      `Camera "${name}", ${size.width} x ${size.height}, ${views.length} views`,
      `  focal length   fx ${K[0].toFixed(2)} px  fy ${K[4].toFixed(2)} px  (± ${sd[0].toFixed(2)}, ${sd[1].toFixed(2)})`,
      `  principal pt   cx ${K[2].toFixed(2)} px  cy ${K[5].toFixed(2)} px  (± ${sd[2].toFixed(2)}, ${sd[3].toFixed(2)})`,
      `  distortion     k1 ${d[0].toFixed(5)}  k2 ${d[1].toFixed(5)}  p1 ${d[2].toFixed(5)}  p2 ${d[3].toFixed(5)}  k3 ${d[4].toFixed(5)}`,
      `  RMS reprojection error ${result.rmsPx.toFixed(3)} px (worst view ${Math.max(...result.perViewRmsPx).toFixed(3)} px)`,
    ];
    console.log(lines.join('\n'));
    if (result.rmsPx > 1) {
      console.log('  Warning: an RMS error above 1 px usually means blurred views or a board that is not flat.');
    }
    await writeCameraFile(values.out, [result.camera], {
      kind: 'lens',
      rmsPx: result.rmsPx,
      perViewRmsPx: result.perViewRmsPx,
      views: used,
      board: { cols: board.cols, rows: board.rows, squareSizeMm: square },
      source: basename(source),
    });
    console.log(`Wrote ${values.out}`);
    return 0;
  },
};
