import { access } from 'node:fs/promises';
import { ffprobePath } from './binaries.ts';
import { VideoReadError } from './errors.ts';
import { runProcess } from './run-process.ts';
import type { VideoInfo } from './types.ts';

interface ProbeStream {
  codec_name?: string;
  width?: number;
  height?: number;
  coded_width?: number;
  coded_height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  tags?: { rotate?: string };
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

interface ProbeAnswer {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string };
  packets?: { pts_time?: string }[];
}

/**
 * Reads a video's geometry, rotation, frame rate and per-frame timestamps with ffprobe. Only the
 * container is read (packets, not pixels), so this is fast even for long 1080p videos.
 */
export async function probeVideo(path: string): Promise<VideoInfo> {
  await access(path).catch(() => {
    throw new VideoReadError(path, 'the file does not exist or cannot be opened');
  });
  const result = await runProcess(ffprobePath(), [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=codec_name,width,height,coded_width,coded_height,avg_frame_rate,r_frame_rate,nb_frames,duration' +
      ':stream_tags=rotate:stream_side_data=side_data_type,rotation:format=format_name,duration:packet=pts_time',
    '-of',
    'json',
    path,
  ]);
  if (result.exitCode !== 0) {
    throw new VideoReadError(path, `ffprobe failed (${firstLine(result.stderr) || `exit code ${result.exitCode}`})`);
  }
  const answer = JSON.parse(result.stdout) as ProbeAnswer;
  const stream = answer.streams?.[0];
  if (!stream || !stream.width || !stream.height) {
    throw new VideoReadError(path, 'it contains no video stream');
  }

  const timestampsS = Float64Array.from(
    (answer.packets ?? []).map((packet) => Number(packet.pts_time)).filter((t) => Number.isFinite(t)),
  ).sort();
  const rotationDeg = clockwiseRotationDeg(stream);
  const quarterTurn = rotationDeg === 90 || rotationDeg === 270;
  const frameCount = timestampsS.length > 0 ? timestampsS.length : Number(stream.nb_frames) || 0;
  if (frameCount === 0) throw new VideoReadError(path, 'its video stream has no frames');

  return {
    path,
    width: quarterTurn ? stream.height : stream.width,
    height: quarterTurn ? stream.width : stream.height,
    codedWidth: stream.coded_width || stream.width,
    codedHeight: stream.coded_height || stream.height,
    rotationDeg,
    fps: averageFps(timestampsS, stream),
    frameCount,
    durationS:
      Number(stream.duration) || Number(answer.format?.duration) || frameCount / averageFps(timestampsS, stream),
    codec: stream.codec_name ?? 'unknown',
    container: answer.format?.format_name ?? 'unknown',
    timestampsS,
  };
}

/**
 * Phones store portrait video as landscape frames plus a rotation: older files as a "rotate" tag
 * (clockwise degrees), newer ones only as a display matrix, whose rotation ffprobe reports
 * counterclockwise. Either way the answer is the clockwise turn that shows the frame upright.
 */
function clockwiseRotationDeg(stream: ProbeStream): number {
  const tag = stream.tags?.rotate;
  if (tag !== undefined && Number.isFinite(Number(tag))) return normaliseQuarterTurn(Number(tag));
  const matrix = stream.side_data_list?.find((side) => side.side_data_type === 'Display Matrix');
  if (matrix?.rotation !== undefined) return normaliseQuarterTurn(-matrix.rotation);
  return 0;
}

function normaliseQuarterTurn(degrees: number): number {
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

/** Frames per second over the span of the timestamps; the header's average when there are too few. */
function averageFps(timestampsS: Float64Array, stream: ProbeStream): number {
  const n = timestampsS.length;
  if (n >= 2 && timestampsS[n - 1] > timestampsS[0]) return (n - 1) / (timestampsS[n - 1] - timestampsS[0]);
  return parseRate(stream.avg_frame_rate) || parseRate(stream.r_frame_rate) || 0;
}

function parseRate(rate: string | undefined): number {
  if (!rate) return 0;
  const [numerator, denominator] = rate.split('/').map(Number);
  return denominator ? numerator / denominator : numerator || 0;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
