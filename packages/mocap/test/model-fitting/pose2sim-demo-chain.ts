import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readStorage, type StorageTable } from '../../src/formats/mot.ts';
import { type MarkerTrajectories, readTrc } from '../../src/formats/trc.ts';
import { bestFrameLag, type CoordinateComparison, compareMotions } from '../../src/ik/compare-motions.ts';
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
}

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

/** The whole chain on the demo videos, in `root` (a temporary folder). */
export async function runDemoChain(root: string): Promise<ChainResult> {
  const staticFolder = trialFolder(root, 'static', DEMO_FILES.staticVideos);
  const balancingFolder = trialFolder(root, 'balancing', DEMO_FILES.balancingVideos);
  await kinetrace('process', staticFolder);
  await kinetrace('process', balancingFolder);
  return scaleAndSolve(
    keypointsTrc(join(staticFolder, 'output/static')),
    keypointsTrc(join(balancingFolder, 'output/balancing')),
    root,
  );
}

/** kinetrace scale on the static trial's keypoints and kinetrace ik on the balancing trial's, beside Pose2Sim's. */
export async function scaleAndSolve(staticTrc: string, balancingTrc: string, root: string): Promise<ChainResult> {
  const scaledOsim = join(root, 'scaled.osim');
  const motPath = join(root, 'balancing.mot');
  const scaleOutput = await kinetrace(
    'scale',
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
  };
}

/** Our default model scaled on Pose2Sim's static .trc and solved on its balancing .trc: IK and scaling without our triangulation. */
export function runOnTheirKeypoints(): ChainResult {
  const reference = theirs();
  const neutral = fitNeutral({
    neutral: readTrc(readFileSync(referencePath(DEMO_FILES.theirStaticTrc), 'utf8')),
    subject: DEMO_SUBJECT,
  });
  const fit = fitTrial({
    trial: reference.trc,
    model: neutral.scaled.model,
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
          ...geometry.angles.map(
            (g) =>
              `  ${g.coordinate.padEnd(16)}  ${g.keypointsDeg.toFixed(1).padStart(5)}   ${g.ourIkToOurKeypointsDeg.toFixed(1).padStart(5)}   ${g.theirIkToTheirKeypointsDeg.toFixed(1).padStart(5)}`,
          ),
          `  left shank length, frames 36-64: ours ${cm(geometry.leftShankM.ours)}, Pose2Sim’s ${cm(geometry.leftShankM.theirs)}`,
          `  offset to Pose2Sim in frames 36-64 minus in the others (deg): ${geometry.offsetStepDeg.map((o) => `${o.coordinate} ${o.stepDeg.toFixed(1)}`).join(', ')}`,
        ]
      : []),
  ].join('\n');
}
