import { WINTER_2009 } from '../default-model/anthropometry.ts';
import { keypointIndex, VIDEO_KEYPOINTS, type VideoKeypoint } from '../pose/keypoints.ts';
import { KEYPOINT_VALUES, type Keypoints2D } from '../pose/types.ts';

/**
 * Where the faces are in each frame of one camera's video, from the 2D keypoints the pose model
 * gave for it (the tracked person and the other people it followed), so that de-identified videos
 * can blur them. Frames where a person's face was not found are covered conservatively (below).
 */

/** A square to blur, in pixels of the keypoints' images (Keypoints2D.imageSize). */
export interface FaceRegion {
  centreX: number;
  centreY: number;
  halfSidePx: number;
}

const FACE_KEYPOINTS: readonly VideoKeypoint[] = ['Nose', 'LEye', 'REye', 'LEar', 'REar'];

/**
 * A face keypoint at or above this confidence counts as found: lower than the 0.4 below which
 * triangulation drops a point, since a face half seen is still a face to hide (our choice).
 */
export const FACE_MIN_CONFIDENCE = 0.3;

/** Head height, chin to crown: 0.130 H (Winter 2009 Fig. 4.1, via WINTER_2009: 1 − chin height). */
const HEAD_HEIGHT = 1 - WINTER_2009.chinHeight;
/** Head height per shoulder breadth (0.259 H, Winter 2009): about 0.5. */
const HEAD_PER_SHOULDER_BREADTH = HEAD_HEIGHT / WINTER_2009.shoulderBreadth;
/** Head height per eye-to-ankle height (0.936 H − 0.039 H, Winter 2009), the most a person's keypoints span standing: about 0.145. */
const HEAD_PER_BODY_SPAN = HEAD_HEIGHT / (WINTER_2009.eyeHeight - WINTER_2009.ankleHeight);
/**
 * Head height per span of the face keypoints: they span at most ear to ear, the head's breadth
 * (≈ 0.09 H, Winter 2009: 0.130 / 0.09 ≈ 1.44), or ear to nose in profile (≈ 0.07 H,
 * HEAD_PROPORTIONS: 1.86); 2 covers both.
 */
const HEAD_PER_FACE_SPAN = 2;
/** The blurred square's side, in head heights: the head (±0.5 around the eyes) and half a head more on each side for the keypoints' error, hair and headwear (our choice). */
const SIDE_PER_HEAD = 2;
/**
 * How far a face not found may have moved from where it was last (or is next) found: 10 head
 * heights a second, about 2.3 m/s for a 1.75 m person (a run; our choice). The square grows by that.
 */
const HEAD_HEIGHTS_PER_S = 10;
/**
 * A person's face is carried this long before and after the frames where it was found: the pose
 * model looks for new people once a second (detect-pose.ts, LOOK_FOR_OTHERS_EVERY_S), so a person
 * coming into view is found within that, and their face is blurred back to when they came.
 */
const CARRY_FACE_S = 1;

const FACE_INDICES = FACE_KEYPOINTS.map(keypointIndex);
const SHOULDERS = [keypointIndex('LShoulder'), keypointIndex('RShoulder')] as const;
const KEYPOINT_COUNT = VIDEO_KEYPOINTS.length;

/**
 * Per frame, the squares to blur: one per person seen (the tracked person, then each other person
 * the pose model followed). For each person:
 * - a frame where their face keypoints are found: a square around them, sized by the head (the
 *   largest of what the face keypoints, the shoulders and the whole body say of it);
 * - a frame without: the square of the nearest frame (in time) where their face was found, grown
 *   by how far it may have moved since, when that frame is at most CARRY_FACE_S away;
 * - a person found but whose face never is (seen from behind all along, say): the whole frame,
 *   wherever they are found.
 */
export function faceRegions(keypoints: Keypoints2D): FaceRegion[][] {
  const { frameCount, timestampsS, imageSize } = keypoints;
  const perFrame: FaceRegion[][] = Array.from({ length: frameCount }, () => []);
  const wholeFrame = wholeFrameRegion(imageSize);
  for (const layer of [keypoints.data, ...(keypoints.otherPeople ?? [])]) {
    const found = Array.from({ length: frameCount }, (_, frame) => foundFace(layer, frame));
    if (found.some((region) => region !== null)) {
      carryFaces(found, timestampsS).forEach((region, frame) => region && perFrame[frame].push(region));
    } else {
      for (let frame = 0; frame < frameCount; frame++) if (anyKeypoint(layer, frame)) perFrame[frame].push(wholeFrame);
    }
  }
  return perFrame;
}

