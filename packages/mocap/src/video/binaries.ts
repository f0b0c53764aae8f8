import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The ffmpeg binary: FFMPEG_PATH when set (a system ffmpeg, a newer build), otherwise the static
 * build that the npm package @ffmpeg-installer/ffmpeg ships, so that a fresh checkout needs nothing else.
 */
export function ffmpegPath(): string {
  return process.env.FFMPEG_PATH || (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

/** The ffprobe binary: FFPROBE_PATH when set, otherwise the one @ffprobe-installer/ffprobe ships. */
export function ffprobePath(): string {
  return process.env.FFPROBE_PATH || (require('@ffprobe-installer/ffprobe') as { path: string }).path;
}
