import { KEYPOINT_VALUES, type Keypoints2D, noKeypoints } from './types.ts';

/**
 * Keypoints a phone found in its own video while it recorded (issue 24): on the frames it kept up with,
 * each stamped with its time on the video's timeline. The server uses them instead of detecting that
 * camera's keypoints only when they are dense enough for the trial's filter and a sample of frames agrees
 * with its own detector (processTrial); these are those decisions, and the placing of the phone's frames on
 * the video's.
 */

/**
 * The longest stretch without a phone frame that is still filled: the triangulation fills gaps up to fps/5
 * frames (0.2 s, DESIGN §2 step 5); a longer hole would leave the trial without keypoints there.
 */
export const PHONE_MAX_HOLE_S = 0.2;

/** Frames of the phone's person the server detects again to compare (evenly spread over the trial). */
export const PHONE_CHECK_SAMPLES = 8;

/**
 * Median keypoint distance between the phone's and the server's detections, as a fraction of the person's
 * size (the larger side of their keypoints' box), above which the phone's keypoints are not used. PCK counts a
 * keypoint correct within 0.1-0.2 of that size against a person's labels (Yang & Ramanan 2013, "Articulated
 * human detection with flexible mixtures of parts", TPAMI 35(12)); two runs of the same model should agree
 * much closer, so 0.05: a few pixels between backends pass, a 100 px shift of a person 500 px tall does not.
 */
export const PHONE_AGREEMENT_FRACTION = 0.05;

/** Keypoints compared only where both detections are at least this confident (the triangulation's own floor, DESIGN §2 step 5). */
const COMPARED_CONFIDENCE = 0.4;

/** Which keypoints a camera's reconstruction used, and why the phone's were not (report, main_settings). */
export interface PhoneKeypointsUse {
  used: boolean;
  /** Phone frames per second over the video's duration, and what the trial's filter needs (twice its cutoff). */
  achievedHz: number;
  neededHz: number;
  /** The longest stretch of the video without a phone frame, s. */
  longestHoleS: number;
  /** Median distance between the phone's and the server's keypoints on the sampled frames, and the tolerance, px. */
  medianDistancePx?: number;
  tolerancePx?: number;
  /** Why they were not used, in words ('too sparse: 14 Hz, needs 24 Hz'). */
  reason?: string;
}

/** A phone's keypoints on the times it processed, before they are placed on the video's frames. */
export interface PhoneFrames {
  /** Seconds from the video's first frame, increasing. */
  timesS: Float64Array;
  /** Keypoints2D-shaped values of the phone's frames (VIDEO_KEYPOINTS x 3 each). */
  data: Float32Array;
  personFound: Uint8Array;
}

/**
 * Whether the phone's frames cover the video densely enough for a filter at `cutoffHz`: at least twice the
 * cutoff (the sampling theorem: a rate below twice the highest frequency kept cannot represent it) and no
 * stretch without a frame longer than PHONE_MAX_HOLE_S, the video's start and end included.
 */
export function phoneKeypointsDensity(
  timesS: Float64Array,
  videoDurationS: number,
  cutoffHz: number,
): Pick<PhoneKeypointsUse, 'achievedHz' | 'neededHz' | 'longestHoleS' | 'reason'> {
  const inside = Array.from(timesS).filter((time) => time >= 0 && time <= videoDurationS);
  const achievedHz = videoDurationS > 0 ? inside.length / videoDurationS : 0;
  const neededHz = 2 * cutoffHz;
  let longestHoleS = 0;
  let holeAtS = 0;
  [0, ...inside, videoDurationS].forEach((time, index, times) => {
    const hole = index > 0 ? time - times[index - 1] : 0;
    if (hole > longestHoleS) [longestHoleS, holeAtS] = [hole, times[index - 1]];
  });
  const rounded = (value: number, digits = 0) => Number(value.toFixed(digits));
  const reason =
    achievedHz < neededHz
      ? `too sparse: ${Math.floor(achievedHz)} Hz, needs ${rounded(neededHz)} Hz`
      : longestHoleS > PHONE_MAX_HOLE_S
        ? `a hole of ${rounded(longestHoleS, 2)} s at ${rounded(holeAtS, 2)} s (at most ${PHONE_MAX_HOLE_S} s)`
        : undefined;
  return { achievedHz, neededHz, longestHoleS, ...(reason && { reason }) };
}

/** Up to `count` of the phone's frames where it found the person, evenly spread over them. */
export function phoneCheckFrames(personFound: Uint8Array, count = PHONE_CHECK_SAMPLES): number[] {
  const found = Array.from(personFound.keys()).filter((frame) => personFound[frame] === 1);
  if (found.length <= count) return found;
  return Array.from({ length: count }, (_, i) => found[Math.round(((i + 0.5) * found.length) / count - 0.5)]);
}

