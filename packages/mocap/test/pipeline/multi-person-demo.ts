import { readFileSync } from 'node:fs';
import type { CameraModel } from '../../src/camera/camera.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { reconstructTrial, type Reconstruction } from '../../src/pipeline/reconstruct-trial.ts';
import { DEFAULT_POSE_MODEL, type PoseModelName } from '../../src/pose/pose-model.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { CHECKED_SEGMENTS, segmentLengths } from '../../src/report/segment-lengths.ts';
import { detectedPoses } from '../pose/detection-cache.ts';
import { segmentSpread } from './two-camera-pairs.ts';
import { referencePath } from '../reference-data.ts';

/**
 * Pose2Sim's Demo_MultiPerson: a man balancing on the beam in the middle of the four cameras, a
 * woman standing beside it (nearest cam01 and cam02, the most prominent person there) and a third
 * person in the back; in cam03 the man crosses in front of the woman. The subject is the man: the
 * person nearest the calibrated volume's centre. Detected once, reconstructed on four cameras and on
 * pairs. Shared by the test (assertions) and the bench (table).
 */
export const MULTI_PERSON_DEMO = 'pose2sim_demo/Pose2Sim/Demo_MultiPerson';
export const MULTI_PERSON_CAMERAS = ['cam01', 'cam02', 'cam03', 'cam04'];
export const MULTI_PERSON_FILES = [
  ...MULTI_PERSON_CAMERAS.map((name) => `${MULTI_PERSON_DEMO}/videos/${name}.mp4`),
  `${MULTI_PERSON_DEMO}/calibration/Calib.qca.txt`,
];
/** The pairs where telling people apart is hardest: the woman in front is the most prominent person in both of cam01 and cam02, and the man crosses in front of her in cam03. */
export const MULTI_PERSON_PAIRS: readonly (readonly number[])[] = [
  [0, 1],
  [2, 3],
];
/**
 * Median reprojection error per camera on the single-person demo (same cameras, same movement, one
 * person): 9.3-15.9 px (steady-keypoints test). A camera that took another person than the others
 * would be hundreds of pixels off.
 */
export const SINGLE_PERSON_WORST_CAMERA_PX = 15.9;

export interface MultiPersonDemo {
  cameras: CameraModel[];
  detected: Keypoints2D[];
}

/** The calibration and each video's 2D keypoints (detected once for every test file: detectedPoses). */
export async function detectMultiPersonDemo(poseModel: PoseModelName = DEFAULT_POSE_MODEL): Promise<MultiPersonDemo> {
  const cameras = readQualisysCalibration(
    readFileSync(referencePath(`${MULTI_PERSON_DEMO}/calibration/Calib.qca.txt`), 'utf8'),
  );
  const detected = await detectedPoses(
    MULTI_PERSON_CAMERAS.map((name) => referencePath(`${MULTI_PERSON_DEMO}/videos/${name}.mp4`)),
    { model: poseModel },
  );
  return { cameras, detected };
}

/** The scene reconstructed with the cameras of `set` (indices), as a movement trial or as a neutral. */
export function reconstructMultiPerson(demo: MultiPersonDemo, set: readonly number[], neutral = false): Reconstruction {
  return reconstructTrial(
    set.map((c) => demo.cameras[c]),
    set.map((c) => demo.detected[c]),
    { trialName: 'multi-person', requireSync: false, neutral },
  );
}

export interface BodyFigures {
  medianSdM: number;
  worst: { name: string; sdM: number };
  /** The worst of the segments off the feet (segmentFigures). */
  worstOffFeet: { name: string; sdM: number };
  /** Largest change of a segment's length between consecutive frames where it exists, m. */
  largestJump: { name: string; jumpM: number; frame: number };
}

/** Whether the output keypoints are one body: the 12 checked segments' length SD, and their largest frame-to-frame jump. */
export function bodyFigures(result: Reconstruction): BodyFigures {
  const { positionsM, markerNames, timesS } = result.keypoints;
  const frameCount = timesS.length;
  const { medianSdM, worst, worstOffFeet } = segmentSpread(segmentLengths(positionsM, markerNames, frameCount));
  const largestJump = { name: '', jumpM: 0, frame: -1 };
  const width = markerNames.length * 3;
  for (const segment of CHECKED_SEGMENTS) {
    const a = markerNames.indexOf(segment.from) * 3;
    const b = markerNames.indexOf(segment.to) * 3;
    if (a < 0 || b < 0) continue;
    const length = (frame: number) =>
      Math.hypot(
        positionsM[frame * width + a] - positionsM[frame * width + b],
        positionsM[frame * width + a + 1] - positionsM[frame * width + b + 1],
        positionsM[frame * width + a + 2] - positionsM[frame * width + b + 2],
      );
    for (let frame = 1; frame < frameCount; frame++) {
      const jumpM = Math.abs(length(frame) - length(frame - 1));
      if (jumpM > largestJump.jumpM) Object.assign(largestJump, { name: segment.name, jumpM, frame });
    }
  }
  return {
    medianSdM,
    worst: { name: worst.name, sdM: worst.sdM },
    worstOffFeet: { name: worstOffFeet.name, sdM: worstOffFeet.sdM },
    largestJump,
  };
}

/** One line of figures for a reconstruction, for the test's log and the bench's table. */
export function describeMultiPerson(label: string, result: Reconstruction): string {
  const figures = bodyFigures(result);
  return (
    `${label.padEnd(24)} segment SD median ${(figures.medianSdM * 1000).toFixed(1)} mm, worst ${(figures.worst.sdM * 1000).toFixed(1)} mm (${figures.worst.name}; off the feet ${(figures.worstOffFeet.sdM * 1000).toFixed(1)} ${figures.worstOffFeet.name}), ` +
    `largest jump ${(figures.largestJump.jumpM * 1000).toFixed(0)} mm (${figures.largestJump.name}, frame ${figures.largestJump.frame}); ` +
    `reprojection per camera ${result.report.cameras.map((camera) => camera.reprojectionErrorPx?.medianPx.toFixed(1)).join('/')} px; ` +
    `people ${result.report.people.found}, subject not told apart ${result.report.people.subjectNotToldApart.map((stretch) => stretch.frames).join('+') || 0} frames`
  );
}
