import { spawn } from 'node:child_process';
import type { RgbImage } from '../render/raster.ts';
import { ffmpegPath } from './binaries.ts';

/**
 * Encoding the engine's result images and videos with the bundled ffmpeg, from raw RGB frames
 * piped in: JPEG stills (mjpeg) and browser-playable H.264 MP4s (libx264, yuv420p, moov atom at
 * the front so a browser starts playing before the whole file is loaded).
 */

/**
 * Runs one ffmpeg per output (its arguments), each with raw RGB frames written to its stdin: item
 * i of every step of `frames` goes to output i. Waits for a pipe when it is full, so a slower
 * encoder holds the others back rather than frames piling up in memory.
 */
async function pipeRawFrames(
  outputs: readonly string[][],
  frames: AsyncIterable<readonly Uint8Array[]> | Iterable<readonly Uint8Array[]>,
): Promise<void> {
  const children = outputs.map((args) =>
    spawn(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
      stdio: ['pipe', 'ignore', 'pipe'],
    }),
  );
  const runs = children.map((child) => {
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // ffmpeg closing its input early (a failure) must not crash the process with EPIPE.
    child.stdin.on('error', () => undefined);
    return new Promise<{ code: number; stderr: Buffer[] }>((resolveExit, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolveExit({ code: code ?? -1, stderr }));
    });
  });
  try {
    for await (const step of frames) {
      if (children.some((child) => child.stdin.destroyed)) break;
      for (const [i, child] of children.entries()) {
        if (!child.stdin.write(step[i])) await writable(child.stdin);
      }
    }
  } finally {
    for (const child of children) child.stdin.end();
  }
  for (const { code, stderr } of await Promise.all(runs)) {
    if (code !== 0)
      throw new Error(
        `ffmpeg failed to encode (exit code ${code}): ${Buffer.concat(stderr).toString('utf8').trim().split('\n').at(-1) ?? ''}`,
      );
  }
}

/** Resolves when a full pipe has drained, or closed (ffmpeg gave up: its exit code says why). */
function writable(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolveWritable) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolveWritable();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

const rawInput = (width: number, height: number) => ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${width}x${height}`];

/** Writes one RGB image as a JPEG file. */
export function writeJpeg(image: RgbImage, path: string): Promise<void> {
  return pipeRawFrames(
    [
      [
        ...rawInput(image.width, image.height),
        '-i',
        'pipe:0',
        '-frames:v',
        '1',
        '-c:v',
        'mjpeg',
        '-q:v',
        '3',
        '-f',
        'image2',
        '-y',
        path,
      ],
    ],
    [[image.data]],
  );
}

export interface H264Options {
  width: number;
  height: number;
  fps: number;
}

/**
 * Writes H.264 MP4s of RGB frames (each width x height) at a constant `fps`, one per path, all at
 * once: every step of `frames` holds one frame per path, in the same order. Odd sizes are padded
 * by a pixel, as 4:2:0 chroma needs even ones.
 */
export function writeH264Mp4s(
  frames: AsyncIterable<readonly Uint8Array[]> | Iterable<readonly Uint8Array[]>,
  options: H264Options,
  paths: readonly string[],
): Promise<void> {
  const args = (path: string) => [
    ...rawInput(options.width, options.height),
    '-framerate',
    String(options.fps),
    '-i',
    'pipe:0',
    '-vf',
    'pad=ceil(iw/2)*2:ceil(ih/2)*2',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-pix_fmt',
    'yuv420p',
    '-movflags',
    '+faststart',
    '-f',
    'mp4',
    '-y',
    path,
  ];
  return pipeRawFrames(paths.map(args), frames);
}
