import {
  POOR_MEDIAN_SEGMENT_SD_MM,
  type TrialQuality,
  type TrialQualityReason,
  type TrialStretch,
} from '@kinetrace/contracts';
import type { SegmentLength, SegmentDefinition } from './segment-lengths.ts';

/**
 * The quality gate of a processed trial (issue 25): its 3D keypoints are body-like when the median
 * segment-length SD stays under POOR_MEDIAN_SEGMENT_SD_MM; otherwise the trial is poor, and the
 * reason says which camera stands out (nobody found, keypoints that disagree with the other
 * cameras or lie far from the 3D points) and in which stretches the body came apart. A camera whose
 * tracker followed another person is not to blame: the subject's own detection replaced that
 * person's in those frames (associatePerson), or nothing did, so no keypoints of another person
 * reach the 3D points.
 */
export interface CameraEvidence {
  name: string;
  framesTotal: number;
  framesWithoutPerson: number;
  /** Confident detections left out of triangulation because they disagreed with the others. */
  detectionsLeftOut: number;
  /** Median reprojection error, px (null when it contributed nothing). */
  reprojectionMedianPx: number | null;
}

export interface TrialQualityInput {
  segments: readonly SegmentLength[];
  segmentDefinitions: readonly SegmentDefinition[];
  /** Output keypoints, frames × keypoints × 3, m. */
  positionsM: Float64Array;
  keypointNames: readonly string[];
  /** Trial time of each frame, from 0, s. */
  timesS: Float64Array;
  cameras: readonly CameraEvidence[];
}

/** A share of a camera's frames (or keypoints) above which its problem is named (our choice). */
const CAMERA_SHARE = 0.1;
/** A camera whose keypoints reproject this many times worse than the others' median is named (our choice). */
const REPROJECTION_RATIO = 2;
/** Flagged frames closer than this are one stretch; shorter stretches are not named (our choice, 60 fps: 50 ms). */
const STRETCH_MERGE_FRAMES = 3;
const STRETCH_MIN_FRAMES = 3;
const STRETCHES_NAMED = 3;

export function judgeTrialQuality(input: TrialQualityInput): TrialQuality {
  const sdsMm = input.segments.map((segment) => segment.sdM * 1000).sort((a, b) => a - b);
  const medianSegmentSdMm = sdsMm.length > 0 ? median(sdsMm) : null;
  const quality: TrialQuality = {
    rating: 'good',
    medianSegmentSdMm,
    limitMm: POOR_MEDIAN_SEGMENT_SD_MM,
    reasons: [],
  };
  if (medianSegmentSdMm === null || medianSegmentSdMm <= POOR_MEDIAN_SEGMENT_SD_MM) return quality;
  const cameraFindings = input.cameras.flatMap((camera) =>
    findings(camera, input.cameras, input.keypointNames.length).map((finding) => ({ camera: camera.name, finding })),
  );
  const cameras = [...new Set(cameraFindings.map((entry) => entry.camera))];
  const stretches = unbodyLikeStretches(input);
  const seconds = (stretch: TrialStretch) => `${stretch.startS.toFixed(2)}–${stretch.endS.toFixed(2)} s`;
  const reason: TrialQualityReason = {
    code: 'SEGMENTS_NOT_BODY_LIKE',
    message:
      `The 3D keypoints are not body-like: segment lengths vary by ${medianSegmentSdMm.toFixed(0)} mm (median SD; a body stays under ${POOR_MEDIAN_SEGMENT_SD_MM} mm).` +
      (stretches.length > 0 ? ` Worst at ${stretches.map(seconds).join(', ')}.` : '') +
      (cameraFindings.length > 0
        ? ` To blame: ${cameraFindings.map(({ camera, finding }) => `${camera} (${finding})`).join('; ')}.`
        : ' No camera stands out: check the calibration, that the cameras recorded at the same time, and that only the subject is in view.'),
    cameras,
    cameraFindings,
    stretches,
  };
  return { ...quality, rating: 'poor', reasons: [reason] };
}

