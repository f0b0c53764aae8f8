import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readStorage, type StorageTable } from '../../src/formats/mot.ts';
import { type MarkerTrajectories, readTrc } from '../../src/formats/trc.ts';
import { bestFrameLag, type CoordinateComparison, compareMotions } from '../../src/ik/compare-motions.ts';
import { loadAnalysisInput } from '../../src/analyses/analysis-input.ts';
import { TrialKinematics } from '../../src/analyses/trial-kinematics.ts';
import { DEFAULT_MODEL, type ModelName, namedModelDocument } from '../../src/default-model/named-models.ts';
import { fitNeutral } from '../../src/model-fitting/fit-neutral.ts';
import { fitTrial } from '../../src/model-fitting/fit-trial.ts';
import { motionFromCoordinates } from '../../src/model/motion.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { referencePath } from '../reference-data.ts';

/**
 * The Pose2Sim demo through Kinetrace's whole chain, as a user runs it (kinetrace process on the
 * static trial and on the balancing trial, kinetrace scale, kinetrace ik), set beside Pose2Sim's own
 * OpenSim IK of the same videos; and, to tell IK and scaling apart from triangulation, our model
 * scaled and solved on Pose2Sim's own .trc files. Shared by the test (assertions) and the bench (table).
 */
const history = 'pose2sim_demo/history_reference_outputs';
const session = `${history}/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant`;
const openSim = `${history}/df99cfcf2b9b9d73c062a8c0c2660428615b7f90/Pose2Sim/S00_Demo_BatchSession/S00_P00_SingleParticipant/S00_P00_OpenSim`;
export const DEMO_FILES = {
  staticVideos: `${session}/S00_P00_T00_StaticTrial/videos`,
  balancingVideos: 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/videos',
  calibration: 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/calibration/Calib.qca.txt',
  theirStaticTrc: `${session}/S00_P00_T00_StaticTrial/pose-3d/S00_P00_T00_StaticTrial_0-12_filt_butterworth.trc`,
  theirBalancingTrc: `${session}/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100_filt_butterworth.trc`,
  theirMot: `${openSim}/S00_P00_T01_BalancingTrial_filt_butterworth_0-100_body25b.mot`,
  theirModel: `${openSim}/Model_Pose2Sim_body25b_scaled.osim`,
  /** Pose2Sim's IK of the same keypoints through its marker augmenter's markers: a second result of the same tool. */
  theirLstmMot: `${openSim}/S00_P00_T01_BalancingTrial_filt_butterworth_0-100_LSTM.mot`,
};
const CAMERAS = ['cam01', 'cam02', 'cam03', 'cam04'];
/** The demo's participant, as Pose2Sim's Config.toml and the issue give them. */
export const DEMO_SUBJECT = { heightM: 1.72, massKg: 70 };
export const FLEXION_COORDINATES = [
  'hip_flexion_r',
  'hip_flexion_l',
  'knee_angle_r',
  'knee_angle_l',
  'ankle_angle_r',
  'ankle_angle_l',
];
/** The joints both keypoint sets share, for lining up the two time bases. */
const LOWER_LIMB_KEYPOINTS = ['RHip', 'LHip', 'RKnee', 'LKnee', 'RAnkle', 'LAnkle'];

export interface StaticFit {
  rmsM: number;
  maxM: number;
  worst: string;
  /** RMS excursion of the keypoints over the frames averaged: their own noise while standing still. */
  keypointJitterM: number;
}

export interface ChainResult {
  scaling: StaticFit;
  comparisons: CoordinateComparison[];
  lagFrames: number;
  /** RMS distance of our hip, knee and ankle keypoints to Pose2Sim's over the trial, m (0 on its own keypoints). */
  keypointDistanceM: number;
  /** Where the two tools' knee and ankle angles part: in the keypoints or in the model (through the whole chain only). */
  geometry?: KeypointGeometry;
}

/**
 * Knee and ankle flexion read straight off each tool's keypoints (180° minus the hip-knee-ankle
 * angle; 90° minus the angle between the shank, ankle to knee, and the foot, heel to big toe), set
 * beside each tool's IK: when our keypoints' angle differs from Pose2Sim's keypoints' as much as
 * the IK results differ, while each IK follows its own keypoints, the difference is in the
 * keypoints, not in scaling or IK. RMS differences with the mean offset removed, degrees.
 */
