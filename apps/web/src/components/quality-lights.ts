import { POOR_MEDIAN_SEGMENT_SD_MM, type QualityReportView } from '@kinetrace/contracts';

/**
 * Traffic lights for what processing measured (issue 21: quality where the user looks): each figure of a
 * trial's quality report and each camera's calibration is green (as a careful capture), amber (usable, worth
 * a look) or red (the results are not to be trusted), with what to try when it is not green.
 */
export type Light = 'green' | 'amber' | 'red';

const RANK: Record<Light, number> = { green: 0, amber: 1, red: 2 };
export const worstLight = (lights: readonly Light[]): Light =>
  lights.reduce<Light>((worst, light) => (RANK[light] > RANK[worst] ? light : worst), 'green');

/** A figure within `good` is green, beyond `poor` red, amber between. */
const lightOf = (value: number, limits: { good: number; poor: number }): Light =>
  value <= limits.good ? 'green' : value <= limits.poor ? 'amber' : 'red';

/**
 * Board reprojection error of a camera's calibration, px (RMS over the board's corners). Good up to 1 px: the
 * usual mark of a good calibration (PhotoModeler's calibration checks: "a value less than 1.0 indicates a good
 * calibration"; caliscope's solved webcam calibration of ../shared/data/charuco_calib reaches 0.4-0.5 px). Poor
 * above 2 px (our choice): our corner detector finds corners to 0.03-0.17 px (packages/mocap/docs/calibration.md),
 * so an error ten times that comes from the camera model or the board, not the corners: a lens whose distortion
 * the board's estimate leaves out, a board that moved or bent, or a corner found in the wrong place.
 */
export const BOARD_ERROR_LIMITS_PX = { good: 1, poor: 2 } as const;

/** A camera's calibration by its board error; null when the calibration gave none (an imported file). */
export const calibrationLight = (boardErrorPx: number | null): Light | null =>
  boardErrorPx === null ? null : lightOf(boardErrorPx, BOARD_ERROR_LIMITS_PX);

/**
 * Median segment-length SD over the trial, mm: a body's segments do not change length. Green up to 20 mm: two
 * cameras reach 15-20 mm on the Pose2Sim demo and four about 10 mm (issue 25's figures); red above the
 * engine's own gate, POOR_MEDIAN_SEGMENT_SD_MM (30 mm), where a swapped side or a second person shows.
 */
export const SEGMENT_SD_LIMITS_MM = { good: 20, poor: POOR_MEDIAN_SEGMENT_SD_MM } as const;

/**
 * A camera's median keypoint reprojection error, px. Green up to 15 px, Pose2Sim's default threshold for a
 * view to agree with the others in 1080p video (Config.toml, reproj_error_threshold_triangulation; the
 * engine's MIN_MAX_REPROJECTION_ERROR_PX); red above twice that, where the engine starts leaving a camera's
 * views out as outliers (packages/mocap/src/triangulation/triangulate.ts, NOISE_TO_THRESHOLD).
 */
export const REPROJECTION_LIMITS_PX = { good: 15, poor: 30 } as const;

/**
 * Share of a camera's keypoints left out as disagreeing, of its frames without the person, and of its frames
 * with left and right swapped, above which it is named: the engine's rule for naming a camera to blame
 * (packages/mocap/src/report/trial-quality.ts, CAMERA_SHARE).
 */
export const CAMERA_SHARE_LIMIT = 0.1;

/**
 * Inverse-kinematics marker error, mm: OpenSim's best practices for IK ask for an RMS under 2 cm and a largest
 * error under 2-4 cm (OpenSim documentation, "Getting Started with Inverse Kinematics", best practices). Green
 * within both; red when even the RMS is above 4 cm, the upper end for the largest error.
 */
export const IK_ERROR_LIMITS_MM = { rmsGood: 20, maxGood: 40, rmsPoor: 40 } as const;

/**
 * A stretch where the subject could not be told apart from other people is filled by the engine's gap filling
 * up to a fifth of a second (fps/5 frames, DESIGN §2 step 5); a longer one stays without keypoints.
 */
export const FILLED_GAP_S = 0.2;

export interface QualityCheck {
  title: string;
  light: Light;
  /** The figures, in a sentence. */
  summary: string;
  /** What to try; absent when green. */
  advice?: string;
}

export interface TrialQualityJudgement {
  overall: Light;
  checks: QualityCheck[];
}

const mm = (m: number) => `${(m * 1000).toFixed(0)} mm`;
const px = (value: number) => `${value.toFixed(1)} px`;
const listed = (names: readonly string[]) =>
  names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

