import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CameraModel } from '../../src/camera/camera.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { readStorage, type StorageTable } from '../../src/formats/mot.ts';
import { readTrc, type MarkerTrajectories } from '../../src/formats/trc.ts';
import { compareMotions, type CoordinateComparison } from '../../src/ik/compare-motions.ts';
import { fitTrial } from '../../src/model-fitting/fit-trial.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { processTrial } from '../../src/pipeline/process-trial.ts';
import { DEFAULT_POSE_MODEL, type PoseModelName } from '../../src/pose/pose-model.ts';
import { keypointOffset, type Keypoints2D } from '../../src/pose/types.ts';
import { projectPoint } from '../../src/camera/camera.ts';
import { medianPx } from '../../src/triangulation/reprojection-summary.ts';
import type { QualityReport } from '../../src/report/quality-report.ts';
import type { ReportWithModelFit } from '../../src/session/model-fit-report.ts';
import { processMovementResultsFirst } from '../../src/session/process-movement.ts';
import { ikSettingsForModel } from '../../src/model-fitting/fit-neutral.ts';
import { processNeutral } from '../../src/session/process-neutral.ts';
import type { ProcessingSettings, SessionVideo } from '../../src/session/types.ts';
import { sharedTimeBase } from '../../src/sync/align-to-time-base.ts';
import { DEMO_FILES, DEMO_SUBJECT, FLEXION_COORDINATES } from '../model-fitting/pose2sim-demo-chain.ts';
import { detectedPoses } from '../pose/detection-cache.ts';
import { referencePath } from '../reference-data.ts';

/**
 * The Pose2Sim demo's static and balancing trials through the session chain `kinetrace process`
 * runs (processNeutral: 3D keypoints and the scaled model; processMovement: joint angles), on all
 * four cameras and on pairs of them, from one pose detection per video: the 2D keypoints of the
 * four cameras are detected once and handed to every run (`estimatePose`). Shared by the test
 * (assertions) and the bench (table).
 */
export const CAMERAS = ['cam01', 'cam02', 'cam03', 'cam04'];
/** The pairs issue 25 names: two side by side in front (cam01+cam02), two behind (cam03+cam04), front and back. */
export const PAIRS: readonly (readonly [string, string])[] = [
  ['cam01', 'cam02'],
  ['cam03', 'cam04'],
  ['cam01', 'cam03'],
  ['cam02', 'cam04'],
];

export interface DemoDetections {
  cameras: CameraModel[];
  /** The model the keypoints were detected with. */
  poseModel: PoseModelName;
  static: Keypoints2D[];
  balancing: Keypoints2D[];
}

/** The demo's calibration and each video's 2D keypoints (detected once for every test file: detectedPoses). */
export async function detectDemo(poseModel: PoseModelName = DEFAULT_POSE_MODEL): Promise<DemoDetections> {
  const cameras = readQualisysCalibration(readFileSync(referencePath(DEMO_FILES.calibration), 'utf8'));
  const detect = (folder: string) =>
    detectedPoses(
      CAMERAS.map((cameraName) => referencePath(folder, `${cameraName}.mp4`)),
      { model: poseModel },
    );
  return {
    cameras,
    poseModel,
    static: await detect(DEMO_FILES.staticVideos),
    balancing: await detect(DEMO_FILES.balancingVideos),
  };
}

export interface SetupRun {
  cameras: string[];
  neutral: ReportWithModelFit;
  balancing: ReportWithModelFit;
  motion: StorageTable;
  /** The scaled model (.osim) of the neutral, and the balancing trial's keypoints IK tracked (its .trc). */
  scaledModelOsim: string;
  balancingKeypoints: MarkerTrajectories;
  /** Shared-clock time of the balancing trial's frame 0, s: where its .mot starts. */
  balancingStartS: number;
}

const SETTINGS: ProcessingSettings = {
  board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
  poseModel: DEFAULT_POSE_MODEL,
  filterFrequency: 'default',
  // As `kinetrace scale` by default: the legs of the demo's T-pose are upright, and the placer leaves the arms free.
  scalingSetup: 'upright_standing_pose',
};

/**
 * The neutral (the static trial) of the demo with the named cameras, into `outDir`; `edits` remove
 * keypoints from a camera's detections (confidence 0), as a camera that never sees them, or move
 * them sideways in every frame (`shiftXPx`), as a detector that puts them off the body.
 */
