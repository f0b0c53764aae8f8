import type { KinetraceKeypoints2d } from '@kinetrace/contracts';
import { KEYPOINT_VALUES, type Keypoints2D } from '../pose/types.ts';

/** A camera's keypoints as Kinetrace's keypoints JSON (the subject, the other people, the frame times), lossless. */
export function keypoints2DToJson(keypoints: Keypoints2D): KinetraceKeypoints2d {
  const stride = keypoints.keypointNames.length * KEYPOINT_VALUES;
  const frames = (layer: Float32Array, found?: Uint8Array) =>
    Array.from({ length: keypoints.frameCount }, (_, f) => {
      const values = Array.from(layer.subarray(f * stride, (f + 1) * stride), (v) => (Number.isNaN(v) ? null : v));
      const anyone = values.some((value, i) => i % KEYPOINT_VALUES === 2 && value !== null && value > 0);
      return (found ? found[f] === 1 : anyone) ? values : null;
    });
  return {
    format: 'kinetrace-keypoints-2d',
    version: 1,
    keypointNames: [...keypoints.keypointNames],
    imageSize: keypoints.imageSize,
    timestampsS: Array.from(keypoints.timestampsS),
    frames: frames(keypoints.data, keypoints.personFound),
    ...(keypoints.otherPeople ? { otherPeople: keypoints.otherPeople.map((layer) => frames(layer)) } : {}),
  };
}
