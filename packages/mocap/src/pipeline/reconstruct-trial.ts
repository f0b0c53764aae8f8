import type { CameraModel } from '../camera/camera.ts';
import {
  isGaitTrialName,
  resolveCutoffHz,
  type CutoffDecision,
  type FilterFrequencySetting,
} from '../filter/cutoff.ts';
import { filterTrajectories } from '../filter/filter-trajectories.ts';
import { removeSegmentOutliers } from '../filter/remove-segment-outliers.ts';
import { removeSpikes } from '../filter/remove-spikes.ts';
import type { MarkerTrajectories } from '../formats/trc.ts';
import { associatePerson, type PersonAssociation } from '../people/associate-person.ts';
import { buildQualityReport, type QualityReport } from '../report/quality-report.ts';
import { alignToTimeBase, sharedTimeBase } from '../sync/align-to-time-base.ts';
import type { KeypointSeries } from '../sync/keypoint-series.ts';
import { reprojectionErrorAtOffset } from '../sync/reprojection-score.ts';
import { synchronise, type SyncResult } from '../sync/synchronise.ts';
import { fillShortGaps } from '../triangulation/fill-gaps.ts';
import { summariseReprojectionErrors } from '../triangulation/reprojection-summary.ts';
import { sideGroups } from '../triangulation/side-consistency.ts';
import { footLinks } from '../triangulation/rigid-feet.ts';
import { bodyLandmarks } from '../triangulation/side-orientation.ts';
import { DEFAULT_MIN_CONFIDENCE, triangulate, type Triangulation } from '../triangulation/triangulate.ts';
import { chooseCameraSolutions } from './choose-camera-solutions.ts';
import { nobodyInViewError } from './nobody-in-view.ts';
import { ProcessingError } from './processing-error.ts';
import type { StageProgress } from './stages.ts';

/**
 * From each camera's 2D keypoints to filtered 3D keypoints and a quality report: synchronise,
 * align to one time base, triangulate, fill short gaps, low-pass filter (DESIGN §2 steps 4-6).
 * Pure: takes typed data, returns typed data.
 */
export interface ReconstructOptions {
  trialName: string;
  /** The session's filter_frequency: 'default' or Hz (spec §5). */
  filterFrequency?: FilterFrequencySetting;
  /** Gait trials get the 12 Hz default cutoff; by default decided from the trial name. */
  isGait?: boolean;
  /**
   * Time of each camera's first frame on a clock shared by the phones (seconds, e.g. Unix time), as
   * the capture page reports it: the initial guess for synchronisation. Missing: first frames together.
   */
  firstFrameTimesS?: readonly (number | undefined)[];
  /** Largest synchronisation correction searched, seconds (default 2). */
  maxSyncLagS?: number;
  /** Throw SYNC_NOT_FOUND when the movement does not reveal a lag (default); false keeps the start times. */
  requireSync?: boolean;
  /** false for cameras synchronised in hardware (or already trimmed): keep the start times as they are. */
  synchronise?: boolean;
  /** 2D detections below this confidence are not triangulated (default 0.4). */
  minConfidence?: number;
  /** Views farther than this from the others (mean reprojection error, px) are left out; default: from the keypoints' noise. */
  maxReprojectionErrorPx?: number;
  /** Checkerboard reprojection error of each camera's calibration, for the report. */
  calibrationErrorsPx?: readonly (number | null | undefined)[];
  /**
   * Per camera, every pose solution of a board calibration (both IPPE solutions) with its board
   * reprojection error: the combination that best explains the person's keypoints is used, and
   * returned as `cameras`. Without it the `cameras` given are used as they are.
   */
  cameraSolutions?: readonly (readonly { camera: CameraModel; boardRmsPx: number }[])[];
  /** The neutral trial: with other people in view, the subject is the person standing still. */
  neutral?: boolean;
  /** Per camera: 1 where the pose model found the person (Keypoints2D.personFound). */
  personFound?: readonly (Uint8Array | undefined)[];
  onProgress?: StageProgress;
}

export interface Reconstruction {
  /** The cameras used, one per input camera (the chosen board solutions when there were several). */
  cameras: CameraModel[];
  /** Gap-filled and filtered keypoints (what the .trc holds). */
  keypoints: MarkerTrajectories;
  /** Gap-filled keypoints before filtering. */
  unfiltered: MarkerTrajectories;
  sync: SyncResult;
  triangulation: Triangulation;
  cutoff: CutoffDecision;
  report: QualityReport;
}

