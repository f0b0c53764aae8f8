import type { VideoKeypoint } from './keypoints.ts';

/** Values stored per keypoint per frame in Keypoints2D.data: x (px), y (px), confidence (0..1). */
export const KEYPOINT_VALUES = 3;

/**
 * One camera's 2D keypoints over a video: the output of detectPose2D, the input of synchronisation
 * and triangulation. Coordinates are in pixels of the upright video as displayed (`imageSize`, the
 * size probeVideo reports), origin at the top-left corner of the top-left pixel, y down.
 */
export interface Keypoints2D {
  /** Names of the keypoints, in the order of data's second axis (VIDEO_KEYPOINTS). */
  keypointNames: readonly VideoKeypoint[];
  frameCount: number;
  /** Average frame rate of the video (frames per second). */
  fps: number;
  /** Presentation time of each frame in seconds. */
  timestampsS: Float64Array;
  /** Size of the images the coordinates refer to, in pixels. */
  imageSize: { width: number; height: number };
  /**
   * frameCount x keypointNames.length x 3 values: x px, y px, confidence 0..1. Where no person was
   * found in a frame, x and y are NaN and confidence is 0.
   */
  data: Float32Array;
  /** 1 where the tracked person was found in the frame, 0 where not. */
  personFound: Uint8Array;
  /**
   * Other people seen in the frames, when the pose stage kept them: each layer is shaped like
   * `data` (NaN and confidence 0 where that layer holds nobody). Reconstruction picks, per frame,
   * the person the cameras agree on (associatePerson), so a camera whose tracker took a bystander
   * is corrected.
   */
  otherPeople?: readonly Float32Array[];
}

/** Index into Keypoints2D.data of keypoint `keypoint` in frame `frame` (then +0 x, +1 y, +2 confidence). */
export function keypointOffset(keypoints: Pick<Keypoints2D, 'keypointNames'>, frame: number, keypoint: number): number {
  return (frame * keypoints.keypointNames.length + keypoint) * KEYPOINT_VALUES;
}

/** `frameCount` frames of nobody in Keypoints2D.data's layout: x and y NaN, confidence 0. */
export function noKeypoints(frameCount: number, keypointCount: number): Float32Array {
  const data = new Float32Array(frameCount * keypointCount * KEYPOINT_VALUES);
  for (let i = 0; i < data.length; i += KEYPOINT_VALUES) data.fill(Number.NaN, i, i + 2);
  return data;
}