export interface KeypointGeometry {
  angles: {
    coordinate: string;
    keypointsDeg: number;
    ourIkToOurKeypointsDeg: number;
    theirIkToTheirKeypointsDeg: number;
  }[];
  /** Left shank (knee to ankle keypoint) length range in frames 36-64, where the left knee angles part most, m. */
  leftShankM: { ours: [number, number]; theirs: [number, number] };
  /**
   * Per flexion angle, the offset to Pose2Sim's (mean of ours minus theirs) in frames 36-64 minus
   * that in the other frames, degrees: where Pose2Sim's left knee keypoint slides up the thigh, its
   * left hip and knee angles step away from ours while the right side's stay.
   */
  offsetStepDeg: { coordinate: string; stepDeg: number }[];
  /**
   * Per side, the hip flexion difference to Pose2Sim split where it arises, by forward kinematics
   * of both scaled models: hip flexion as the thigh's (hip to knee centre) sagittal angle in the
   * pelvis frame; the thigh part is our thigh in Pose2Sim's pelvis minus Pose2Sim's, the pelvis
   * part our angle minus our thigh in Pose2Sim's pelvis (the two add up to the whole). RMS with the
   * offset removed, degrees. Keypoints see the thigh; the pelvis's tilt about the line of its three
   * keypoints they do not, and each tool's model decides it.
   */
  hipFlexionParts: { side: 'r' | 'l'; wholeDeg: number; thighDeg: number; pelvisDeg: number }[];
  /**
   * While both feet are down (frames 0-8), the hip keypoints' right-to-left line against the
   * perpendicular to the feet (mean heel-to-big-toe heading of both feet) in the horizontal plane,
   * degrees: a subject standing on both feet faces roughly where the feet point. The two tools'
   * feet agree in heading there, within 4°.
   */
  hipLineToFeetDeg: { ours: number; theirs: number };
}

/** Frames 0-8 of the balancing trial (ours): the subject stands on both feet before lifting one. */
const BOTH_FEET_DOWN: [number, number] = [0, 8];
/** Frames 36-64 of the balancing trial (ours), where Pose2Sim's left knee keypoint sits on the thigh. */
const LEFT_KNEE_WINDOW: [number, number] = [36, 64];
const inWindow = (frame: number) => frame >= LEFT_KNEE_WINDOW[0] && frame <= LEFT_KNEE_WINDOW[1];

/** A motion with the frames `keep` rejects set missing (compareMotions leaves them out). */
function framesWhere(table: StorageTable, keep: (frame: number) => boolean): StorageTable {
  const width = table.columnLabels.length;
  const values = table.values.map((value, i) => (keep(Math.floor(i / width)) ? value : Number.NaN));
  return { ...table, values };
}

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../bin/kinetrace.mjs', import.meta.url));
const kinetrace = async (...args: string[]) =>
  (await run(process.execPath, [cli, ...args], { maxBuffer: 16 << 20 })).stdout;

function trialFolder(root: string, name: string, videos: string): string {
  const folder = join(root, name);
  mkdirSync(join(folder, 'videos'), { recursive: true });
  mkdirSync(join(folder, 'calibration'));
  symlinkSync(referencePath(DEMO_FILES.calibration), join(folder, 'calibration/Calib.qca.txt'));
  for (const camera of CAMERAS)
    symlinkSync(referencePath(videos, `${camera}.mp4`), join(folder, 'videos', `${camera}.mp4`));
  return folder;
}

/** The 3D keypoints kinetrace process wrote for a trial (named after the trial, or neutral.trc for a static trial). */
function keypointsTrc(trialOutput: string): string {
  const files = readdirSync(trialOutput).filter((file) => file.endsWith('.trc'));
  if (files.length !== 1) throw new Error(`Expected one .trc in ${trialOutput}, found: ${files.join(', ') || 'none'}`);
  return join(trialOutput, files[0]);
}

const theirs = (): { mot: StorageTable; trc: MarkerTrajectories } => ({
  mot: readStorage(readFileSync(referencePath(DEMO_FILES.theirMot), 'utf8')),
  trc: readTrc(readFileSync(referencePath(DEMO_FILES.theirBalancingTrc), 'utf8')),
});