/** Below this share of the reference camera's frames kept after synchronisation, the report warns (our choice). */
const MOST_FRAMES = 0.75;

export function reconstructTrial(
  cameras: readonly CameraModel[],
  keypoints: readonly KeypointSeries[],
  options: ReconstructOptions,
): Reconstruction {
  const warnings: string[] = [];
  if (cameras.length !== keypoints.length)
    throw new Error(`reconstructTrial: ${cameras.length} cameras but ${keypoints.length} keypoint series`);
  const keypointNames = keypoints[0]?.keypointNames ?? [];
  if (keypoints.some((series) => series.keypointNames.join() !== keypointNames.join())) {
    throw new Error('reconstructTrial: every camera must have the same keypoints in the same order');
  }

  // Cameras that never saw anyone cannot help; two are needed.
  const usable = keypoints.map((series) => hasDetections(series));
  const unusable = cameras.filter((_, c) => !usable[c]).map((camera) => camera.name);
  if (unusable.length > 0) warnings.push(`No person found in ${unusable.join(', ')}: left out.`);
  const used = cameras.map((_, c) => c).filter((c) => usable[c]);
  if (used.length === 0) throw nobodyInViewError(unusable);
  if (used.length < 2) {
    throw new ProcessingError(
      'TOO_FEW_CAMERAS',
      `No person was found in the video of ${unusable.length === 1 ? `camera ${unusable[0]}` : `cameras ${unusable.join(', ')}`}, so only camera ${cameras[used[0]].name} saw the subject, and 3D needs two cameras. ` +
        `Turn ${unusable.length === 1 ? 'that camera' : 'those cameras'} so that the subject is in view, the whole body from head to feet and well lit, then record the trial again.`,
      unusable,
    );
  }
  const chosenCameras = [...cameras];
  const calibrationErrorsPx = cameras.map((_, c) => options.calibrationErrorsPx?.[c]);
  const tracked = used.map((c) => toCameraPixels(keypoints[c], cameras[c]));
  const cameraNames = used.map((c) => cameras[c].name);

  // Synchronisation, starting from the phones' first-frame times.
  const reported = used.map((c) => options.firstFrameTimesS?.[c]);
  const earliest = Math.min(...reported.map((t) => t ?? Number.POSITIVE_INFINITY));
  const initialOffsetsS = tracked.map(
    (s, i) => (reported[i] !== undefined && Number.isFinite(earliest) ? reported[i]! - earliest : 0) - s.timestampsS[0],
  );
  options.onProgress?.('sync', 0, 1);
  const referenceCamera = fastest(tracked);
  const solutions = options.cameraSolutions;
  if (solutions) {
    const { choice } = chooseCameraSolutions(
      used.map((c) => solutions[c].map((solution) => solution.camera)),
      tracked,
      initialOffsetsS,
      referenceCamera,
    );
    used.forEach((c, i) => {
      chosenCameras[c] = solutions[c][choice[i]].camera;
      calibrationErrorsPx[c] = solutions[c][choice[i]].boardRmsPx;
    });
  }
  const usedCameras = used.map((c) => chosenCameras[c]);

  // The subject, when other people were seen; then synchronisation on the subject's keypoints.
  const people = subjectAmongPeople(usedCameras, tracked, initialOffsetsS, referenceCamera, options);
  warnings.push(...peopleWarnings(people, cameraNames, tracked[referenceCamera].fps));
  const series = people.series;
  const sync = synchroniseCameras(usedCameras, series, initialOffsetsS, referenceCamera, cameraNames, options);
  for (const [i, camera] of sync.cameras.entries()) {
    if (i === referenceCamera || options.synchronise === false) continue;
    if (camera.signal === 'initial')
      warnings.push(`${cameraNames[i]}: no synchronising movement found; using the phones' start times.`);
    else if (!camera.refined)
      warnings.push(
        `${cameraNames[i]}: synchronisation not refined (no lag clearly better than the phones' start times); using the start times.`,
      );
  }
  options.onProgress?.('sync', 1, 1);

  // One time base, then triangulation.
  const frameRateHz = series[referenceCamera].fps;
  const timesS = sharedTimeBase(series, sync.offsetsS, referenceCamera);
  const aligned = alignToTimeBase(series, sync.offsetsS, timesS, frameRateHz);
  const referenceFrames = series[referenceCamera].frameCount;
  if (timesS.length < MOST_FRAMES * referenceFrames) {
    warnings.push(
      `Synchronisation keeps ${timesS.length} of ${referenceFrames} frames: the cameras overlap in time for only part of the trial.`,
    );
  }
  const triangulation = triangulate(usedCameras, aligned.observations, aligned.frameCount, aligned.keypointCount, {
    minConfidence: options.minConfidence,
    maxReprojectionErrorPx: options.maxReprojectionErrorPx,
    sideGroups: sideGroups(keypointNames),
    bodyLandmarks: bodyLandmarks(keypointNames),
    footLinks: footLinks(keypointNames),
    onProgress: (done, total) => options.onProgress?.('triangulate', done, total),
  });
  const keypointCount = keypointNames.length;
  let triangulatedFrames = 0;
  for (const count of triangulation.camerasUsed) if (count > 0) triangulatedFrames++;
  if (triangulatedFrames === 0) {
    throw new ProcessingError(
      'NO_PERSON_FOUND',
      'The person was never seen by two cameras at the same time. Place the phones so that the subject is in view of at least two of them throughout the trial.',
      cameraNames,
    );
  }

  // Short gaps (up to fps/5 frames, DESIGN §2 step 5), then the zero-lag low-pass filter.
  options.onProgress?.('filter', 0, 1);
  const offBody = removeSegmentOutliers(triangulation.pointsWorldM, aligned.frameCount, keypointNames);
  const spikes = removeSpikes(offBody.positions, aligned.frameCount, keypointCount, frameRateHz);
  const { filled } = fillShortGaps(
    spikes.positions,
    aligned.frameCount,
    keypointCount,
    maxFilledGapFrames(frameRateHz),
  );
  const isGait = options.isGait ?? isGaitTrialName(options.trialName);
  const cutoff = resolveCutoffHz(options.filterFrequency, frameRateHz, isGait);
  if (cutoff.warning) warnings.push(cutoff.warning);
  const filtered = cutoff.passThrough
    ? filled
    : filterTrajectories(filled, aligned.frameCount, keypointCount, cutoff.cutoffHz, frameRateHz);
  options.onProgress?.('filter', 1, 1);

  const trialTimesS = timesS.map((t) => t - timesS[0]);
  const trajectories = (positionsM: Float64Array): MarkerTrajectories => ({
    markerNames: [...keypointNames],
    frameRateHz,
    timesS: trialTimesS,
    positionsM,
  });
  const report = buildQualityReport({
    trial: options.trialName,
    frameRateHz,
    timesS: trialTimesS,
    cameraNames,
    keypointNames,
    calibrationErrorsPx: used.map((c) => calibrationErrorsPx[c]),
    sync,
    personFramesPerCamera: used.map((c) => personFrames(keypoints[c], options.personFound?.[c])),
    otherPeoplePerCamera: used.map((_, i) => ({
      framesSeen: people.framesWithOthers[i],
      framesReassigned: people.framesReassigned[i],
    })),
    people: { found: people.peopleFound, subjectNotToldApart: people.subjectNotToldApart },
    reprojection: summariseReprojectionErrors(triangulation),
    triangulation,
    spikesRemovedPerKeypoint: spikes.removedPerPoint,
    offBodyPerKeypoint: offBody.removedPerPoint,
    triangulatedM: spikes.positions,
    filledM: filled,
    outputM: filtered,
    cutoff,
    warnings,
  });
  return {
    cameras: chosenCameras,
    keypoints: trajectories(filtered),
    unfiltered: trajectories(filled),
    sync,
    triangulation,
    cutoff,
    report,
  };
}

