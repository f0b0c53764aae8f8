import type { PhoneKeypointsUse } from '../pose/phone-keypoints.ts';
import type { CutoffDecision } from '../filter/cutoff.ts';
import type { SyncResult } from '../sync/synchronise.ts';
import type { ErrorStatistics, ReprojectionSummary } from '../triangulation/reprojection-summary.ts';
import type { Triangulation } from '../triangulation/triangulate.ts';
import { frameMotion } from './keypoint-motion.ts';
import type { Keypoints2dSource, TrialQuality } from '@kinetrace/contracts';
import { CHECKED_SEGMENTS, segmentLengths, type SegmentLength } from './segment-lengths.ts';
import { judgeTrialQuality } from './trial-quality.ts';

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
  /** Other people in view (see QualityReportPeople). */
  people: QualityReportPeople;
  reprojectionErrorPx: ErrorStatistics | null;
  cameras: CameraQuality[];
  keypoints: KeypointQuality[];
  /**
   * Length of each checked segment (thigh, shank, upper arm, forearm, hindfoot, foot, both sides)
   * over the trial, on the output keypoints: a segment does not change length, so its SD measures
   * how steady the keypoints are.
   */
  segments: SegmentLength[];
  /** False when a segment's length varies more than SEGMENT_SD_LIMIT_M (a warning says which). */
  segmentsSteady: boolean;
  /** Views that disagreed by more than this (mean reprojection error, px) were left out. */
  outlierThresholdPx: number;
  /** Points seen by two cameras or more but left missing because no two of them agreed. */
  pointsRejected: number;
  filter: { cutoffHz: number; applied: boolean };
  warnings: string[];
  /** The quality gate: good, or poor with the reasons and what is to blame (trialQualitySchema in packages/contracts). */
  quality: TrialQuality;
}

/**
 * A segment whose length's SD over the trial exceeds this is flagged (our choice: 30 mm, what a
 * careful multi-camera markerless setup stays under on the Pose2Sim demo; a swapped or
 * mis-detected limb passed through triangulation gives 50-100 mm).
 */
export const SEGMENT_SD_LIMIT_M = 0.03;

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
    /** Whether the lag found was applied; false: the phones' start times stand (sync not refined). */
    refined: boolean;
  };
  /** Confident detections of this camera left out of triangulation because they disagreed with the other cameras. */
  detectionsLeftOut: number;
  /** Frames × body parts (head, arms, legs) whose left and right sides this camera had the wrong way round, corrected. */
  sidesSwapped: number;
  /** Frames where this camera saw other people besides the subject (bystanders). */
  framesWithOtherPeople: number;
  /** Frames where the subject was another detection than the one this camera's tracker followed. */
  framesPersonReassigned: number;
  /** Frames of this camera's video where the pose model found no person. */
  framesWithoutPerson: number;
  framesTotal: number;
  reprojectionErrorPx: ErrorStatistics | null;
  /** Whether this camera's 2D keypoints were detected by our pose model, given, or its phone's (processTrial sets it). */
  keypoints2D?: Keypoints2dSource;
  /** When the camera's phone sent its keypoints (issue 24): whether they were used, their coverage and check, and why not. */
  phoneKeypoints?: PhoneKeypointsUse;
  /**
   * When the server detected this camera's keypoints: the frames a second it ran the pose model on, the video's
   * rate or, processed at the rate the filter needs (issue 24, pose-rate.ts), less, the frames between filled.
   */
  detectedHz?: number;
  /** The server detected them as the camera's video arrived, before the trial's last video (issue 24). */
  detectedOnArrival?: boolean;
}

/**
 * When other people were in view: how many people the cameras saw together (the subject among
 * them; 0 when no camera saw anyone else), and the stretches where two cameras or more saw
 * someone but the subject could not be told apart. Those frames have no 2D keypoints of the
 * subject: a stretch up to fps/5 frames is filled, a longer one stays without keypoints.
 */
