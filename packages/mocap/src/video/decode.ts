import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ffmpegPath } from './binaries.ts';
import { VideoReadError } from './errors.ts';
import { probeVideo } from './probe.ts';
import { channelsOf, type PixelFormat, type VideoFrame, type VideoInfo } from './types.ts';

export interface DecodeOptions {
  /** 'rgb24' (default) or 'gray'. */
  pixelFormat?: PixelFormat;
  /** Downscale (never upscale), keeping the aspect ratio, so the frame fits in maxWidth x maxHeight. */
  maxWidth?: number;
  maxHeight?: number;
  /** First frame to return (0-based display index, default 0). */
  startFrame?: number;
  /** Frame index to stop before (exclusive; default: the end of the video). */
  endFrame?: number;
  /** Return every step-th frame from startFrame (default 1). */
  step?: number;
  /** With a step: return the range's last frame too, when the step passes it by (its end is then covered). */
  withLastFrame?: boolean;
  /** Return only these frames (0-based display indices, increasing) instead of a range. */
  frames?: readonly number[];
  /** The probe of this file, when the caller already has it (saves one ffprobe run). */
  info?: VideoInfo;
  /** Frames decoded ahead of the consumer (default 3): overlaps decoding with the consumer's work. */
  readAheadFrames?: number;
}

/** The size decodeFrames returns for a video of the given displayed size and options. */
export function decodedSize(
  displayWidth: number,
  displayHeight: number,
  options: Pick<DecodeOptions, 'maxWidth' | 'maxHeight'>,
): { width: number; height: number } {
  const scale = Math.min(
    1,
    (options.maxWidth ?? Infinity) / displayWidth,
    (options.maxHeight ?? Infinity) / displayHeight,
  );
  if (scale >= 1) return { width: displayWidth, height: displayHeight };
  return {
    width: Math.max(1, Math.round(displayWidth * scale)),
    height: Math.max(1, Math.round(displayHeight * scale)),
  };
}

/**
 * Decodes a video's frames upright (rotation metadata applied), optionally downscaled and thinned,
 * streaming them from ffmpeg's raw output. A few frames are decoded ahead of the consumer; when
 * it is slower, the pipe fills and ffmpeg waits, so memory stays flat whatever the video's length.
 * Each frame carries the presentation timestamp the file stores (no frame is duplicated or dropped
 * to force a constant rate), so variable-rate phone videos keep their real timing.
 */
