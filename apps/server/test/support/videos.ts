import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ffmpegPath = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;

/** A short real H.264 video made by ffmpeg's test source (what a phone would upload, in miniature). */
export function makeTestVideo(
  directory: string,
  name: string,
  seconds = 1,
  extension: 'mp4' | 'webm' = 'mp4',
  framerate = 30,
  size = '320x240',
): string {
  const path = join(directory, `${name}.${extension}`);
  const codec =
    extension === 'mp4' ? ['-c:v', 'libx264', '-pix_fmt', 'yuv420p'] : ['-c:v', 'libvpx-vp9', '-b:v', '200k'];
  execFileSync(ffmpegPath, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=size=${size}:rate=${framerate}`,
    '-t',
    String(seconds),
    ...codec,
    path,
  ]);
  return path;
}
