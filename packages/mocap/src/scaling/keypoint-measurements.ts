import type { Measurement } from '../formats/scale-setup.ts';

/**
 * Segment measurements from video keypoints (Kinetrace's default model carries a marker at each
 * keypoint): each body is scaled uniformly by the ratio of keypoint-pair distances, both sides
 * averaged as OpenSim averages marker pairs. Trunk length comes from Neck–midHip (it spans torso
 * and pelvis, so it sets the pelvis height and depth too), trunk breadth from the shoulders, pelvis
 * breadth from the hip keypoints, the head from the face keypoints, the foot from heel to big toe.
 * Order matters: a later measurement overrides the axes an earlier one set (torso Z from the
 * shoulder breadth after the uniform torso length factor).
 *
 * Which measurement scales which body follows OpenCap's scale setup for LaiUhlrich2022 and
 * LaiUhlrich2022_shoulder (opencap-core@d5a5258954, opensimPipeline/Scaling/Setup_scaling_LaiUhlrich2022.xml,
 * the setup its main.py scales both models with): the scapulae of the shoulder model
 * (scapulaPhantom_r/l, between the torso and the humeri) as the torso on every axis, the patella with
 * the femur, the talus with the foot. Bodies a model lacks are skipped.
 */
const XYZ = [0, 1, 2] as (0 | 1 | 2)[];
const bothSides = (make: (s: 'R' | 'L') => [string, string]): Array<[string, string]> => [make('R'), make('L')];
const bodiesBothSides = (...names: string[]) =>
  names.flatMap((name) => [`${name}_r`, `${name}_l`]).map((body) => ({ body, axes: XYZ }));
const scapulae = (axes: (0 | 1 | 2)[]) => ['scapulaPhantom_r', 'scapulaPhantom_l'].map((body) => ({ body, axes }));

export const KEYPOINT_MEASUREMENTS: Measurement[] = [
  {
    name: 'trunk',
    apply: true,
    markerPairs: [['Neck', 'midHip']],
    bodyScales: [{ body: 'torso', axes: XYZ }, ...scapulae(XYZ), { body: 'pelvis', axes: [0, 1] }],
  },
  { name: 'hip breadth', apply: true, markerPairs: [['RHip', 'LHip']], bodyScales: [{ body: 'pelvis', axes: [2] }] },
  // The head from the face keypoints' distances to the mid-shoulder point (its frame's origin).
  {
    name: 'head',
    apply: true,
    markerPairs: [
      ['Neck', 'Nose'],
      ['Neck', 'REye'],
      ['Neck', 'LEye'],
    ],
    bodyScales: [{ body: 'head', axes: XYZ }],
  },
  {
    name: 'shoulder breadth',
    apply: true,
    markerPairs: [['RShoulder', 'LShoulder']],
    bodyScales: [{ body: 'torso', axes: [2] }, ...scapulae([2])],
  },
  {
    name: 'thigh',
    apply: true,
    markerPairs: bothSides((s) => [`${s}Hip`, `${s}Knee`]),
    bodyScales: bodiesBothSides('femur', 'patella'),
  },
  {
    name: 'shank',
    apply: true,
    markerPairs: bothSides((s) => [`${s}Knee`, `${s}Ankle`]),
    bodyScales: bodiesBothSides('tibia'),
  },
  {
    name: 'foot',
    apply: true,
    markerPairs: bothSides((s) => [`${s}Heel`, `${s}BigToe`]),
    bodyScales: bodiesBothSides('talus', 'calcn', 'toes'),
  },
  {
    name: 'upper arm',
    apply: true,
    markerPairs: bothSides((s) => [`${s}Shoulder`, `${s}Elbow`]),
    bodyScales: bodiesBothSides('humerus'),
  },
  {
    name: 'forearm',
    apply: true,
    markerPairs: bothSides((s) => [`${s}Elbow`, `${s}Wrist`]),
    bodyScales: bodiesBothSides('ulna', 'radius', 'hand'),
  },
];

/** The keypoints the measurements use: the still window is searched on these. */
export const KEYPOINT_MEASUREMENT_MARKERS = [...new Set(KEYPOINT_MEASUREMENTS.flatMap((m) => m.markerPairs.flat()))];

/**
 * The measurements scaling cannot do without: thigh and shank lengths place the hip, knee and ankle
 * joint centres the lower-limb angles are read from, and the height alone gives only a population's
 * average leg (segment lengths as fractions of height, Winter, Biomechanics and Motor Control of Human
 * Movement, 4th ed., 2009, ch. 4, are averages), not this subject's. Either side measured is enough
 * (both are averaged when seen). The other bodies keep the model's proportions at the subject's height when
 * their keypoints are not seen (an ear hidden throughout leaves the head as it is).
 */
export const ESSENTIAL_KEYPOINT_MEASUREMENTS: readonly string[] = ['thigh', 'shank'];