/**
 * How far the phone's keypoints are from the server's own detection of the same frames: the median distance
 * over every keypoint both found confidently, against PHONE_AGREEMENT_FRACTION of the person's size (the
 * median over the frames of the larger side of the server's keypoints' box). A frame where the server found
 * nobody counts as disagreeing entirely.
 */
export function phoneKeypointsAgreement(
  phone: readonly Float32Array[],
  server: readonly (Float32Array | null)[],
): Pick<PhoneKeypointsUse, 'medianDistancePx' | 'tolerancePx' | 'reason'> {
  const distances: number[] = [];
  const sizes: number[] = [];
  let serverMissed = 0;
  phone.forEach((phoneFrame, index) => {
    const serverFrame = server[index];
    if (!serverFrame) {
      serverMissed++;
      return;
    }
    const box = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
    for (let k = 0; k < serverFrame.length / KEYPOINT_VALUES; k++) {
      const [x, y, confidence] = serverFrame.subarray(k * KEYPOINT_VALUES, (k + 1) * KEYPOINT_VALUES);
      if (!(confidence >= COMPARED_CONFIDENCE)) continue;
      [box.minX, box.maxX, box.minY, box.maxY] = [
        Math.min(box.minX, x),
        Math.max(box.maxX, x),
        Math.min(box.minY, y),
        Math.max(box.maxY, y),
      ];
      const [px, py, phoneConfidence] = phoneFrame.subarray(k * KEYPOINT_VALUES, (k + 1) * KEYPOINT_VALUES);
      if (phoneConfidence >= COMPARED_CONFIDENCE) distances.push(Math.hypot(px - x, py - y));
    }
    if (box.maxX >= box.minX) sizes.push(Math.max(box.maxX - box.minX, box.maxY - box.minY));
  });
  if (distances.length === 0 || serverMissed * 2 > phone.length)
    return {
      reason: `the server's check found the person in ${phone.length - serverMissed} of ${phone.length} frames`,
    };
  const medianDistancePx = median(distances);
  const tolerancePx = PHONE_AGREEMENT_FRACTION * median(sizes);
  return medianDistancePx > tolerancePx
    ? {
        medianDistancePx,
        tolerancePx,
        reason: `disagreed with the server's check: median ${Math.round(medianDistancePx)} px (at most ${Math.round(tolerancePx)} px)`,
      }
    : { medianDistancePx, tolerancePx };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The phone's keypoints on the video's frames (`videoTimesS` from the video's first frame): a video frame
 * within half a frame of a phone frame takes it; one between two phone frames with the person, no more than
 * PHONE_MAX_HOLE_S apart, takes their linear interpolation (each keypoint both have, the lower confidence);
 * any other has nobody, as a frame where the detector found nobody.
 */
export function placeOnVideoFrames(
  phone: PhoneFrames,
  keypointCount: number,
  videoTimesS: Float64Array,
): Pick<Keypoints2D, 'data' | 'personFound'> {
  const stride = keypointCount * KEYPOINT_VALUES;
  const data = noKeypoints(videoTimesS.length, keypointCount);
  const personFound = new Uint8Array(videoTimesS.length);
  const halfFrameS =
    videoTimesS.length > 1
      ? (videoTimesS[videoTimesS.length - 1] - videoTimesS[0]) / (videoTimesS.length - 1) / 2
      : Infinity;
  const { timesS } = phone;
  let next = 0; // the first phone frame after the video frame
  for (let frame = 0; frame < videoTimesS.length; frame++) {
    const time = videoTimesS[frame];
    while (next < timesS.length && timesS[next] <= time) next++;
    const before = next - 1;
    const nearest = [before, next]
      .filter((index) => index >= 0 && index < timesS.length)
      .sort((a, b) => Math.abs(timesS[a] - time) - Math.abs(timesS[b] - time))[0];
    if (nearest !== undefined && Math.abs(timesS[nearest] - time) <= halfFrameS) {
      if (phone.personFound[nearest] !== 1) continue;
      data.set(phone.data.subarray(nearest * stride, (nearest + 1) * stride), frame * stride);
      personFound[frame] = 1;
      continue;
    }
    if (before < 0 || next >= timesS.length || timesS[next] - timesS[before] > PHONE_MAX_HOLE_S) continue;
    if (phone.personFound[before] !== 1 || phone.personFound[next] !== 1) continue;
    const weight = (time - timesS[before]) / (timesS[next] - timesS[before]);
    for (let k = 0; k < keypointCount; k++) {
      const [a, b, out] = [before * stride, next * stride, frame * stride].map((base) => base + k * KEYPOINT_VALUES);
      const confidence = Math.min(phone.data[a + 2], phone.data[b + 2]);
      if (!(confidence > 0)) continue;
      data[out] = phone.data[a] + weight * (phone.data[b] - phone.data[a]);
      data[out + 1] = phone.data[a + 1] + weight * (phone.data[b + 1] - phone.data[a + 1]);
      data[out + 2] = confidence;
    }
    personFound[frame] = 1;
  }
  return { data, personFound };
}
