import { ConstantFunction, LinearFunction } from '../model/functions.ts';
import type {
  BodyDescription,
  CoordinateDescription,
  JointDescription,
  MarkerDescription,
  OsimModel,
  TransformAxisDescription,
  Vec3,
} from '../model/osim-model.ts';
import { FOOT_PROPORTIONS, HEAD_PROPORTIONS, RAJAGOPAL_2016, WINTER_2009 } from './anthropometry.ts';
import { writeOsim } from '../formats/osim-writer.ts';
import { parseXmlDocument, type XmlDocument } from '../model/xml-tree.ts';
import { VIDEO_KEYPOINTS } from '../pose/keypoints.ts';
import { segmentMassesKg } from './segment-masses.ts';

/**
 * Kinetrace's default full-body kinematic model, authored from published proportions (see
 * anthropometry.ts) with the coordinate set, names, axes and ranges of the OpenSim full-body
 * models used by OpenCap (Rajagopal et al. 2016; Lai et al. 2017; LaiUhlrich2022 of Uhlrich et
 * al. 2022): pelvis free joint, hips 3 DOF, knees, ankles, subtalar, toes, lumbar 3 DOF, shoulders
 * 3 DOF, elbows, forearms. Simplifications: the knee is a hinge about the medio-lateral axis
 * (Delp et al. 1990 couple a small tibial translation to it), the head is welded to the torso at
 * the neck (no neck joint, but its own size), and the hand is welded to the radius. OpenSim frame: x forward, y up, z to the right.
 *
 * Virtual markers sit at the video keypoints (VIDEO_KEYPOINTS names, plus OpenPose's small toes)
 * so that inverse kinematics runs on keypoints alone: joint centres for the hips, knees, ankles,
 * shoulders, elbows and wrists, heel and toes on the foot, Neck between the shoulders, midHip
 * between the hips, and the face keypoints on the head.
 */

export interface DefaultModelOptions {
  /** Standing height the generic proportions are laid out for; scaling fits the rest. */
  heightM?: number;
}

const DEFAULT_HEIGHT_M = 1.75;
const DEG = Math.PI / 180;

type Side = 'r' | 'l';

/** Mirror of an axial vector (a rotation axis) through the sagittal plane: left-side axes of OpenSim models. */
function mirrorAxis(axis: Vec3, side: Side): Vec3 {
  return side === 'r' ? axis : [-axis[0], -axis[1], axis[2]];
}

/** Mirror of a point through the sagittal plane (z → −z). */
function mirrorPoint(point: Vec3, side: Side): Vec3 {
  return side === 'r' ? point : [point[0], point[1], -point[2]];
}

function normalize(v: Vec3): Vec3 {
  const length = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / length, v[1] / length, v[2] / length];
}

/**
 * The talocrural (ankle) axis runs from medial to lateral about 10° downward in the frontal plane
 * and 6° backward in the transverse plane (Inman 1976, "The Joints of the Ankle"; the same frame
 * Delp et al. 1990 and Rajagopal et al. 2016 use). Positive rotation = dorsiflexion.
 */
const ANKLE_AXIS_R = normalize([-Math.tan(6 * DEG), -Math.tan(10 * DEG), 1]);

/**
 * The subtalar axis rises 42° from the horizontal and deviates 23° medially from the long axis of
 * the foot (Inman 1976, mean values). Positive rotation = inversion.
 */
const SUBTALAR_AXIS_R: Vec3 = [
  Math.cos(42 * DEG) * Math.cos(23 * DEG),
  Math.sin(42 * DEG),
  -Math.cos(42 * DEG) * Math.sin(23 * DEG),
];

interface CoordinateSpec {
  name: string;
  axis: Vec3;
  rangeDeg: [number, number];
}

const ORTHOGONAL_AXES: Vec3[] = [
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];