export interface QualityReportPeople {
  found: number;
  /** Seconds from the start of the trial, on the cameras' start times (before synchronisation). */
  subjectNotToldApart: { startS: number; endS: number; frames: number }[];
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
  /** Frames removed as isolated spikes before gap filling. */
  framesSpikeRemoved: number;
  /** Frames removed before gap filling because its links to its skeleton neighbours put it off the body (removeSegmentOutliers). */
  framesOffBody: number;
  /** Largest displacement between two consecutive frames of the output, metres (null when never seen twice in a row). */
  largestFrameJumpM: number | null;
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
  otherPeoplePerCamera: readonly { framesSeen: number; framesReassigned: number }[];
  people: QualityReportPeople;
  reprojection: ReprojectionSummary;
  triangulation: Pick<
    Triangulation,
    'excludedPerCamera' | 'sidesSwappedPerCamera' | 'rejectedPoints' | 'maxReprojectionErrorPx'
  >;
  /** Per keypoint: frames removed as spikes. */
  spikesRemovedPerKeypoint: Uint32Array;
  /** Per keypoint: frames removed as off the body. */
  offBodyPerKeypoint: Uint32Array;
  /** frames × keypoints × 3 before gap filling (spikes removed), after it, and the output (filtered). */
  triangulatedM: Float64Array;
  filledM: Float64Array;
  outputM: Float64Array;
  cutoff: CutoffDecision;
  warnings: readonly string[];
}

export function buildQualityReport(input: QualityReportInput): QualityReport {
  const frameCount = input.timesS.length;
  const keypointCount = input.keypointNames.length;
  let framesWithoutPerson = 0;
  for (let frame = 0; frame < frameCount; frame++) {
    let seen = false;
    for (let k = 0; k < keypointCount && !seen; k++)
      seen = !Number.isNaN(input.triangulatedM[(frame * keypointCount + k) * 3]);
    if (!seen) framesWithoutPerson++;
  }
  const countFrames = (positions: Float64Array, keypoint: number, missing: boolean) => {
    let count = 0;
    for (let frame = 0; frame < frameCount; frame++)
      if (Number.isNaN(positions[(frame * keypointCount + keypoint) * 3]) === missing) count++;
    return count;
  };
  const segments = segmentLengths(input.outputM, input.keypointNames, frameCount);
  const cameraEvidence = input.cameraNames.map((name, c) => ({
    name,
    framesTotal: input.personFramesPerCamera[c].total,
    framesWithoutPerson: input.personFramesPerCamera[c].withoutPerson,
    detectionsLeftOut: input.triangulation.excludedPerCamera[c],
    reprojectionMedianPx: input.reprojection.perCamera[c]?.medianPx ?? null,
  }));
  const quality = judgeTrialQuality({
    segments,
    segmentDefinitions: CHECKED_SEGMENTS,
    positionsM: input.outputM,
    keypointNames: input.keypointNames,
    timesS: input.timesS,
    cameras: cameraEvidence,
  });
  const unsteady = segments.filter((segment) => segment.sdM > SEGMENT_SD_LIMIT_M);
  const warnings = [...input.warnings];
  if (unsteady.length > 0) {
    warnings.push(
      `Segment lengths vary more than a body allows (SD above ${SEGMENT_SD_LIMIT_M * 1000} mm): ` +
        `${unsteady.map((segment) => `${segment.name} ${(segment.sdM * 1000).toFixed(0)} mm`).join(', ')}. Check the calibration and that every camera sees only the subject.`,
    );
  }
  return {
    format: 'kinetrace-quality-report',
    version: 1,
    trial: input.trial,
    frameRateHz: input.frameRateHz,
    frameCount,
    durationS: frameCount > 1 ? input.timesS[frameCount - 1] - input.timesS[0] : 0,
    framesWithoutPerson,
    people: input.people,
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
          refined: sync.refined,
        },
        detectionsLeftOut: input.triangulation.excludedPerCamera[c],
        sidesSwapped: input.triangulation.sidesSwappedPerCamera[c],
        framesWithOtherPeople: input.otherPeoplePerCamera[c].framesSeen,
        framesPersonReassigned: input.otherPeoplePerCamera[c].framesReassigned,
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
      framesSpikeRemoved: input.spikesRemovedPerKeypoint[k],
      framesOffBody: input.offBodyPerKeypoint[k],
      largestFrameJumpM: frameMotion(input.outputM, keypointCount, k, frameCount)?.largestJumpM ?? null,
    })),
    segments,
    segmentsSteady: unsteady.length === 0,
    outlierThresholdPx: input.triangulation.maxReprojectionErrorPx,
    pointsRejected: input.triangulation.rejectedPoints,
    filter: { cutoffHz: input.cutoff.cutoffHz, applied: !input.cutoff.passThrough },
    warnings: quality.rating === 'poor' ? [...warnings, ...quality.reasons.map((reason) => reason.message)] : warnings,
    quality,
  };
}