/** A square over the whole picture: for frames nothing is known of (no keypoints), and people whose face is never found. */
export const wholeFrameRegion = (imageSize: { width: number; height: number }): FaceRegion => ({
  centreX: imageSize.width / 2,
  centreY: imageSize.height / 2,
  halfSidePx: Math.max(imageSize.width, imageSize.height) / 2,
});

const confidenceAt = (layer: Float32Array, frame: number, keypoint: number) =>
  layer[(frame * KEYPOINT_COUNT + keypoint) * KEYPOINT_VALUES + 2];

function anyKeypoint(layer: Float32Array, frame: number): boolean {
  for (let k = 0; k < KEYPOINT_COUNT; k++) if (confidenceAt(layer, frame, k) > 0) return true;
  return false;
}

/** Whether the pose model found a face (any face keypoint at FACE_MIN_CONFIDENCE) of this person in this frame. */
export function faceFound(layer: Float32Array, frame: number): boolean {
  return FACE_INDICES.some((k) => confidenceAt(layer, frame, k) >= FACE_MIN_CONFIDENCE);
}

/** The square around one person's face in one frame, or null when their face keypoints are not found there. */
function foundFace(layer: Float32Array, frame: number): FaceRegion | null {
  if (!faceFound(layer, frame)) return null;
  const at = (k: number) => (frame * KEYPOINT_COUNT + k) * KEYPOINT_VALUES;
  const face = spanOf(layer, frame, FACE_INDICES, FACE_MIN_CONFIDENCE);
  const body = spanOf(layer, frame, VIDEO_KEYPOINTS.map(keypointIndex), FACE_MIN_CONFIDENCE);
  const [left, right] = SHOULDERS.map(at);
  const shouldersFound = SHOULDERS.every((k) => confidenceAt(layer, frame, k) >= FACE_MIN_CONFIDENCE);
  const shoulderBreadthPx = shouldersFound
    ? Math.hypot(layer[left] - layer[right], layer[left + 1] - layer[right + 1])
    : 0;
  const headPx = Math.max(
    HEAD_PER_FACE_SPAN * face.spanPx,
    HEAD_PER_SHOULDER_BREADTH * shoulderBreadthPx,
    HEAD_PER_BODY_SPAN * body.spanPx,
  );
  return { centreX: face.meanX, centreY: face.meanY, halfSidePx: (SIDE_PER_HEAD * headPx) / 2 };
}

/** The mean and the largest extent (width or height) of the keypoints found among `indices`. */
function spanOf(layer: Float32Array, frame: number, indices: readonly number[], minConfidence: number) {
  let [minX, minY, maxX, maxY, sumX, sumY, count] = [Infinity, Infinity, -Infinity, -Infinity, 0, 0, 0];
  for (const k of indices) {
    if (confidenceAt(layer, frame, k) < minConfidence) continue;
    const i = (frame * KEYPOINT_COUNT + k) * KEYPOINT_VALUES;
    const [x, y] = [layer[i], layer[i + 1]];
    [minX, maxX, minY, maxY] = [Math.min(minX, x), Math.max(maxX, x), Math.min(minY, y), Math.max(maxY, y)];
    [sumX, sumY, count] = [sumX + x, sumY + y, count + 1];
  }
  return { meanX: sumX / count, meanY: sumY / count, spanPx: count > 1 ? Math.max(maxX - minX, maxY - minY) : 0 };
}

/** Frames without a found face get the nearest found one within CARRY_FACE_S, grown by how far the head may have moved. */
function carryFaces(found: readonly (FaceRegion | null)[], timestampsS: Float64Array): (FaceRegion | null)[] {
  const before: number[] = [];
  let last = -1;
  found.forEach((region, frame) => {
    if (region) last = frame;
    before.push(last);
  });
  const carried: (FaceRegion | null)[] = new Array<FaceRegion | null>(found.length).fill(null);
  let next = -1;
  for (let frame = found.length - 1; frame >= 0; frame--) {
    if (found[frame]) {
      next = frame;
      carried[frame] = found[frame];
      continue;
    }
    const gapS = (source: number) => (source < 0 ? Infinity : Math.abs(timestampsS[frame] - timestampsS[source]));
    const source = gapS(before[frame]) <= gapS(next) ? before[frame] : next;
    const apartS = gapS(source);
    if (apartS > CARRY_FACE_S) continue;
    const region = found[source]!;
    const headPx = (2 * region.halfSidePx) / SIDE_PER_HEAD;
    carried[frame] = { ...region, halfSidePx: region.halfSidePx + headPx * HEAD_HEIGHTS_PER_S * apartS };
  }
  return carried;
}