export async function runNeutral(
  detections: DemoDetections,
  cameraNames: readonly string[],
  outDir: string,
  edits: KeypointEdit[] = [],
) {
  const keypoints = cameraNames.map((name) => edited(detections.static[CAMERAS.indexOf(name)], edits, name));
  const outcome = await processNeutral(
    {
      videos: videos(cameraNames, DEMO_FILES.staticVideos),
      cameraSolutions: cameraNames.map((name) => [detections.cameras[CAMERAS.indexOf(name)]]),
      subject: DEMO_SUBJECT,
      settings: { ...SETTINGS, poseModel: detections.poseModel },
      outDir,
    },
    { estimatePose: fromCache(cameraNames, keypoints) },
  );
  return { outcome, report: readReport(join(outDir, 'neutral_report.json')) };
}

/**
 * A trial of the demo reconstructed with the named cameras as the session chain does it:
 * processNeutral's settings for the static trial (no synchronisation), processMovement's for the
 * balancing trial (without their scaling, IK and synchronised videos).
 */
export function reconstructDemoTrial(
  detections: DemoDetections,
  cameraNames: readonly string[],
  trial: 'static' | 'balancing',
) {
  const keypoints = cameraNames.map((name) => detections[trial][CAMERAS.indexOf(name)]);
  return processTrial(
    {
      trialName: trial,
      cameras: cameraNames.map((name) => detections.cameras[CAMERAS.indexOf(name)]),
      videos: videos(cameraNames, trial === 'static' ? DEMO_FILES.staticVideos : DEMO_FILES.balancingVideos),
    },
    {
      estimatePose: fromCache(cameraNames, keypoints),
      filterFrequency: SETTINGS.filterFrequency,
      isGait: false,
      ...(trial === 'static' ? { synchronise: false, neutral: true } : {}),
    },
  );
}

/**
 * The neutral and the balancing trial of the demo with the named cameras, into `outDir` (the
 * balancing trial's results without its synchronised videos, which nothing here reads).
 */
export async function runSetup(
  detections: DemoDetections,
  cameraNames: readonly string[],
  outDir: string,
): Promise<SetupRun> {
  const neutral = await runNeutral(detections, cameraNames, join(outDir, 'neutral'));
  const balancingDir = join(outDir, 'balancing');
  const keypoints = cameraNames.map((name) => detections.balancing[CAMERAS.indexOf(name)]);
  await processMovementResultsFirst(
    {
      videos: videos(cameraNames, DEMO_FILES.balancingVideos),
      cameras: neutral.outcome.cameras,
      scaledModelOsim: neutral.outcome.scaledModelOsim,
      subject: DEMO_SUBJECT,
      settings: { ...SETTINGS, poseModel: detections.poseModel },
      outDir: balancingDir,
      trialName: 'balancing',
    },
    { estimatePose: fromCache(cameraNames, keypoints) },
  );
  const balancing = readReport(join(balancingDir, 'balancing_report.json'));
  return {
    cameras: [...cameraNames],
    neutral: neutral.report,
    balancing,
    motion: readStorage(readFileSync(join(balancingDir, 'balancing.mot'), 'utf8')),
    scaledModelOsim: neutral.outcome.scaledModelOsim,
    balancingKeypoints: readTrc(readFileSync(join(balancingDir, 'balancing.trc'), 'utf8')),
    balancingStartS: trialStartS(balancing, keypoints),
  };
}

const videos = (cameraNames: readonly string[], folder: string): SessionVideo[] =>
  cameraNames.map((cameraName) => ({ cameraName, path: referencePath(folder, `${cameraName}.mp4`) }));
const fromCache =
  (cameraNames: readonly string[], keypoints: Keypoints2D[]) =>
  async (video: SessionVideo): Promise<Keypoints2D> =>
    keypoints[cameraNames.indexOf(video.cameraName)];
const readReport = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as ReportWithModelFit;

export interface KeypointEdit {
  camera: string;
  keypoints: string[];
  /** Moves the keypoints this far along the image's x axis; without it they are hidden. */
  shiftXPx?: number;
}

