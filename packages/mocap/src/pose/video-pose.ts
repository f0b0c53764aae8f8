import { decodeFrames } from '../video/decode.ts';
import { probeVideo } from '../video/probe.ts';
import type { VideoInfo } from '../video/types.ts';
import { detectPose2D, type DetectPose2DOptions } from './detect-pose.ts';
import { POSE_INPUT_MAX_SIDE_PX } from './pose-model.ts';
import type { Keypoints2D } from './types.ts';

export interface VideoPoseOptions extends Omit<DetectPose2DOptions, 'imageSize' | 'fps' | 'frameCount'> {
  /** The probe of the video, when the caller already has it. */
  info?: VideoInfo;
  /** Longer side the frames are decoded at for the model (default POSE_INPUT_MAX_SIDE_PX). */
  maxSidePx?: number;
  /** Only frames startFrame <= index < endFrame (default: all). */
  startFrame?: number;
  endFrame?: number;
}

/**
 * 2D keypoints of one person in a camera's video file: decodes it upright and downscaled for the
 * model, streaming, and returns keypoints in the pixels of the video as displayed, with its real
 * timestamps and average frame rate. The camera name defaults to the file's path.
 */
export async function detectPoseInVideo(path: string, options: VideoPoseOptions = {}): Promise<Keypoints2D> {
  const { info: knownInfo, maxSidePx = POSE_INPUT_MAX_SIDE_PX, startFrame, endFrame, ...poseOptions } = options;
  const info = knownInfo ?? (await probeVideo(path));
  const frames = decodeFrames(path, {
    info,
    pixelFormat: 'rgb24',
    maxWidth: maxSidePx,
    maxHeight: maxSidePx,
    startFrame,
    endFrame,
  });
  const selectedCount = Math.min(endFrame ?? info.frameCount, info.frameCount) - (startFrame ?? 0);
  return detectPose2D(frames, {
    cameraName: path,
    ...poseOptions,
    imageSize: { width: info.width, height: info.height },
    fps: info.fps,
    frameCount: selectedCount,
  });
}
