import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { BODY_25B_INDEX, readOpenPoseFolder } from '../triangulation/openpose-body25b.ts';

/**
 * Pose2Sim's OpenPose keypoints of one demo camera as our Keypoints2D (VIDEO_KEYPOINTS order, midHip
 * the midpoint of the hips as BlazePose's is): a stand-in for our pose model that makes pipeline
 * tests fast and independent of the model.
 */
export function openPoseAsKeypoints2D(folder: string, fps = 60): Keypoints2D {
  const names = Object.keys(BODY_25B_INDEX);
  const { data: source, frameCount } = readOpenPoseFolder(folder, names);
  const data = new Float32Array(frameCount * VIDEO_KEYPOINTS.length * 3).fill(Number.NaN);
  const personFound = new Uint8Array(frameCount);
  for (let frame = 0; frame < frameCount; frame++) {
    const read = (name: string, axis: number) => source[(frame * names.length + names.indexOf(name)) * 3 + axis];
    VIDEO_KEYPOINTS.forEach((name, k) => {
      const out = (frame * VIDEO_KEYPOINTS.length + k) * 3;
      if (name === 'midHip') {
        for (let axis = 0; axis < 2; axis++) data[out + axis] = (read('RHip', axis) + read('LHip', axis)) / 2;
        data[out + 2] = Math.min(read('RHip', 2), read('LHip', 2));
      } else {
        for (let axis = 0; axis < 3; axis++) data[out + axis] = read(name, axis);
      }
      if (Number.isNaN(data[out + 2])) data[out + 2] = 0;
      else personFound[frame] = 1;
    });
  }
  return {
    keypointNames: VIDEO_KEYPOINTS,
    frameCount,
    fps,
    timestampsS: Float64Array.from({ length: frameCount }, (_, i) => i / fps),
    imageSize: { width: 1088, height: 1920 },
    data,
    personFound,
  };
}