/** What stands out about one camera, beside the others. */
function findings(camera: CameraEvidence, all: readonly CameraEvidence[], keypointCount: number): string[] {
  const percent = (share: number) => `${Math.round(100 * share)} %`;
  const out: string[] = [];
  const total = Math.max(1, camera.framesTotal);
  if (camera.framesWithoutPerson / total > CAMERA_SHARE)
    out.push(`found nobody in ${percent(camera.framesWithoutPerson / total)} of its frames`);
  const leftOut = camera.detectionsLeftOut / (total * keypointCount);
  if (leftOut > CAMERA_SHARE)
    out.push(`disagreed with the other cameras on ${percent(leftOut)} of its keypoints, which were left out`);
  const others = all
    .filter((other) => other !== camera && other.reprojectionMedianPx !== null)
    .map((other) => other.reprojectionMedianPx!);
  if (others.length >= 2 && camera.reprojectionMedianPx !== null) {
    const typical = median([...others].sort((a, b) => a - b));
    if (camera.reprojectionMedianPx > REPROJECTION_RATIO * typical)
      out.push(
        `its keypoints lie ${camera.reprojectionMedianPx.toFixed(0)} px from the 3D points, the others' ${typical.toFixed(0)} px: check its calibration`,
      );
  }
  return out;
}

/**
 * The stretches where the body came apart: frames whose segments differ from their usual lengths
 * (median over the trial) by more than the limit, in the median over segments; flagged frames close
 * together are one stretch, the longest named first.
 */
function unbodyLikeStretches(input: TrialQualityInput): TrialStretch[] {
  const { positionsM, keypointNames, timesS } = input;
  const frameCount = timesS.length;
  const keypointCount = keypointNames.length;
  const segments = input.segments
    .map((segment) => {
      const definition = input.segmentDefinitions.find((d) => d.name === segment.name)!;
      return { a: keypointNames.indexOf(definition.from), b: keypointNames.indexOf(definition.to) };
    })
    .filter(({ a, b }) => a >= 0 && b >= 0);
  const lengths = segments.map(({ a, b }) =>
    Float64Array.from({ length: frameCount }, (_, f) => {
      const [i, j] = [(f * keypointCount + a) * 3, (f * keypointCount + b) * 3];
      return Math.hypot(
        positionsM[i] - positionsM[j],
        positionsM[i + 1] - positionsM[j + 1],
        positionsM[i + 2] - positionsM[j + 2],
      );
    }),
  );
  const usual = lengths.map((series) => {
    const seen = [...series].filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
    return seen.length > 0 ? median(seen) : Number.NaN;
  });
  const flagged: number[] = [];
  for (let f = 0; f < frameCount; f++) {
    const deviationsMm = lengths
      .map((series, s) => 1000 * Math.abs(series[f] - usual[s]))
      .filter((value) => !Number.isNaN(value))
      .sort((a, b) => a - b);
    if (deviationsMm.length > 0 && median(deviationsMm) > POOR_MEDIAN_SEGMENT_SD_MM) flagged.push(f);
  }
  const stretches: [number, number][] = [];
  for (const f of flagged) {
    const last = stretches.at(-1);
    if (last && f - last[1] <= STRETCH_MERGE_FRAMES) last[1] = f;
    else stretches.push([f, f]);
  }
  return stretches
    .filter(([first, last]) => last - first + 1 >= STRETCH_MIN_FRAMES)
    .sort((x, y) => y[1] - y[0] - (x[1] - x[0]))
    .slice(0, STRETCHES_NAMED)
    .map(([firstFrame, lastFrame]) => ({ firstFrame, lastFrame, startS: timesS[firstFrame], endS: timesS[lastFrame] }));
}

function median(sorted: readonly number[]): number {
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