/** Axes completing a rotation triad whose first axes are given (any non-parallel choice works for constant zero rotations). */
function fillRotationAxes(axes: Vec3[]): Vec3[] {
  const filled = [...axes];
  for (const candidate of ORTHOGONAL_AXES) {
    if (filled.length === 3) break;
    const parallel = filled.some(
      (axis) => Math.abs(axis[0] * candidate[0] + axis[1] * candidate[1] + axis[2] * candidate[2]) > 0.9,
    );
    if (!parallel) filled.push(candidate);
  }
  return filled;
}

const ZERO_FRAME = { translationM: [0, 0, 0] as Vec3, orientationXyzRad: [0, 0, 0] as Vec3 };

/**
 * A CustomJoint rotating the child about the given coordinate axes (successively, body-fixed) at a
 * point `locationInParentM` of the parent body; the child frame's origin is the joint centre.
 */
function rotationalJoint(
  name: string,
  parentBody: string,
  childBody: string,
  locationInParentM: Vec3,
  specs: CoordinateSpec[],
  coordinates: CoordinateDescription[],
): JointDescription {
  const axes = fillRotationAxes(specs.map((spec) => spec.axis));
  const rotations = axes.map((axis, i): TransformAxisDescription =>
    specs[i]
      ? { coordinate: specs[i].name, axis, fn: new LinearFunction(1, 0) }
      : { axis, fn: new ConstantFunction(0) },
  ) as JointDescription['rotations'];
  const translations = ORTHOGONAL_AXES.map((axis): TransformAxisDescription => ({
    axis,
    fn: new ConstantFunction(0),
  })) as JointDescription['translations'];
  for (const spec of specs) {
    coordinates.push({
      name: spec.name,
      joint: name,
      motionType: 'rotational',
      defaultValue: 0,
      rangeMin: spec.rangeDeg[0] * DEG,
      rangeMax: spec.rangeDeg[1] * DEG,
      clamped: true,
      locked: false,
    });
  }
  return {
    name,
    type: specs.length === 0 ? 'WeldJoint' : 'CustomJoint',
    parentBody,
    childBody,
    parentOffset: { translationM: locationInParentM, orientationXyzRad: [0, 0, 0] },
    childOffset: ZERO_FRAME,
    rotations,
    translations,
  };
}

/** Ground → pelvis: three rotations (tilt about z, list about x, rotation about y) and three translations. */
function pelvisFreeJoint(pelvisHeightM: number, coordinates: CoordinateDescription[]): JointDescription {
  const rotationSpecs: CoordinateSpec[] = [
    { name: 'pelvis_tilt', axis: [0, 0, 1], rangeDeg: [-90, 90] },
    { name: 'pelvis_list', axis: [1, 0, 0], rangeDeg: [-90, 90] },
    { name: 'pelvis_rotation', axis: [0, 1, 0], rangeDeg: [-180, 180] },
  ];
  const translationSpecs: Array<{ name: string; axis: Vec3; rangeM: [number, number]; defaultM: number }> = [
    { name: 'pelvis_tx', axis: [1, 0, 0], rangeM: [-50, 50], defaultM: 0 },
    { name: 'pelvis_ty', axis: [0, 1, 0], rangeM: [-10, 10], defaultM: pelvisHeightM },
    { name: 'pelvis_tz', axis: [0, 0, 1], rangeM: [-50, 50], defaultM: 0 },
  ];
  const joint = rotationalJoint('ground_pelvis', 'ground', 'pelvis', [0, 0, 0], rotationSpecs, coordinates);
  joint.translations = translationSpecs.map((spec): TransformAxisDescription => ({
    coordinate: spec.name,
    axis: spec.axis,
    fn: new LinearFunction(1, 0),
  })) as JointDescription['translations'];
  for (const spec of translationSpecs) {
    coordinates.push({
      name: spec.name,
      joint: joint.name,
      motionType: 'translational',
      defaultValue: spec.defaultM,
      rangeMin: spec.rangeM[0],
      rangeMax: spec.rangeM[1],
      clamped: true,
      locked: false,
    });
  }
  return joint;
}

