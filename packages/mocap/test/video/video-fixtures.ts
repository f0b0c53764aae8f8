import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath } from '../../src/video/binaries.ts';

/** Small test clips made with ffmpeg's testsrc2 pattern, in a temporary folder removed by `remove`. */
export class VideoFixtures {
  readonly folder = mkdtempSync(join(tmpdir(), 'kinetrace-video-'));

  /** Encodes `frames` frames of testsrc2 at the given size and rate; returns the file path. */
  encode(
    name: string,
    codecArgs: string[],
    { width = 320, height = 240, fps = 30, frames = 12, filter = '' } = {},
  ): string {
    const path = join(this.folder, name);
    const source = `testsrc2=size=${width}x${height}:rate=${fps}`;
    // codecArgs come last so that they can override the pixel format (10-bit HEVC).
    this.ffmpeg([
      '-f',
      'lavfi',
      '-i',
      source,
      '-frames:v',
      String(frames),
      ...(filter ? ['-vf', filter] : []),
      '-pix_fmt',
      'yuv420p',
      ...codecArgs,
      path,
    ]);
    return path;
  }

  /** Copies a video's stream into a new file with a rotate tag (what phones write for portrait). */
  withRotation(sourcePath: string, name: string, rotateTagDeg: number): string {
    const path = join(this.folder, name);
    this.ffmpeg(['-i', sourcePath, '-c', 'copy', '-metadata:s:v:0', `rotate=${rotateTagDeg}`, path]);
    return path;
  }

  ffmpeg(args: string[]): void {
    const result = spawnSync(ffmpegPath(), ['-v', 'error', '-y', ...args], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`ffmpeg ${args.join(' ')} failed: ${result.stderr}`);
  }

  remove(): void {
    rmSync(this.folder, { recursive: true, force: true });
  }
}

export function encoderAvailable(encoder: string): boolean {
  const result = spawnSync(ffmpegPath(), ['-hide_banner', '-encoders'], { encoding: 'utf8' });
  return new RegExp(`\\s${encoder}\\s`).test(result.stdout);
}
