import type { CutoffDecision } from '../filter/cutoff.ts';
import type { SyncResult } from '../sync/synchronise.ts';
import type { ErrorStatistics, ReprojectionSummary } from '../triangulation/reprojection-summary.ts';

/**
 * The quality report of a processed trial (DESIGN §2 step 10), written as `<trial>_report.json`:
 * the figures a user needs to judge the result. Documented in docs/process.md.
 */
export interface QualityReport {
  format: 'kinetrace-quality-report';
  version: 1;
  trial: string;
  frameRateHz: number;
  frameCount: number;
  durationS: number;
  /** Frames of the trial where no keypoint could be triangulated (nobody seen by two cameras). */
  framesWithoutPerson: number;
  reprojectionErrorPx: ErrorStatistics | null;
  cameras: CameraQuality[];
  keypoints: KeypointQuality[];
  filter: { cutoffHz: number; applied: boolean };
  warnings: string[];
}

export interface CameraQuality {
  name: string;
  /** Reprojection error of the calibration (checkerboard corners), px, when known. */
  calibrationErrorPx: number | null;
  sync: {
    /** Seconds added to the camera's timestamps to reach the shared clock. */
    offsetS: number;
    /** Correction found relative to the phones' reported start times. */
    lagS: number;
    lagFrames: number;
    correlation: number;
    /** 0..1; near 0 the lag is ambiguous. */
    confidence: number;
    signal: string;
    isReference: boolean;
  };
  /** Frames of this camera's video where the pose model found no person. */
  framesWithoutPerson: number;
  framesTotal: number;
  reprojectionErrorPx: ErrorStatistics | null;
}

export interface KeypointQuality {
  name: string;
  reprojectionErrorPx: ErrorStatistics | null;
  /** Median reprojection error per camera (same order as `cameras`), px. */
  medianErrorPerCameraPx: (number | null)[];
  /** Frames where the keypoint is missing after gap filling. */
  framesMissing: number;
  /** Frames filled by spline interpolation. */
  framesFilled: number;
}

export interface QualityReportInput {
  trial: string;
  frameRateHz: number;
  timesS: Float64Array;
  cameraNames: readonly string[];
  keypointNames: readonly string[];
  calibrationErrorsPx?: readonly (number | null | undefined)[];
  sync: SyncResult;
  personFramesPerCamera: readonly { withoutPerson: number; total: number }[];
  reprojection: ReprojectionSummary;
  /** frames × keypoints × 3 before and after gap filling. */
  triangulatedM: Float64Array;
  filledM: Float64Array;
  cutoff: CutoffDecision;
  warnings: readonly string[];
}

export function buildQualityReport(input: QualityReportInput): QualityReport {
  const frameCount = input.timesS.length;
  const keypointCount = input.keypointNames.length;
  let framesWithoutPerson = 0;
  for (let frame = 0; frame < frameCount; frame++) {
    let seen = false;
    for (let k = 0; k < keypointCount && !seen; k++) seen = !Number.isNaN(input.triangulatedM[(frame * keypointCount + k) * 3]);
    if (!seen) framesWithoutPerson++;
  }
  const countFrames = (positions: Float64Array, keypoint: number, missing: boolean) => {
    let count = 0;
    for (let frame = 0; frame < frameCount; frame++) if (Number.isNaN(positions[(frame * keypointCount + keypoint) * 3]) === missing) count++;
    return count;
  };
  return {
    format: 'kinetrace-quality-report',
    version: 1,
    trial: input.trial,
    frameRateHz: input.frameRateHz,
    frameCount,
    durationS: frameCount > 1 ? input.timesS[frameCount - 1] - input.timesS[0] : 0,
    framesWithoutPerson,
    reprojectionErrorPx: input.reprojection.overall,
    cameras: input.cameraNames.map((name, c) => {
      const sync = input.sync.cameras[c];
      return {
        name,
        calibrationErrorPx: input.calibrationErrorsPx?.[c] ?? null,
        sync: {
          offsetS: sync.offsetS,
          lagS: sync.lagS,
          lagFrames: sync.lagFrames,
          correlation: sync.correlation,
          confidence: sync.confidence,
          signal: sync.signal,
          isReference: c === input.sync.referenceCamera,
        },
        framesWithoutPerson: input.personFramesPerCamera[c].withoutPerson,
        framesTotal: input.personFramesPerCamera[c].total,
        reprojectionErrorPx: input.reprojection.perCamera[c],
      };
    }),
    keypoints: input.keypointNames.map((name, k) => ({
      name,
      reprojectionErrorPx: input.reprojection.perKeypoint[k],
      medianErrorPerCameraPx: input.reprojection.perKeypointAndCamera[k].map((stats) => stats?.medianPx ?? null),
      framesMissing: countFrames(input.filledM, k, true),
      framesFilled: countFrames(input.filledM, k, false) - countFrames(input.triangulatedM, k, false),
    })),
    filter: { cutoffHz: input.cutoff.cutoffHz, applied: !input.cutoff.passThrough },
    warnings: [...input.warnings],
  };
}
