/** What probeVideo learns about a video file without decoding it. */
export interface VideoInfo {
  path: string;
  /** Size as displayed, after the phone's rotation metadata is applied (what decodeFrames returns). */
  width: number;
  height: number;
  /** Size of the frames as stored in the stream, before rotation. */
  codedWidth: number;
  codedHeight: number;
  /** Clockwise rotation (0, 90, 180 or 270) the player applies to the stored frames to show them upright. */
  rotationDeg: number;
  /** Real average frame rate: frames over the span of their timestamps (phones record at a variable rate). */
  fps: number;
  frameCount: number;
  durationS: number;
  /** ffmpeg's codec name: h264, hevc, vp8, vp9, ... */
  codec: string;
  /** ffmpeg's container (demuxer) name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm". */
  container: string;
  /** Presentation time of each frame in seconds, in display order, from the packets' timestamps. */
  timestampsS: Float64Array;
}

export type PixelFormat = 'gray' | 'rgb24';

/** One decoded frame: rows top to bottom, `channels` bytes a pixel (1 for gray, 3 for rgb24). */
export interface VideoFrame {
  /** Index of the frame in the video (0-based, display order), whatever start/step selected it. */
  index: number;
  /** Presentation time in seconds as the file stores it. */
  timestampS: number;
  width: number;
  height: number;
  pixelFormat: PixelFormat;
  data: Uint8Array;
}

export function channelsOf(pixelFormat: PixelFormat): number {
  return pixelFormat === 'gray' ? 1 : 3;
}