export async function* decodeFrames(path: string, options: DecodeOptions = {}): AsyncGenerator<VideoFrame> {
  const info = options.info ?? (await probeVideo(path));
  const pixelFormat = options.pixelFormat ?? 'rgb24';
  const { width, height } = decodedSize(info.width, info.height, options);
  const startFrame = Math.max(0, Math.floor(options.startFrame ?? 0));
  const endFrame = Math.min(info.frameCount, Math.floor(options.endFrame ?? info.frameCount));
  const step = Math.max(1, Math.floor(options.step ?? 1));
  const picked = options.frames?.filter((frame) => frame >= 0 && frame < info.frameCount);
  const steppedCount = Math.max(0, Math.ceil((endFrame - startFrame) / step));
  const lastFrameAdded = !picked && options.withLastFrame === true && (endFrame - 1 - startFrame) % step !== 0;
  const wantedCount = picked ? picked.length : steppedCount + (lastFrameAdded ? 1 : 0);
  if (wantedCount === 0) return;
  const indexOf = (produced: number) =>
    picked ? picked[produced] : produced < steppedCount ? startFrame + produced * step : endFrame - 1;
  const stepped = `not(mod(n-${startFrame},${step}))`;

  const filters = [
    picked
      ? `select='${picked.map((frame) => `eq(n,${frame})`).join('+')}'`
      : `select='between(n,${startFrame},${endFrame - 1})*${lastFrameAdded ? `max(${stepped},eq(n,${endFrame - 1}))` : stepped}'`,
    // showinfo logs each selected frame's pts_time on stderr, in output order: the real timestamps.
    'showinfo',
  ];
  if (width !== info.width || height !== info.height) filters.push(`scale=${width}:${height}:flags=area`);

  const child = spawn(
    ffmpegPath(),
    [
      '-hide_banner',
      '-nostats',
      '-nostdin',
      '-i',
      path,
      '-map',
      '0:v:0',
      '-vf',
      filters.join(','),
      '-vsync',
      'passthrough',
      '-frames:v',
      String(wantedCount),
      '-f',
      'rawvideo',
      '-pix_fmt',
      pixelFormat,
      'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const timestamps = new ShowinfoTimestamps(child.stderr);
  const exited = new Promise<number>((resolveExit, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolveExit(code ?? -1));
  });

  const frames = new FrameAssembler(
    child.stdout,
    width * height * channelsOf(pixelFormat),
    options.readAheadFrames ?? 3,
  );
  let produced = 0;
  try {
    for (let data = await frames.next(); data; data = await frames.next()) {
      const timestampS = await timestamps.at(produced);
      yield { index: indexOf(produced), timestampS, width, height, pixelFormat, data };
      produced++;
    }
    const exitCode = await exited;
    if (exitCode !== 0 || produced === 0) {
      throw new VideoReadError(
        path,
        `ffmpeg could not decode it (${timestamps.lastMessage() || `exit code ${exitCode}`})`,
      );
    }
  } finally {
    // The consumer may stop early: do not leave ffmpeg running behind it.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/**
 * Cuts ffmpeg's raw output into frames and keeps a few decoded ahead, so that ffmpeg decodes the
 * next frames while the consumer works on this one; beyond that it pauses the pipe (ffmpeg then
 * waits), which bounds memory to `readAheadFrames` frames.
 */
class FrameAssembler {
  private readonly ready: Uint8Array[] = [];
  private current: Uint8Array;
  private filled = 0;
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private readonly stream: NodeJS.ReadableStream,
    private readonly frameBytes: number,
    private readonly readAheadFrames: number,
  ) {
    this.current = new Uint8Array(frameBytes);
    stream.on('data', (chunk: Buffer) => this.take(chunk));
    stream.on('end', () => this.finish(null));
    stream.on('error', (error: Error) => this.finish(error));
  }

  /** The next whole frame, or null at the end of the stream. */
  async next(): Promise<Uint8Array | null> {
    while (this.ready.length === 0 && !this.ended) await new Promise<void>((resolveWake) => (this.wake = resolveWake));
    if (this.failure) throw this.failure;
    const frame = this.ready.shift() ?? null;
    if (this.ready.length < this.readAheadFrames) this.stream.resume();
    return frame;
  }

  private take(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const count = Math.min(this.frameBytes - this.filled, chunk.length - offset);
      this.current.set(chunk.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
      if (this.filled === this.frameBytes) {
        this.ready.push(this.current);
        this.current = new Uint8Array(this.frameBytes);
        this.filled = 0;
      }
    }
    if (this.ready.length >= this.readAheadFrames) this.stream.pause();
    this.notify();
  }

  private finish(error: Error | null): void {
    this.ended = true;
    this.failure = error;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/**
 * Collects the pts_time of each frame that ffmpeg's showinfo filter reports on stderr, and keeps
 * ffmpeg's last other message for error reports.
 */
class ShowinfoTimestamps {
  private readonly valuesS: number[] = [];
  private ended = false;
  private wake: (() => void) | null = null;
  private lastLine = '';

  constructor(stderr: NodeJS.ReadableStream) {
    const lines = createInterface({ input: stderr });
    lines.on('line', (line) => {
      const match = /pts_time:\s*(-?[\d.e+-]+)/.exec(line);
      if (line.includes('showinfo') && match) this.valuesS.push(Number(match[1]));
      else if (line.trim()) this.lastLine = line.trim();
      this.notify();
    });
    lines.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  /** The timestamp of the n-th output frame (waits for its line; NaN if ffmpeg never reported it). */
  async at(n: number): Promise<number> {
    while (this.valuesS.length <= n && !this.ended) await new Promise<void>((resolveWake) => (this.wake = resolveWake));
    return this.valuesS[n] ?? Number.NaN;
  }

  lastMessage(): string {
    return this.lastLine;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}

/** Decodes a still image (JPEG, PNG, ...) into one frame. */
export async function decodeImage(path: string, pixelFormat: PixelFormat = 'rgb24'): Promise<VideoFrame> {
  let info: VideoInfo;
  try {
    info = await probeVideo(path);
  } catch (error) {
    if (error instanceof VideoReadError) throw new VideoReadError(path, 'ffprobe cannot read it', 'image');
    throw error;
  }
  for await (const frame of decodeFrames(path, { pixelFormat, info, endFrame: 1 })) return { ...frame, timestampS: 0 };
  throw new VideoReadError(path, 'it holds no picture', 'image');
}