function edited(keypoints: Keypoints2D, edits: readonly KeypointEdit[], cameraName: string) {
  const own = edits.filter((edit) => edit.camera === cameraName);
  if (own.length === 0) return keypoints;
  const data = new Float32Array(keypoints.data);
  const width = keypoints.keypointNames.length;
  for (const edit of own)
    for (const name of edit.keypoints) {
      const k = (keypoints.keypointNames as readonly string[]).indexOf(name);
      for (let f = 0; f < keypoints.frameCount; f++) {
        const at = (f * width + k) * 3;
        if (edit.shiftXPx === undefined) data.set([Number.NaN, Number.NaN, 0], at);
        else data[at] += edit.shiftXPx;
      }
    }
  return { ...keypoints, data };
}

/** The shared-clock time of a trial's frame 0, from its report's synchronisation. */
function trialStartS(report: QualityReport, keypoints: readonly Keypoints2D[]): number {
  const offsetsS = report.cameras.map((camera) => camera.sync.offsetS);
  const reference = report.cameras.findIndex((camera) => camera.sync.isReference);
  return sharedTimeBase(keypoints, offsetsS, reference)[0];
}

export interface SegmentFigures {
  medianSdMm: number;
  worst: { name: string; sdMm: number };
  /** The worst of the segments off the feet: the feet's lengths are held where two views alone place them (holdFeetRigid). */
  worstOffFeet: { name: string; sdMm: number };
}

export function segmentFigures(report: QualityReport): SegmentFigures {
  const { medianSdM, worst, worstOffFeet } = segmentSpread(report.segments);
  return {
    medianSdMm: medianSdM * 1000,
    worst: { name: worst.name, sdMm: worst.sdM * 1000 },
    worstOffFeet: { name: worstOffFeet.name, sdMm: worstOffFeet.sdM * 1000 },
  };
}

/** The median of the segments' length SDs, m; the segment that varies most; and the one that varies most off the feet. */
export function segmentSpread<T extends { name: string; sdM: number }>(segments: readonly T[]) {
  return {
    medianSdM: medianPx(segments.map((segment) => segment.sdM)) ?? Number.NaN,
    worst: worstSegment(segments),
    worstOffFeet: worstSegment(segments.filter((segment) => !isFootSegment(segment.name))),
  };
}

/** The segment whose length varies most. */
function worstSegment<T extends { name: string; sdM: number }>(segments: readonly T[]): T {
  return segments.reduce((a, b) => (b.sdM > a.sdM ? b : a));
}

/** The report's ankle-heel and heel-toe segments (CHECKED_SEGMENTS): RHindfoot, RFoot and the left ones. */
function isFootSegment(name: string): boolean {
  return /foot$/i.test(name);
}

/** Frames from the four cameras' balancing frame 0 to a pair's, on the shared clock. */
const framesAfter = (pair: SetupRun, four: SetupRun) =>
  Math.round((pair.balancingStartS - four.balancingStartS) * pair.balancing.frameRateHz);

/** A pair's hip, knee and ankle angles against the four cameras', frame for frame on the shared clock. */
export function anglesAgainst(pair: SetupRun, four: SetupRun): CoordinateComparison[] {
  return compareMotions(pair.motion, four.motion, FLEXION_COORDINATES, framesAfter(pair, four));
}

/**
 * Where a pair's angles part from the four cameras': each half of the chain swapped in turn, with
 * the same IK processMovement runs. `keypoints`: the pair's balancing keypoints through the four
 * cameras' scaled model (what triangulation, sync and filtering with two views change); `model`: the
 * four cameras' keypoints through the pair's scaled model (what the neutral and its scaling change).
 * Each against the four cameras' angles.
 */
export function angleErrorSources(
  pair: SetupRun,
  four: SetupRun,
): { keypoints: CoordinateComparison[]; model: CoordinateComparison[] } {
  const angles = (keypoints: MarkerTrajectories, osim: string) => {
    const model = readOsim(osim);
    return fitTrial({ trial: keypoints, model, osim, subject: DEMO_SUBJECT, ikTasks: ikSettingsForModel(model) })
      .motion;
  };
  return {
    keypoints: compareMotions(
      angles(pair.balancingKeypoints, four.scaledModelOsim),
      four.motion,
      FLEXION_COORDINATES,
      framesAfter(pair, four),
    ),
    model: compareMotions(angles(four.balancingKeypoints, pair.scaledModelOsim), four.motion, FLEXION_COORDINATES),
  };
}