function segmentCheck(report: QualityReportView): QualityCheck | null {
  const { quality, segments } = report;
  if (quality.medianSegmentSdMm === null) return null;
  const worst = [...segments].sort((a, b) => b.sdM - a.sdM)[0];
  const light = quality.rating === 'poor' ? 'red' : lightOf(quality.medianSegmentSdMm, SEGMENT_SD_LIMITS_MM);
  const summary =
    `Median segment-length SD ${quality.medianSegmentSdMm.toFixed(1)} mm over ${segments.length} segments` +
    (worst ? ` (most varying: ${worst.name}, ${mm(worst.sdM)}).` : '.');
  if (light === 'green') return { title: 'Segment lengths', light, summary };
  const reasons = quality.reasons.map((reason) => reason.message).join(' ');
  return {
    title: 'Segment lengths',
    light,
    summary,
    advice:
      reasons ||
      'The limbs change length more than in a careful capture: check that every camera sees the whole body, with nobody else in view, and that the cameras did not move after calibration.',
  };
}

function cameraChecks(report: QualityReportView): QualityCheck[] {
  const reprojectionLights = report.cameras.map((camera) =>
    camera.reprojectionErrorPx ? lightOf(camera.reprojectionErrorPx.medianPx, REPROJECTION_LIMITS_PX) : 'red',
  );
  const offCameras = report.cameras.filter((_, c) => reprojectionLights[c] !== 'green').map((camera) => camera.name);
  const reprojection: QualityCheck = {
    title: 'Reprojection error',
    light: worstLight(reprojectionLights),
    summary: `Median per camera: ${report.cameras
      .map(
        (camera) => `${camera.name} ${camera.reprojectionErrorPx ? px(camera.reprojectionErrorPx.medianPx) : 'none'}`,
      )
      .join(', ')}.`,
    ...(offCameras.length > 0 && {
      advice: `The keypoints of ${listed(offCameras)} land far from the 3D points: check that ${offCameras.length === 1 ? 'this camera' : 'these cameras'} did not move after calibration, or calibrate again.`,
    }),
  };

  const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);
  const contributing = report.cameras.map((camera) => {
    const used = camera.reprojectionErrorPx?.count ?? 0;
    const leftOutShare = share(camera.detectionsLeftOut, used + camera.detectionsLeftOut);
    const missingShare = share(camera.framesWithoutPerson, camera.framesTotal);
    const light: Light =
      used === 0 ? 'red' : leftOutShare > CAMERA_SHARE_LIMIT || missingShare > CAMERA_SHARE_LIMIT ? 'amber' : 'green';
    return { camera, used, leftOutShare, missingShare, light };
  });
  const weak = contributing.filter((entry) => entry.light !== 'green');
  const keypoints: QualityCheck = {
    title: 'Keypoints contributed',
    light: worstLight(contributing.map((entry) => entry.light)),
    summary: `${contributing
      .map((entry) => `${entry.camera.name} ${entry.used} (${entry.camera.detectionsLeftOut} left out)`)
      .join(', ')}.`,
    ...(weak.length > 0 && {
      advice: weak
        .map((entry) =>
          entry.used === 0
            ? `${entry.camera.name} contributed no keypoint: check that it sees the subject.`
            : entry.missingShare > CAMERA_SHARE_LIMIT
              ? `${entry.camera.name} found nobody in ${Math.round(entry.missingShare * 100)} % of its frames: keep the whole subject in its view.`
              : `${Math.round(entry.leftOutShare * 100)} % of ${entry.camera.name}'s keypoints disagreed with the other cameras and were left out: check its view (occlusions, another person) and that it did not move.`,
        )
        .join(' '),
    }),
  };

  const swapped = report.cameras.filter(
    (camera) => share(camera.sidesSwapped, camera.framesTotal) > CAMERA_SHARE_LIMIT,
  );
  const sides: QualityCheck = {
    title: 'Left/right swaps fixed',
    light: swapped.length > 0 ? 'amber' : 'green',
    summary: `${report.cameras.map((camera) => `${camera.name} ${camera.sidesSwapped}`).join(', ')} (frames × body parts corrected).`,
    ...(swapped.length > 0 && {
      advice: `${listed(swapped.map((camera) => camera.name))} often had the subject's left and right the wrong way round (corrected): a camera that films the subject from the side or from behind does; place the cameras in front of the subject, about 45° apart.`,
    }),
  };
  return [reprojection, keypoints, sides];
}