/** The demo's static and balancing trials through kinetrace process, in `root` (a temporary folder): their keypoint .trc files. */
export async function processDemo(root: string): Promise<{ staticTrc: string; balancingTrc: string }> {
  const staticFolder = trialFolder(root, 'static', DEMO_FILES.staticVideos);
  const balancingFolder = trialFolder(root, 'balancing', DEMO_FILES.balancingVideos);
  await kinetrace('process', staticFolder);
  await kinetrace('process', balancingFolder);
  return {
    staticTrc: keypointsTrc(join(staticFolder, 'output/static')),
    balancingTrc: keypointsTrc(join(balancingFolder, 'output/balancing')),
  };
}

/** The whole chain on the demo videos with one of the shipped models (the default one when omitted). */
export async function runDemoChain(root: string, model: ModelName = DEFAULT_MODEL): Promise<ChainResult> {
  const { staticTrc, balancingTrc } = await processDemo(root);
  return scaleAndSolve(staticTrc, balancingTrc, root, model);
}

/** kinetrace scale (with a shipped model) on the static trial's keypoints and kinetrace ik on the balancing trial's, beside Pose2Sim's. */
export async function scaleAndSolve(
  staticTrc: string,
  balancingTrc: string,
  root: string,
  model: ModelName,
): Promise<ChainResult> {
  const scaledOsim = join(root, `${model}_scaled.osim`);
  const motPath = join(root, `${model}_balancing.mot`);
  const scaleOutput = await kinetrace(
    'scale',
    '--model',
    model,
    '--static',
    staticTrc,
    '--mass',
    String(DEMO_SUBJECT.massKg),
    '--height',
    String(DEMO_SUBJECT.heightM),
    '--out',
    scaledOsim,
  );
  await kinetrace('ik', '--model', scaledOsim, '--markers', balancingTrc, '--out', motPath);

  const placement = /static-pose IK marker error RMS ([\d.]+) cm, max ([\d.]+) cm/.exec(scaleOutput);
  const worst = /largest: (\w+)/.exec(scaleOutput);
  const jitter = /markers moved ([\d.]+) mm RMS/.exec(scaleOutput);
  if (!placement || !worst || !jitter)
    throw new Error(`kinetrace scale printed no marker placement figures:\n${scaleOutput}`);
  const reference = theirs();
  const ours = readTrc(readFileSync(balancingTrc, 'utf8'));
  const { lagFrames, rmsDistanceM } = bestFrameLag(ours, reference.trc, LOWER_LIMB_KEYPOINTS);
  return {
    scaling: {
      rmsM: Number(placement[1]) / 100,
      maxM: Number(placement[2]) / 100,
      worst: worst[1],
      keypointJitterM: Number(jitter[1]) / 1000,
    },
    comparisons: compareMotions(
      readStorage(readFileSync(motPath, 'utf8')),
      reference.mot,
      FLEXION_COORDINATES,
      lagFrames,
    ),
    lagFrames,
    keypointDistanceM: rmsDistanceM,
    geometry: keypointGeometry(
      ours,
      reference.trc,
      readStorage(readFileSync(motPath, 'utf8')),
      reference.mot,
      lagFrames,
      hipFlexionParts(scaledOsim, motPath, lagFrames),
    ),
  };
}