/** The subject among the people the cameras saw (associatePerson): the one standing still in the neutral trial. */
function subjectAmongPeople(
  cameras: readonly CameraModel[],
  series: readonly KeypointSeries[],
  initialOffsetsS: readonly number[],
  referenceCamera: number,
  options: ReconstructOptions,
): PersonAssociation {
  return associatePerson(
    cameras,
    series,
    initialOffsetsS,
    referenceCamera,
    options.minConfidence ?? DEFAULT_MIN_CONFIDENCE,
    options.neutral ?? false,
  );
}

/** What the report says of other people: who saw them, and where the subject was lost among them for longer than gap filling bridges. */
function peopleWarnings(people: PersonAssociation, cameraNames: readonly string[], frameRateHz: number): string[] {
  const warnings: string[] = [];
  const seenWithOthers = people.framesWithOthers.flatMap((frames, i) =>
    frames > 0 ? [`${cameraNames[i]} (${frames} frames)`] : [],
  );
  if (seenWithOthers.length > 0) {
    const reassigned = people.framesReassigned.reduce((sum, frames) => sum + frames, 0);
    warnings.push(
      `Other people were seen by ${seenWithOthers.join(', ')}: the subject was kept as the person the cameras agree on` +
        (reassigned > 0 ? ` (taken from another detection than the tracked one in ${reassigned} camera frames).` : '.'),
    );
  }
  const long = people.subjectNotToldApart.filter((stretch) => stretch.frames > maxFilledGapFrames(frameRateHz));
  if (long.length > 0)
    warnings.push(
      `The subject could not be told apart from the other people ${long.map((stretch) => `from ${stretch.startS.toFixed(2)} s to ${stretch.endS.toFixed(2)} s`).join(', ')}: those frames have no keypoints.`,
    );
  return warnings;
}

