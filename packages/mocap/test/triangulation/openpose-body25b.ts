import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads Pose2Sim's OpenPose BODY_25B json folders (one file per frame, `people[].pose_keypoints_2d`
 * as x, y, confidence triplets) into our keypoint layout: frames × keypoints × 3, NaN where absent.
 * Test fixture code for comparing against Pose2Sim's triangulation of the same 2D keypoints.
 */
// BODY_25B keypoint indices of the markers Pose2Sim writes to its .trc (Pose2Sim skeletons.py).
export const BODY_25B_INDEX: Record<string, number> = {
  Nose: 0,
  LEye: 1,
  REye: 2,
  LEar: 3,
  REar: 4,
  LShoulder: 5,
  RShoulder: 6,
  LElbow: 7,
  RElbow: 8,
  LWrist: 9,
  RWrist: 10,
  LHip: 11,
  RHip: 12,
  LKnee: 13,
  RKnee: 14,
  LAnkle: 15,
  RAnkle: 16,
  Neck: 17,
  Head: 18,
  LBigToe: 19,
  LSmallToe: 20,
  LHeel: 21,
  RBigToe: 22,
  RSmallToe: 23,
  RHeel: 24,
};

export function readOpenPoseFolder(
  folder: string,
  keypointNames: readonly string[],
): { data: Float32Array; frameCount: number } {
  const files = readdirSync(folder)
    .filter((file) => file.endsWith('.json'))
    .sort();
  const data = new Float32Array(files.length * keypointNames.length * 3).fill(Number.NaN);
  files.forEach((file, frame) => {
    const parsed = JSON.parse(readFileSync(join(folder, file), 'utf8')) as {
      people: { pose_keypoints_2d?: number[] }[];
    };
    const person = parsed.people[0]?.pose_keypoints_2d;
    if (!person || person.length < 75) return;
    keypointNames.forEach((name, k) => {
      const index = BODY_25B_INDEX[name];
      const [x, y, confidence] = person.slice(index * 3, index * 3 + 3);
      if (!(confidence > 0)) return;
      const out = (frame * keypointNames.length + k) * 3;
      data[out] = x;
      data[out + 1] = y;
      data[out + 2] = confidence;
    });
  });
  return { data, frameCount: files.length };
}
