import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeypointSetName } from '@kinetrace/contracts';
import { KEYPOINT_SET_LAYOUTS } from '../../src/pose/keypoint-sets.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from '../../src/pose/types.ts';

/**
 * Writers of the OpenPose per-frame files `kinetrace process` reads, for feeding exactly known keypoints
 * (our own detections) through the chain (the Kinetrace keypoints JSON is src/formats/keypoints-2d-json.ts).
 */

/** One person's keypoints (VIDEO_KEYPOINTS layout) in a set's layout, 0, 0, 0 where we have none, as OpenPose writes. */
function inSet(set: KeypointSetName, keypoints: Float32Array): number[] {
  return KEYPOINT_SET_LAYOUTS[set].flatMap((name) => {
    const k = name === null ? -1 : VIDEO_KEYPOINTS.indexOf(name);
    const [x, y, confidence] = [0, 1, 2].map((axis) => (k < 0 ? 0 : keypoints[KEYPOINT_VALUES * k + axis]));
    return confidence > 0 && Number.isFinite(x) && Number.isFinite(y) ? [x, y, confidence] : [0, 0, 0];
  });
}

/**
 * A camera's keypoints as OpenPose writes them (`<camera>_000000000000_keypoints.json`, one per
 * frame, people[] of pose_keypoints_2d) into `folder`: the subject, then the other people seen.
 */
export function writeOpenPoseFolder(
  keypoints: Keypoints2D,
  set: KeypointSetName,
  folder: string,
  camera: string,
): void {
  mkdirSync(folder, { recursive: true });
  const stride = keypoints.keypointNames.length * KEYPOINT_VALUES;
  for (let f = 0; f < keypoints.frameCount; f++) {
    const layers = [keypoints.personFound[f] ? keypoints.data : null, ...(keypoints.otherPeople ?? [])];
    const people = layers.flatMap((layer) => {
      const person = layer?.subarray(f * stride, (f + 1) * stride);
      const values = person && inSet(set, person);
      return values && values.some((value) => value > 0)
        ? [{ person_id: [-1], pose_keypoints_2d: values, face_keypoints_2d: [], hand_left_keypoints_2d: [] }]
        : [];
    });
    writeFileSync(
      join(folder, `${camera}_${String(f).padStart(12, '0')}_keypoints.json`),
      JSON.stringify({ version: 1.3, people }),
    );
  }
}