type Vec = [number, number, number];
const at = (trc: MarkerTrajectories, name: string, frame: number): Vec => {
  const i = (frame * trc.markerNames.length + trc.markerNames.indexOf(name)) * 3;
  return [trc.positionsM[i], trc.positionsM[i + 1], trc.positionsM[i + 2]];
};
const minus = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const angleDeg = (u: Vec, v: Vec) =>
  (Math.acos((u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (Math.hypot(...u) * Math.hypot(...v))) * 180) / Math.PI;
const GEOMETRY_ANGLES: Record<string, (trc: MarkerTrajectories, frame: number) => number> = Object.fromEntries(
  (['r', 'l'] as const).flatMap((side) => {
    const S = side.toUpperCase();
    return [
      [
        `knee_angle_${side}`,
        (trc: MarkerTrajectories, f: number) =>
          angleDeg(
            minus(at(trc, `${S}Hip`, f), at(trc, `${S}Knee`, f)),
            minus(at(trc, `${S}Knee`, f), at(trc, `${S}Ankle`, f)),
          ),
      ],
      [
        `ankle_angle_${side}`,
        (trc: MarkerTrajectories, f: number) =>
          90 -
          angleDeg(
            minus(at(trc, `${S}Knee`, f), at(trc, `${S}Ankle`, f)),
            minus(at(trc, `${S}BigToe`, f), at(trc, `${S}Heel`, f)),
          ),
      ],
    ];
  }),
);

/** The keypoints' own knee and ankle angles as a motion table, to compare with compareMotions. */
function geometryMotion(trc: MarkerTrajectories): StorageTable {
  const columnLabels = Object.keys(GEOMETRY_ANGLES);
  const frames = trc.timesS.length;
  const values = new Float64Array(frames * columnLabels.length);
  for (let f = 0; f < frames; f++)
    columnLabels.forEach((label, c) => (values[f * columnLabels.length + c] = GEOMETRY_ANGLES[label](trc, f)));
  return { name: 'keypoint geometry', inDegrees: true, columnLabels, timesS: trc.timesS, values };
}

function keypointGeometry(
  ours: MarkerTrajectories,
  theirs: MarkerTrajectories,
  ourMot: StorageTable,
  theirMot: StorageTable,
  lagFrames: number,
  hipParts: KeypointGeometry['hipFlexionParts'],
): KeypointGeometry {
  const coordinates = Object.keys(GEOMETRY_ANGLES);
  const ourAngles = geometryMotion(ours);
  const theirAngles = geometryMotion(theirs);
  const rms = (comparisons: CoordinateComparison[], coordinate: string) =>
    comparisons.find((c) => c.coordinate === coordinate)!.rmsDifferenceWithoutOffsetDeg;
  const keypoints = compareMotions(ourAngles, theirAngles, coordinates, lagFrames);
  const ourIk = compareMotions(ourMot, ourAngles, coordinates);
  const theirIk = compareMotions(theirMot, theirAngles, coordinates);
  const [first, last] = LEFT_KNEE_WINDOW;
  const shankRange = (trc: MarkerTrajectories, lag: number): [number, number] => {
    const lengths = Array.from({ length: last - first + 1 }, (_, i) =>
      Math.hypot(...minus(at(trc, 'LKnee', first + i + lag), at(trc, 'LAnkle', first + i + lag))),
    );
    return [Math.min(...lengths), Math.max(...lengths)];
  };
  const offsets = (keep: (frame: number) => boolean) =>
    compareMotions(framesWhere(ourMot, keep), theirMot, FLEXION_COORDINATES, lagFrames);
  const inside = offsets(inWindow);
  const outside = offsets((frame) => !inWindow(frame));
  return {
    angles: coordinates.map((coordinate) => ({
      coordinate,
      keypointsDeg: rms(keypoints, coordinate),
      ourIkToOurKeypointsDeg: rms(ourIk, coordinate),
      theirIkToTheirKeypointsDeg: rms(theirIk, coordinate),
    })),
    leftShankM: { ours: shankRange(ours, 0), theirs: shankRange(theirs, lagFrames) },
    offsetStepDeg: inside.map((c, i) => ({ coordinate: c.coordinate, stepDeg: c.offsetDeg - outside[i].offsetDeg })),
    hipFlexionParts: hipParts,
    hipLineToFeetDeg: { ours: hipLineToFeetDeg(ours, 0), theirs: hipLineToFeetDeg(theirs, lagFrames) },
  };
}

/** Mean over BOTH_FEET_DOWN of the hip line's heading minus the heading across the feet, degrees (KeypointGeometry.hipLineToFeetDeg). */
function hipLineToFeetDeg(trc: MarkerTrajectories, lagFrames: number): number {
  const headingDeg = (from: Vec, to: Vec) => (Math.atan2(to[2] - from[2], to[0] - from[0]) * 180) / Math.PI;
  const wrapDeg = (angle: number) => ((angle + 540) % 360) - 180;
  const differences: number[] = [];
  for (let f = BOTH_FEET_DOWN[0]; f <= BOTH_FEET_DOWN[1]; f++) {
    const g = f + lagFrames;
    if (g < 0) continue;
    const foot = (side: 'R' | 'L') => headingDeg(at(trc, `${side}Heel`, g), at(trc, `${side}BigToe`, g));
    const acrossFeet = (foot('R') + foot('L')) / 2 - 90;
    differences.push(wrapDeg(headingDeg(at(trc, 'RHip', g), at(trc, 'LHip', g)) - acrossFeet));
  }
  return differences.reduce((sum, d) => sum + d, 0) / differences.length;
}

const trialKinematics = (osimPath: string, motPath: string) =>
  new TrialKinematics(
    loadAnalysisInput({ modelXml: readFileSync(osimPath, 'utf8'), motionText: readFileSync(motPath, 'utf8') }),
  );
const vectorAt = (series: Float64Array, frame: number): Vec => [
  series[3 * frame],
  series[3 * frame + 1],
  series[3 * frame + 2],
];
const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const rmsWithoutOffset = (values: number[]) => {
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length);
};