/**
 * What is kept of the detector's own placement of each keypoint in reprojectedDetections: nothing
 * (`none`); each view's median offset per keypoint over the trial, constant (`median offset`); or
 * the rest, the detections less that offset (`without median offset`).
 */
export type DetectorPlacement = 'none' | 'median offset' | 'without median offset';

/** The four cameras' 3D keypoints of both trials (reconstructDemoTrial), for reprojectedDetections. */
export async function fourCameraKeypoints(detections: DemoDetections) {
  const [still, balancing] = await Promise.all([
    reconstructDemoTrial(detections, CAMERAS, 'static'),
    reconstructDemoTrial(detections, CAMERAS, 'balancing'),
  ]);
  return { static: still, balancing };
}

/**
 * The demo's detections moved to where the four cameras' 3D keypoints reproject into each camera:
 * 2D keypoints on which every view agrees, in the frames and for the keypoints each camera
 * detected (their confidences kept), so that what a pair's chain gives on them is what two cameras
 * add themselves. `keep` puts part of the detector's own placement back (DetectorPlacement).
 */
export function reprojectedDetections(
  detections: DemoDetections,
  four: Awaited<ReturnType<typeof fourCameraKeypoints>>,
  keep: DetectorPlacement,
): DemoDetections {
  const reprojected = (trial: 'static' | 'balancing') => {
    const points = four[trial].keypoints;
    const startS = trialStartS(four[trial].report, detections[trial]);
    return detections[trial].map((keypoints, camera) => {
      const offsetS = four[trial].report.cameras[camera].sync.offsetS;
      const width = keypoints.keypointNames.length;
      const markers = keypoints.keypointNames.map((name) => points.markerNames.indexOf(name));
      // Per frame and keypoint: where the four cameras' point reprojects, NaN where it has none.
      const at = new Float64Array(keypoints.frameCount * width * 2).fill(Number.NaN);
      for (let frame = 0; frame < keypoints.frameCount; frame++) {
        const pointFrame = Math.round((keypoints.timestampsS[frame] + offsetS - startS) * points.frameRateHz);
        if (pointFrame < 0 || pointFrame >= points.timesS.length) continue;
        markers.forEach((marker, k) => {
          if (marker < 0) return;
          const from = (pointFrame * points.markerNames.length + marker) * 3;
          const pixel = projectPoint(detections.cameras[camera], points.positionsM.subarray(from, from + 3));
          if (pixel && Number.isFinite(pixel[0])) at.set(pixel, (frame * width + k) * 2);
        });
      }
      const detected = (frame: number, k: number) => {
        const offset = keypointOffset(keypoints, frame, k);
        return keypoints.data[offset + 2] > 0 && Number.isFinite(keypoints.data[offset]);
      };
      const medianOffset = keypoints.keypointNames.map((_, k) =>
        [0, 1].map((axis) => {
          const offsets: number[] = [];
          for (let frame = 0; frame < keypoints.frameCount; frame++) {
            const there = at[(frame * width + k) * 2 + axis];
            if (detected(frame, k) && Number.isFinite(there))
              offsets.push(keypoints.data[keypointOffset(keypoints, frame, k) + axis] - there);
          }
          return medianPx(offsets) ?? 0;
        }),
      );
      const data = new Float32Array(keypoints.data);
      for (let frame = 0; frame < keypoints.frameCount; frame++)
        for (let k = 0; k < width; k++) {
          if (!detected(frame, k)) continue;
          const offset = keypointOffset(keypoints, frame, k);
          const there = at.subarray((frame * width + k) * 2, (frame * width + k) * 2 + 2);
          if (!Number.isFinite(there[0])) data.set([Number.NaN, Number.NaN, 0], offset);
          else
            for (const axis of [0, 1])
              data[offset + axis] =
                keep === 'none'
                  ? there[axis]
                  : keep === 'median offset'
                    ? there[axis] + medianOffset[k][axis]
                    : keypoints.data[offset + axis] - medianOffset[k][axis];
        }
      return { ...keypoints, data, otherPeople: undefined };
    });
  };
  return { ...detections, static: reprojected('static'), balancing: reprojected('balancing') };
}