/** Synchronisation on the subject's keypoints, or the start times as they are when the cameras are synchronised already. */
function synchroniseCameras(
  cameras: readonly CameraModel[],
  series: readonly KeypointSeries[],
  initialOffsetsS: readonly number[],
  referenceCamera: number,
  cameraNames: readonly string[],
  options: ReconstructOptions,
): SyncResult {
  if (options.synchronise === false)
    return {
      referenceCamera,
      offsetsS: Float64Array.from(initialOffsetsS),
      cameras: initialOffsetsS.map((offsetS, i) => ({
        offsetS,
        lagS: 0,
        lagFrames: 0,
        correlation: 0,
        confidence: 0,
        signal: i === referenceCamera ? 'reference' : 'initial',
        refined: false,
      })),
    };
  return synchronise(series, {
    initialOffsetsS,
    referenceCamera,
    cameraNames,
    maxLagS: options.maxSyncLagS,
    fallbackToInitialOffsets: options.requireSync === false,
    reprojectionErrorPx: reprojectionErrorAtOffset(cameras, series, initialOffsetsS, referenceCamera),
  });
}

/** Gaps of up to fps/5 frames are filled (DESIGN §2 step 5). */
function maxFilledGapFrames(frameRateHz: number): number {
  return Math.round(frameRateHz / 5);
}

function hasDetections(series: KeypointSeries): boolean {
  for (let i = 2; i < series.data.length; i += 3)
    if (series.data[i] > 0 && !Number.isNaN(series.data[i - 1])) return true;
  return false;
}

function fastest(series: readonly KeypointSeries[]): number {
  let best = 0;
  for (let c = 1; c < series.length; c++) if (series[c].fps > series[best].fps + 1e-6) best = c;
  return best;
}

function personFrames(series: KeypointSeries, found: Uint8Array | undefined) {
  const stride = series.keypointNames.length * 3;
  let withoutPerson = 0;
  for (let frame = 0; frame < series.frameCount; frame++) {
    if (found) {
      if (!found[frame]) withoutPerson++;
      continue;
    }
    let seen = false;
    for (let i = frame * stride + 2; i < (frame + 1) * stride && !seen; i += 3) seen = series.data[i] > 0;
    if (!seen) withoutPerson++;
  }
  return { withoutPerson, total: series.frameCount };
}

/**
 * Keypoints in the pixels of the calibrated image. A video downscaled after calibration (720p
 * uploaded from a phone calibrated at 1080p) is scaled back; sizes that differ only by a few
 * pixels of padding or cropping (1080 vs 1088) are left alone, as the pixels are the same.
 */
function toCameraPixels(
  series: KeypointSeries & { imageSize?: { width: number; height: number } },
  camera: CameraModel,
): KeypointSeries {
  const size = series.imageSize;
  if (!size || !(size.width > 0) || !(size.height > 0)) return series;
  const scaleX = camera.imageSize.width / size.width;
  const scaleY = camera.imageSize.height / size.height;
  const sameAspect = Math.abs(scaleX / scaleY - 1) < 0.01;
  if (!sameAspect || (Math.abs(scaleX - 1) < 0.02 && Math.abs(scaleY - 1) < 0.02)) return series;
  const scaled = (layer: Float32Array) => {
    const data = new Float32Array(layer);
    for (let i = 0; i < data.length; i += 3) {
      data[i] *= scaleX;
      data[i + 1] *= scaleY;
    }
    return data;
  };
  return {
    ...series,
    data: scaled(series.data),
    ...(series.otherPeople ? { otherPeople: series.otherPeople.map(scaled) } : {}),
  };
}