/** Markers the default model carries: the video keypoints plus OpenPose's small toes (used when a trial has them). */
export const DEFAULT_MODEL_MARKERS = [...VIDEO_KEYPOINTS, 'RSmallToe', 'LSmallToe'] as const;

/** The default model's name, kept in the .osim files written from it (so `kinetrace ik` knows it). */
export const DEFAULT_MODEL_NAME = 'Kinetrace_default_fullbody';

/** Builds Kinetrace's default model laid out for a subject of the given height (1.75 m when omitted). */
export function createDefaultModel(options: DefaultModelOptions = {}): OsimModel {
  const h = options.heightM ?? DEFAULT_HEIGHT_M;
  if (!(h > 0.5 && h < 2.8)) throw new RangeError(`Default model height must be between 0.5 and 2.8 m (got ${h}).`);

  const thighM = (WINTER_2009.hipHeight - WINTER_2009.kneeHeight) * h;
  const shankM = (WINTER_2009.kneeHeight - WINTER_2009.ankleHeight) * h;
  const ankleHeightM = WINTER_2009.ankleHeight * h;
  const footLengthM = WINTER_2009.footLength * h;
  const footBreadthM = WINTER_2009.footBreadth * h;

  // Pelvis origin (mid-point of the ASIS/PSIS) above the hip joint centres; lumbar joint and torso above.
  const hipInPelvis: Vec3 = [
    -RAJAGOPAL_2016.hipCentreBehindPelvis * h,
    -RAJAGOPAL_2016.hipCentreBelowPelvis * h,
    RAJAGOPAL_2016.hipCentreLateral * h,
  ];
  const pelvisHeightM = WINTER_2009.hipHeight * h - hipInPelvis[1];
  const lumbarInPelvis: Vec3 = [-RAJAGOPAL_2016.lumbarBehindPelvis * h, RAJAGOPAL_2016.lumbarAbovePelvis * h, 0];
  const lumbarHeightM = pelvisHeightM + lumbarInPelvis[1];
  // Shoulder joint centres straight above the hip joint centres' frontal plane, at Winter's shoulder height.
  const shoulderInTorso: Vec3 = [
    hipInPelvis[0] - lumbarInPelvis[0],
    WINTER_2009.shoulderHeight * h - lumbarHeightM,
    RAJAGOPAL_2016.shoulderLateral * h,
  ];
  // The head's frame sits at the Neck keypoint (mid-shoulders); the face is laid out from there.
  const neckInTorso: Vec3 = [shoulderInTorso[0], shoulderInTorso[1], 0];
  const eyeAboveNeckM = (WINTER_2009.eyeHeight - WINTER_2009.shoulderHeight) * h;

  const bodyNames = [
    'pelvis',
    'femur_r',
    'tibia_r',
    'talus_r',
    'calcn_r',
    'toes_r',
    'femur_l',
    'tibia_l',
    'talus_l',
    'calcn_l',
    'toes_l',
    'torso',
    'head',
    'humerus_r',
    'ulna_r',
    'radius_r',
    'hand_r',
    'humerus_l',
    'ulna_l',
    'radius_l',
    'hand_l',
  ];
  const bodies: BodyDescription[] = bodyNames.map((name) => ({
    name,
    geometryFiles: [],
    geometryScaleFactors: [1, 1, 1],
  }));
  const coordinates: CoordinateDescription[] = [];
  const joints: JointDescription[] = [pelvisFreeJoint(pelvisHeightM, coordinates)];
  const markers: MarkerDescription[] = [];
  const marker = (name: string, body: string, locationM: Vec3) => markers.push({ name, body, locationM });

  marker('midHip', 'pelvis', [hipInPelvis[0], hipInPelvis[1], 0]);
  for (const side of ['r', 'l'] as const) {
    const S = side === 'r' ? 'R' : 'L';
    // Hip: flexion about z, adduction about x, internal rotation about y (Delp et al. 1990; Rajagopal et al. 2016).
    joints.push(
      rotationalJoint(
        `hip_${side}`,
        'pelvis',
        `femur_${side}`,
        mirrorPoint(hipInPelvis, side),
        [
          { name: `hip_flexion_${side}`, axis: [0, 0, 1], rangeDeg: [-30, 120] },
          { name: `hip_adduction_${side}`, axis: mirrorAxis([1, 0, 0], side), rangeDeg: [-50, 30] },
          { name: `hip_rotation_${side}`, axis: mirrorAxis([0, 1, 0], side), rangeDeg: [-40, 40] },
        ],
        coordinates,
      ),
    );
    // Knee: flexion positive, 0–140° as in LaiUhlrich2022 (a hinge; Delp 1990's coupled translation omitted).
    joints.push(
      rotationalJoint(
        `knee_${side}`,
        `femur_${side}`,
        `tibia_${side}`,
        [0, -thighM, 0],
        [{ name: `knee_angle_${side}`, axis: [0, 0, -1], rangeDeg: [0, 140] }],
        coordinates,
      ),
    );
    joints.push(
      rotationalJoint(
        `ankle_${side}`,
        `tibia_${side}`,
        `talus_${side}`,
        [0, -shankM, 0],
        [{ name: `ankle_angle_${side}`, axis: mirrorAxis(ANKLE_AXIS_R, side), rangeDeg: [-50, 50] }],
        coordinates,
      ),
    );
    // Calcaneus frame at the back of the heel on the floor: the heel and toe keypoints lie on the
    // sole's outline (BlazePose's heel and foot-index landmarks, Bazarevsky et al. 2020,
    // arXiv:2006.10204, Fig. 2; 2.4 cm below where a frame at 30 % of ankle height put them on the demo static trial).
    const heelInTalus: Vec3 = [-FOOT_PROPORTIONS.ankleFromHeel * footLengthM, -ankleHeightM, 0];
    joints.push(
      rotationalJoint(
        `subtalar_${side}`,
        `talus_${side}`,
        `calcn_${side}`,
        heelInTalus,
        [{ name: `subtalar_angle_${side}`, axis: mirrorAxis(SUBTALAR_AXIS_R, side), rangeDeg: [-35, 35] }],
        coordinates,
      ),
    );
    joints.push(
      rotationalJoint(
        `mtp_${side}`,
        `calcn_${side}`,
        `toes_${side}`,
        [FOOT_PROPORTIONS.firstMtpFromHeel * footLengthM, 0, 0],
        [{ name: `mtp_angle_${side}`, axis: [0, 0, 1], rangeDeg: [-45, 30] }],
        coordinates,
      ),
    );

    marker(`${S}Hip`, 'pelvis', mirrorPoint(hipInPelvis, side));
    marker(`${S}Knee`, `tibia_${side}`, [0, 0, 0]);
    marker(`${S}Ankle`, `talus_${side}`, [0, 0, 0]);
    marker(`${S}Heel`, `calcn_${side}`, [0, 0, 0]);
    const toeLengthM = (1 - FOOT_PROPORTIONS.firstMtpFromHeel) * footLengthM;
    // Big toe tip a little medial of the foot's long axis; fifth toe tip on its lateral border.
    marker(`${S}BigToe`, `toes_${side}`, mirrorPoint([0.9 * toeLengthM, 0, -0.15 * footBreadthM], side));
    marker(
      `${S}SmallToe`,
      `toes_${side}`,
      mirrorPoint(
        [
          (FOOT_PROPORTIONS.fifthToeTipFromHeel - FOOT_PROPORTIONS.firstMtpFromHeel) * footLengthM,
          0,
          0.45 * footBreadthM,
        ],
        side,
      ),
    );
  }

  joints.push(
    rotationalJoint(
      'back',
      'pelvis',
      'torso',
      lumbarInPelvis,
      [
        { name: 'lumbar_extension', axis: [0, 0, 1], rangeDeg: [-90, 90] },
        { name: 'lumbar_bending', axis: [1, 0, 0], rangeDeg: [-90, 90] },
        { name: 'lumbar_rotation', axis: [0, 1, 0], rangeDeg: [-90, 90] },
      ],
      coordinates,
    ),
  );
  marker('Neck', 'torso', neckInTorso);
  // Welded, so the head adds no coordinate; a body of its own so that scaling sizes the face from the
  // face keypoints instead of stretching it with the trunk (whose length comes from the hip keypoints).
  joints.push(rotationalJoint('neck', 'torso', 'head', neckInTorso, [], coordinates));
  const head = HEAD_PROPORTIONS;
  marker('Nose', 'head', [head.noseForward * h, eyeAboveNeckM - head.noseBelowEye * h, 0]);
  for (const side of ['r', 'l'] as const) {
    const S = side === 'r' ? 'R' : 'L';
    marker(`${S}Eye`, 'head', mirrorPoint([head.eyeForward * h, eyeAboveNeckM, head.eyeHalfDistance * h], side));
    marker(
      `${S}Ear`,
      'head',
      mirrorPoint([head.earForward * h, eyeAboveNeckM - head.earBelowEye * h, head.earHalfBreadth * h], side),
    );
  }

  for (const side of ['r', 'l'] as const) {
    const S = side === 'r' ? 'R' : 'L';
    joints.push(
      rotationalJoint(
        `acromial_${side}`,
        'torso',
        `humerus_${side}`,
        mirrorPoint(shoulderInTorso, side),
        [
          { name: `arm_flex_${side}`, axis: [0, 0, 1], rangeDeg: [-180, 180] },
          { name: `arm_add_${side}`, axis: mirrorAxis([1, 0, 0], side), rangeDeg: [-180, 180] },
          { name: `arm_rot_${side}`, axis: mirrorAxis([0, 1, 0], side), rangeDeg: [-180, 180] },
        ],
        coordinates,
      ),
    );
    joints.push(
      rotationalJoint(
        `elbow_${side}`,
        `humerus_${side}`,
        `ulna_${side}`,
        [0, -WINTER_2009.upperArmLength * h, 0],
        [{ name: `elbow_flex_${side}`, axis: [0, 0, 1], rangeDeg: [0, 150] }],
        coordinates,
      ),
    );
    // Pronation-supination about the forearm's long axis (elbow to wrist), 0–120° as in LaiUhlrich2022.
    joints.push(
      rotationalJoint(
        `radioulnar_${side}`,
        `ulna_${side}`,
        `radius_${side}`,
        [0, 0, 0],
        [{ name: `pro_sup_${side}`, axis: mirrorAxis([0, 1, 0], side), rangeDeg: [0, 120] }],
        coordinates,
      ),
    );
    joints.push(
      rotationalJoint(
        `radius_hand_${side}`,
        `radius_${side}`,
        `hand_${side}`,
        [0, -WINTER_2009.forearmLength * h, 0],
        [],
        coordinates,
      ),
    );

    marker(`${S}Shoulder`, `humerus_${side}`, [0, 0, 0]);
    marker(`${S}Elbow`, `ulna_${side}`, [0, 0, 0]);
    marker(`${S}Wrist`, `hand_${side}`, [0, 0, 0]);
  }

  const order = new Map<string, number>(DEFAULT_MODEL_MARKERS.map((name, i) => [name, i]));
  markers.sort((a, b) => order.get(a.name)! - order.get(b.name)!);
  return { name: DEFAULT_MODEL_NAME, bodies, joints, coordinates, markers, couplers: [] };
}

/**
 * Mass of the written generic model, kg: scaling keeps only the proportions (de Leva 1996,
 * segment-masses.ts) and sets the total to the subject's, so any total would do.
 */
const GENERIC_MASS_KG = 75;

/** The default model as an .osim document, with de Leva's segment masses, ready to be scaled. */
export function defaultModelDocument(options: DefaultModelOptions = {}): XmlDocument {
  const model = createDefaultModel(options);
  const bodyMassesKg = segmentMassesKg(
    model.bodies.map((body) => body.name),
    GENERIC_MASS_KG,
  );
  return parseXmlDocument(writeOsim(model, { bodyMassesKg, credits: 'Kinetrace default full-body model' }));
}
