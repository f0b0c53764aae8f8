import type { IkRobustness } from '../ik/ik-problem.ts';

/**
 * How inverse kinematics on video keypoints uses the default model: marker weights, the neutral
 * pose the marker placer assumes, weak priors for the directions keypoints cannot see, and the
 * robustness keypoints need.
 */

/**
 * Marker weights. The face keypoints ride on the torso here although the head turns on the neck,
 * so they steer the trunk only lightly.
 */
export const DEFAULT_KEYPOINT_WEIGHTS: Readonly<Record<string, number>> = {
  Nose: 0.1,
  LEye: 0.1,
  REye: 0.1,
  LEar: 0.1,
  REar: 0.1,
  Neck: 1,
  RShoulder: 1,
  LShoulder: 1,
  RElbow: 1,
  LElbow: 1,
  RWrist: 1,
  LWrist: 1,
  midHip: 1,
  RHip: 1,
  LHip: 1,
  RKnee: 1,
  LKnee: 1,
  RAnkle: 1,
  LAnkle: 1,
  RHeel: 1,
  LHeel: 1,
  RBigToe: 1,
  LBigToe: 1,
  RSmallToe: 1,
  LSmallToe: 1,
};

type CoordinateTask = { coordinate: string; weight: number; value: number };

const SIDES = ['r', 'l'] as const;
const JOINT_COORDINATES = [
  ...SIDES.flatMap((s) => [
    `hip_flexion_${s}`,
    `hip_adduction_${s}`,
    `hip_rotation_${s}`,
    `knee_angle_${s}`,
    `ankle_angle_${s}`,
    `subtalar_angle_${s}`,
    `mtp_angle_${s}`,
  ]),
  'lumbar_extension',
  'lumbar_bending',
  'lumbar_rotation',
  ...SIDES.flatMap((s) => [`arm_flex_${s}`, `arm_add_${s}`, `arm_rot_${s}`, `elbow_flex_${s}`, `pro_sup_${s}`]),
];

/**
 * The neutral trial is the subject standing upright, feet forward, arms by the sides (OpenCap's
 * neutral pose), so the marker placer holds every joint near 0 with weight 0.1 per rad²: a 6°
 * deviation costs as much as a 3 cm marker miss, so clear keypoint evidence still wins (OpenCap's
 * own keypoint scaling setup, Setup_scaling_LaiUhlrich2022_openpose.xml, uses the same 0.1 for
 * hips, knees, ankles and lumbar). Markers then move onto the measured keypoints and this
 * subject's neutral becomes the model's zero.
 */
export const NEUTRAL_POSE_TASKS: readonly CoordinateTask[] = JOINT_COORDINATES.filter(
  (c) => !/^(arm_flex|arm_add|elbow_flex)_/.test(c),
).map((coordinate) => ({ coordinate, weight: 0.1, value: 0 }));

/**
 * Weak priors during motion for what keypoints barely constrain: pelvis tilt against lumbar
 * extension (the three pelvis keypoints lie on one line, so the trunk can tilt at either joint),
 * trunk bending and rotation, and forearm rotation (no hand keypoints). Weight 0.001 per rad²:
 * 20° costs as much as a 1.1 cm marker miss.
 */
const TRUNK_AND_FOREARM_PRIORS: readonly CoordinateTask[] = [
  'lumbar_extension',
  'lumbar_bending',
  'lumbar_rotation',
  'arm_rot_r',
  'arm_rot_l',
  'pro_sup_r',
  'pro_sup_l',
].map((coordinate) => ({ coordinate, weight: 0.001, value: 0 }));

/**
 * The foot carries three keypoints: the ankle (the joint centre, on the talus), the heel and the
 * big toe (BlazePose's foot index). The heel sits where the subtalar axis leaves the calcaneus (the
 * calcaneus frame's origin), so subtalar rotation moves only the toe keypoint, which dorsiflexion
 * also moves: the subtalar axis rises 42° from the horizontal (Inman 1976), so a turn about it
 * pitches the foot as well as inverting it. Unheld, noise in that one keypoint swung the subtalar
 * by ±25° on the Pose2Sim demo and took the ankle angle with it, 8.4° RMS away from the angle the
 * keypoints themselves give. Weight 0.01 per rad²: a 10° turn costs as much as a 1.7 cm marker
 * miss, the keypoints' own noise while standing still (1.5-2 cm), so only a toe keypoint clearly
 * off the foot's line turns it far. The mtp joint stays free: its extension at push-off is large
 * and real (on the OpenCap drop jump's keypoints it reaches the model's 30° limit), and a prior on
 * it moved that pitch into the ankle (3° more plantarflexion at take-off).
 */
const SUBTALAR_PRIORS: readonly CoordinateTask[] = ['subtalar_angle_r', 'subtalar_angle_l'].map((coordinate) => ({
  coordinate,
  weight: 0.01,
  value: 0,
}));

/** The coordinate priors of IK on a dynamic trial with the default model. */
export const MOTION_PRIOR_TASKS: readonly CoordinateTask[] = [...TRUNK_AND_FOREARM_PRIORS, ...SUBTALAR_PRIORS];

/**
 * Keypoints are noisy (a few cm) and now and then wrong (a limb mislabelled in a camera, tens of
 * cm). Cauchy scale 5 cm: a marker 5 cm off counts half, one 30 cm off 3 % (so one bad keypoint
 * cannot drag a limb), while keypoint noise keeps almost full weight. Continuity 0.01 per rad²:
 * a 5° change between frames (300°/s at 60 Hz) costs as much as a 0.9 mm marker miss, a 90° flip
 * as much as a 16 cm one.
 */
export const KEYPOINT_IK_ROBUSTNESS: Readonly<IkRobustness> = { cauchyScaleM: 0.05, continuityWeight: 0.01 };

/**
 * A keypoint more than this from the model standing in the neutral pose, after the marker placer's
 * IK, is not one a standing body has there: its marker keeps the model's place (at the joint centre,
 * or on the foot) instead of freezing that error into the model as the subject's zero. 5 cm is over
 * twice the keypoints' own noise standing still (1.5-2 cm, above) and above every leg keypoint's
 * error with four cameras on the Pose2Sim demo (at most 4.7 cm, a big toe; the ears, 5.1-5.9 cm,
 * stay at the model's places); two cameras behind the subject put a knee 7.5 cm and the big toes
 * 7-10 cm off there (cam01+cam02), which gave the knee and ankle angles offsets of 19-31° on the
 * demo's balancing trial.
 */
export const NEUTRAL_MAX_MARKER_MOVE_M = 0.05;