/** Other people in view (shown only when there were): amber when the subject was lost among them for longer than gap filling bridges. */
function peopleCheck(report: QualityReportView): QualityCheck | null {
  const { people, frameRateHz } = report;
  if (!people || people.found < 2) return null;
  const others = people.found - 1;
  const seen = `The cameras saw ${others} other ${others === 1 ? 'person' : 'people'} besides the subject`;
  const long = people.subjectNotToldApart.filter((stretch) => stretch.frames > FILLED_GAP_S * frameRateHz);
  if (long.length === 0)
    return {
      title: 'Other people in view',
      light: 'green',
      summary: `${seen}; the subject was told apart from them ${people.subjectNotToldApart.length > 0 ? 'except for moments that were filled' : 'throughout'}.`,
    };
  const stretches = long.map(
    (stretch) => `${stretch.startS.toFixed(2)}–${stretch.endS.toFixed(2)} s (${stretch.frames} frames)`,
  );
  return {
    title: 'Other people in view',
    light: 'amber',
    summary: `${seen}; the subject could not be told apart from them at ${listed(stretches)}: those frames have no keypoints.`,
    advice:
      'Someone stood or passed between a camera and the subject, or too close to them: keep other people out of the cameras’ view, or at least out of the space between the cameras and the subject, and record the trial again if that stretch matters.',
  };
}

function syncCheck(report: QualityReportView): QualityCheck {
  const others = report.cameras.filter((camera) => !camera.sync.isReference);
  const reference = report.cameras.find((camera) => camera.sync.isReference);
  const unrefined = others.filter((camera) => !camera.sync.refined);
  const described = others.map((camera) =>
    camera.sync.refined
      ? `${camera.name} moved by ${(camera.sync.lagS * 1000).toFixed(0)} ms (${camera.sync.lagFrames} frames, confidence ${camera.sync.confidence.toFixed(2)})`
      : `${camera.name} kept the phones' start time`,
  );
  return {
    title: 'Synchronisation',
    light: unrefined.length > 0 ? 'amber' : 'green',
    summary: `${reference ? `Against ${reference.name}: ` : ''}${described.join('; ')}.`,
    ...(unrefined.length > 0 && {
      advice: `The movement did not show a clear time shift for ${listed(unrefined.map((camera) => camera.name))}, so the phones' start times were used: if the result looks off, record the trial again starting with a clear movement (a jump or an arm raise).`,
    }),
  };
}

function ikCheck(report: QualityReportView): QualityCheck | null {
  const ik = report.modelFit?.inverseKinematics;
  const scaling = report.modelFit?.scaling;
  const [rms, max, what] = ik
    ? [ik.markerErrorRmsMm, ik.markerErrorMaxMm, 'Inverse kinematics']
    : [scaling?.markerErrorRmsMm ?? null, scaling?.markerErrorMaxMm ?? null, 'Static pose'];
  if (rms === null || max === null) return null;
  const light: Light =
    rms > IK_ERROR_LIMITS_MM.rmsPoor
      ? 'red'
      : rms > IK_ERROR_LIMITS_MM.rmsGood || max > IK_ERROR_LIMITS_MM.maxGood
        ? 'amber'
        : 'green';
  const worstMarkers = Object.entries(ik?.markerErrorRmsPerMarkerMm ?? {})
    .filter(([, error]) => error > IK_ERROR_LIMITS_MM.maxGood)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, error]) => `${name} ${error.toFixed(0)} mm`);
  return {
    title: 'Marker error',
    light,
    summary: `${what}: RMS ${rms.toFixed(1)} mm, largest ${max.toFixed(1)} mm.`,
    ...(light !== 'green' && {
      advice: `The model cannot follow the keypoints closely${worstMarkers.length > 0 ? ` (worst: ${worstMarkers.join(', ')})` : ''}: check the subject's height and mass, and that the neutral pose was recorded standing still in view of every camera.`,
    }),
  };
}

/** A processed trial's quality report as traffic lights: the worst check is the trial's light. */
export function judgeTrialQuality(report: QualityReportView, kind: 'neutral' | 'movement'): TrialQualityJudgement {
  const checks = [
    segmentCheck(report),
    ...cameraChecks(report),
    peopleCheck(report),
    // A neutral is not synchronised: the subject stands still, and the phones' start times stand.
    kind === 'movement' ? syncCheck(report) : null,
    ikCheck(report),
  ].filter((check): check is QualityCheck => check !== null);
  return { overall: worstLight(checks.map((check) => check.light)), checks };
}