function hipFlexionParts(ourOsim: string, ourMot: string, lagFrames: number): KeypointGeometry['hipFlexionParts'] {
  const ours = trialKinematics(ourOsim, ourMot);
  const theirs = trialKinematics(referencePath(DEMO_FILES.theirModel), referencePath(DEMO_FILES.theirMot));
  const pelvis = (k: TrialKinematics) => ({ forward: k.axis('pelvis', 0), up: k.axis('pelvis', 1) });
  const [ourPelvis, theirPelvis] = [pelvis(ours), pelvis(theirs)];
  // The thigh's sagittal angle in a pelvis frame: 0 hanging down, positive forward.
  const flexionDeg = (p: ReturnType<typeof pelvis>, frame: number, thigh: Vec) =>
    (Math.atan2(dot(thigh, vectorAt(p.forward, frame)), -dot(thigh, vectorAt(p.up, frame))) * 180) / Math.PI;
  return (['r', 'l'] as const).map((side) => {
    const thigh = (k: TrialKinematics) => {
      const [hip, knee] = [k.point(`femur_${side}`), k.point(`tibia_${side}`)];
      return (frame: number) => minus(vectorAt(knee, frame), vectorAt(hip, frame));
    };
    const [ourThigh, theirThigh] = [thigh(ours), thigh(theirs)];
    const whole: number[] = [];
    const thighPart: number[] = [];
    for (let f = 0; f < ours.frameCount; f++) {
      const g = f + lagFrames;
      if (g < 0 || g >= theirs.frameCount) continue;
      const ourThighInTheirPelvis = flexionDeg(theirPelvis, g, ourThigh(f));
      const theirAngle = flexionDeg(theirPelvis, g, theirThigh(g));
      whole.push(flexionDeg(ourPelvis, f, ourThigh(f)) - theirAngle);
      thighPart.push(ourThighInTheirPelvis - theirAngle);
    }
    return {
      side,
      wholeDeg: rmsWithoutOffset(whole),
      thighDeg: rmsWithoutOffset(thighPart),
      pelvisDeg: rmsWithoutOffset(whole.map((w, i) => w - thighPart[i])),
    };
  });
}

/** A shipped model (the default one when omitted) scaled on Pose2Sim's static .trc and solved on its balancing .trc: IK and scaling without our triangulation. */
export function runOnTheirKeypoints(model: ModelName = DEFAULT_MODEL): ChainResult {
  const reference = theirs();
  const neutral = fitNeutral({
    neutral: readTrc(readFileSync(referencePath(DEMO_FILES.theirStaticTrc), 'utf8')),
    subject: DEMO_SUBJECT,
    model: namedModelDocument(model, { heightM: DEMO_SUBJECT.heightM }),
  });
  const fit = fitTrial({
    trial: reference.trc,
    model: neutral.scaled.model,
    osim: neutral.scaled.osim,
    subject: DEMO_SUBJECT,
    ikTasks: neutral.ikTasks,
  });
  const placement = neutral.scaled.placement!;
  const worst = placement.markerErrors.reduce((a, b) => (b.errorM > a.errorM ? b : a));
  return {
    scaling: {
      rmsM: placement.rmsErrorM,
      maxM: placement.maxErrorM,
      worst: worst.name,
      keypointJitterM: neutral.scaled.measurementWindow.meanExcursionM ?? Number.NaN,
    },
    comparisons: compareMotions(
      motionFromCoordinates(new KinematicModel(neutral.scaled.model), fit.ik.trajectories),
      reference.mot,
      FLEXION_COORDINATES,
    ),
    lagFrames: 0,
    keypointDistanceM: 0,
  };
}

/**
 * Pose2Sim's two IK results of the balancing trial, from the same triangulated keypoints: through its
 * body25b marker set and through its marker augmenter's (LSTM) markers. How far one tool's answers
 * part with only the marker set changed.
 */
export function pose2SimSpread(): CoordinateComparison[] {
  const motion = (path: string) => readStorage(readFileSync(referencePath(path), 'utf8'));
  return compareMotions(motion(DEMO_FILES.theirLstmMot), motion(DEMO_FILES.theirMot), FLEXION_COORDINATES);
}

