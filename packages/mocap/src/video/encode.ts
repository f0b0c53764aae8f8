import { spawn } from 'node:child_process';
import type { RgbImage } from '../render/raster.ts';
import { ffmpegPath } from './binaries.ts';

/**
 * Encoding the engine's result images and videos with the bundled ffmpeg, from raw RGB frames
 * piped in: JPEG stills (mjpeg) and browser-playable H.264 MP4s (libx264, yuv420p, moov atom at
 * the front so a browser starts playing before the whole file is loaded).
 */

/** Runs ffmpeg with raw RGB frames written to its stdin, waiting for the pipe when it is full. */
async function pipeRawFrames(args: string[], frames: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
  const child = spawn(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<number>((resolveExit, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolveExit(code ?? -1));
  });
  // ffmpeg closing its input early (a failure) must not crash the process with EPIPE.
  child.stdin.on('error', () => undefined);
  try {
    for await (const frame of frames) {
      if (child.stdin.destroyed) break;
      if (!child.stdin.write(frame)) await writable(child.stdin);
    }
  } finally {
    child.stdin.end();
  }
  const exitCode = await exited;
  if (exitCode !== 0)
    throw new Error(
      `ffmpeg failed to encode (exit code ${exitCode}): ${Buffer.concat(stderr).toString('utf8').trim().split('\n').at(-1) ?? ''}`,
    );
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
    [image.data],
  );
}

export interface H264Options {
  width: number;
  height: number;
  fps: number;
}

/**
 * Writes RGB frames (each width x height) as an H.264 MP4 at a constant `fps`. Odd sizes are
 * padded by a pixel, as 4:2:0 chroma needs even ones.
 */
export function writeH264Mp4(
  frames: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  options: H264Options,
  path: string,
): Promise<void> {
  return pipeRawFrames(
    [
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
    ],
    frames,
  );
}
