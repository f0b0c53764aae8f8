import type { KeypointSetName } from '@kinetrace/contracts';
import { VIDEO_KEYPOINTS, type VideoKeypoint } from './keypoints.ts';
import { KEYPOINT_VALUES } from './types.ts';

export type { KeypointSetName };

/**
 * COCO-17 (COCO keypoint task, person_keypoints annotations' "keypoints" list; RTMPose/rtmlib's body
 * models): nose, left/right eye, left/right ear, shoulders, elbows, wrists, hips, knees, ankles, each
 * left then right. No neck, mid-hip or feet. BODY_25B and Halpe-26 start with the same 17.
 */
export const COCO_17: readonly VideoKeypoint[] = [
  'Nose',
  'LEye',
  'REye',
  'LEar',
  'REar',
  'LShoulder',
  'RShoulder',
  'LElbow',
  'RElbow',
  'LWrist',
  'RWrist',
  'LHip',
  'RHip',
  'LKnee',
  'RKnee',
  'LAnkle',
  'RAnkle',
];

/**
 * The keypoint sets other 2D pose tools write in the OpenPose JSON layout, each as its keypoints'
 * names in index order (our names, VIDEO_KEYPOINTS, where the keypoint is one we use; null where it is
 * not). A set without Neck or midHip gets them as the midpoints of the shoulders and of the hips,
 * as our pose model does (keypoints.ts); a set without feet (COCO-17) leaves heels and toes missing.
 */
export const KEYPOINT_SET_LAYOUTS: Record<KeypointSetName, readonly (VideoKeypoint | null)[]> = {
  // OpenPose BODY_25: doc/02_output.md of CMU-Perceptual-Computing-Lab/openpose, "Pose Output Format
  // (BODY_25)": 0 Nose, 1 Neck, 2-4 right arm, 5-7 left arm, 8 MidHip, 9-11 right leg, 12-14 left leg,
  // 15 REye, 16 LEye, 17 REar, 18 LEar, 19 LBigToe, 20 LSmallToe, 21 LHeel, 22 RBigToe, 23 RSmallToe, 24 RHeel.
  body25: [
    'Nose',
    'Neck',
    'RShoulder',
    'RElbow',
    'RWrist',
    'LShoulder',
    'LElbow',
    'LWrist',
    'midHip',
    'RHip',
    'RKnee',
    'RAnkle',
    'LHip',
    'LKnee',
    'LAnkle',
    'REye',
    'LEye',
    'REar',
    'LEar',
    'LBigToe',
    null, // LSmallToe
    'LHeel',
    'RBigToe',
    null, // RSmallToe
    'RHeel',
  ],
  // OpenPose's experimental BODY_25B (openpose_train, experimental_models/README.md), the set Pose2Sim's
  // demo was made with (Pose2Sim skeletons.py, BODY_25B): COCO's 17 first, then 17 Neck, 18 Head,
  // 19 LBigToe, 20 LSmallToe, 21 LHeel, 22 RBigToe, 23 RSmallToe, 24 RHeel. It has no MidHip.
  body25b: [
    ...COCO_17,
    'Neck',
    null, // Head
    'LBigToe',
    null, // LSmallToe
    'LHeel',
    'RBigToe',
    null, // RSmallToe
    'RHeel',
  ],
  coco17: COCO_17,
  // Halpe-26 (Fang-Haoshu/Halpe-FullBody README; AlphaPose and RTMPose's body7 "halpe26" models,
  // Pose2Sim skeletons.py HALPE_26): COCO's 17, then 17 Head, 18 Neck, 19 Hip (mid-hip), 20 LBigToe,
  // 21 RBigToe, 22 LSmallToe, 23 RSmallToe, 24 LHeel, 25 RHeel.
  halpe26: [
    ...COCO_17,
    null, // Head
    'Neck',
    'midHip',
    'LBigToe',
    'RBigToe',
    null, // LSmallToe
    null, // RSmallToe
    'LHeel',
    'RHeel',
  ],
};

/** Keypoints per person of each set. */
export function keypointSetSize(set: KeypointSetName): number {
  return KEYPOINT_SET_LAYOUTS[set].length;
}

/**
 * The set a file's keypoint count implies: 17 COCO, 26 Halpe; 25 is OpenPose's BODY_25 (its default
 * model), as BODY_25B has as many keypoints and must be named.
 */
export function keypointSetOfSize(count: number): KeypointSetName | undefined {
  return ({ 17: 'coco17', 25: 'body25', 26: 'halpe26' } as Record<number, KeypointSetName>)[count];
}

/** Where each VIDEO_KEYPOINTS keypoint is in a set's list: its index, or the two it is the midpoint of. */
function sourcesOf(set: KeypointSetName): (readonly number[])[] {
  const names = KEYPOINT_SET_LAYOUTS[set];
  const at = (name: VideoKeypoint) => names.indexOf(name);
  return VIDEO_KEYPOINTS.map((name) => {
    if (at(name) >= 0) return [at(name)];
    if (name === 'Neck') return [at('LShoulder'), at('RShoulder')];
    if (name === 'midHip') return [at('LHip'), at('RHip')];
    return [];
  });
}
const SOURCES = Object.fromEntries(
  (Object.keys(KEYPOINT_SET_LAYOUTS) as KeypointSetName[]).map((set) => [set, sourcesOf(set)]),
) as Record<KeypointSetName, (readonly number[])[]>;

/**
 * One person's keypoints of `set` (x, y, confidence triplets, 0-confidence where not found as
 * OpenPose writes them) into `out` (VIDEO_KEYPOINTS × [x, y, confidence], NaN x and y and
 * confidence 0 where not found). A midpoint takes the lower confidence of its two ends, as ours do.
 */
export function videoKeypointsFromSet(set: KeypointSetName, triplets: ArrayLike<number>, out: Float32Array): void {
  SOURCES[set].forEach((sources, keypoint) => {
    let [x, y, lowest] = [0, 0, sources.length > 0 ? Infinity : 0];
    for (const source of sources) {
      x += triplets[KEYPOINT_VALUES * source];
      y += triplets[KEYPOINT_VALUES * source + 1];
      lowest = Math.min(lowest, triplets[KEYPOINT_VALUES * source + 2]);
    }
    const seen = lowest > 0;
    out[KEYPOINT_VALUES * keypoint] = seen ? x / sources.length : Number.NaN;
    out[KEYPOINT_VALUES * keypoint + 1] = seen ? y / sources.length : Number.NaN;
    out[KEYPOINT_VALUES * keypoint + 2] = seen ? lowest : 0;
  });
}