/** One printed row of a coordinate's figures in degrees, in the columns of formatComparison's tables. */
export const degreeRow = (coordinate: string, degrees: number[]) =>
  `  ${coordinate.padEnd(16)}  ${degrees.map((value) => value.toFixed(1).padStart(5)).join('   ')}`;

export function formatComparison(title: string, result: ChainResult): string {
  const { scaling, geometry } = result;
  const cm = ([min, max]: [number, number]) => `${(min * 100).toFixed(1)}-${(max * 100).toFixed(1)} cm`;
  return [
    `${title}: static-pose marker error RMS ${(scaling.rmsM * 100).toFixed(2)} cm, max ${(scaling.maxM * 100).toFixed(2)} cm (${scaling.worst}); keypoint jitter while standing ${(scaling.keypointJitterM * 1000).toFixed(1)} mm; frame lag to Pose2Sim ${result.lagFrames}, hips, knees and ankles ${(result.keypointDistanceM * 100).toFixed(1)} cm RMS from its keypoints`,
    '  coordinate        largest jump ours / Pose2Sim (deg)   offset (deg)   RMS difference / without offset (deg)',
    ...result.comparisons.map(
      (c) =>
        `  ${c.coordinate.padEnd(16)}  ${c.largestJumpDeg.toFixed(1).padStart(6)} / ${c.referenceLargestJumpDeg.toFixed(1).padStart(5)}              ${c.offsetDeg.toFixed(1).padStart(6)}         ${c.rmsDifferenceDeg.toFixed(1).padStart(5)} / ${c.rmsDifferenceWithoutOffsetDeg.toFixed(1).padStart(5)}`,
    ),
    ...(geometry
      ? [
          '  angles off the keypoints (RMS difference without offset, deg): our keypoints vs Pose2Sim’s; our IK vs our keypoints; Pose2Sim’s IK vs its keypoints',
          ...geometry.angles.map((g) =>
            degreeRow(g.coordinate, [g.keypointsDeg, g.ourIkToOurKeypointsDeg, g.theirIkToTheirKeypointsDeg]),
          ),
          `  left shank length, frames 36-64: ours ${cm(geometry.leftShankM.ours)}, Pose2Sim’s ${cm(geometry.leftShankM.theirs)}`,
          `  offset to Pose2Sim in frames 36-64 minus in the others (deg): ${geometry.offsetStepDeg.map((o) => `${o.coordinate} ${o.stepDeg.toFixed(1)}`).join(', ')}`,
          `  hip line against the feet while both are down (frames 0-8): ours ${geometry.hipLineToFeetDeg.ours.toFixed(1)}°, Pose2Sim’s ${geometry.hipLineToFeetDeg.theirs.toFixed(1)}°`,
          '  hip flexion difference to Pose2Sim, from the thigh and from the pelvis (RMS without offset, deg): whole; our thigh in its pelvis; our pelvis',
          ...geometry.hipFlexionParts.map((p) =>
            degreeRow(`hip_flexion_${p.side}`, [p.wholeDeg, p.thighDeg, p.pelvisDeg]),
          ),
        ]
      : []),
  ].join('\n');
}

/** The whole chain's flexion figures of several models in one table: RMS difference to Pose2Sim without offset, and largest jump (deg). */
export function formatSideBySide(models: readonly string[], chains: ChainResult[]): string {
  const head = models.map((model) => model.padStart(28)).join('');
  return [
    'joint angles, kinetrace process → scale → ik, models side by side: RMS difference to Pose2Sim without offset / largest jump (deg)',
    `  ${'coordinate'.padEnd(16)}${head}`,
    ...FLEXION_COORDINATES.map((coordinate) => {
      const cells = chains.map((chain) => {
        const c = chain.comparisons.find((comparison) => comparison.coordinate === coordinate)!;
        return `${c.rmsDifferenceWithoutOffsetDeg.toFixed(1)} / ${c.largestJumpDeg.toFixed(1)}`.padStart(28);
      });
      return `  ${coordinate.padEnd(16)}${cells.join('')}`;
    }),
    `  ${'static marker RMS'.padEnd(16)}${chains.map((chain) => `${(chain.scaling.rmsM * 100).toFixed(2)} cm`.padStart(28)).join('')}`,
  ].join('\n');
}
