import { WINTER_2009 } from '../default-model/anthropometry.ts';

/**
 * Keypoints that no body could have put there, removed before spike removal and gap filling: in a
 * frame, a keypoint whose links to its skeleton neighbours (the limbs' segments, the trunk's sides
 * and widths) are far longer or shorter than those links are over the trial. Two views can agree on
 * a point that is not the body's: two cameras facing each other across the subject see nearly
 * collinear rays, which a mislabelled or misplaced detection crosses far along the line between them
 * (on the multi-person demo's four cameras, cam02 and cam04 alone placed the right elbow 1.6 m behind
 * the man for three frames, reprojecting within 4 px, and the other cameras' views of it disagreed).
 * Such a point jumps in and out for a few frames, or stays, so the spike check, which compares a point
 * with its own path, misses it; its neighbours do not. The point becomes missing, for the gap
 * filling to bridge: a gap, never a guess.
 */
export interface SegmentOutlierRemoval {
  /** The trajectories with the off-body keypoints set to NaN. */
  positions: Float64Array;
  /** Per keypoint: frames removed. */
  removedPerPoint: Uint32Array;
}

/** The links checked: the limbs and feet, and the trunk's sides and widths (the face keypoints ride on the head and are left alone). */
const LINKS: readonly (readonly [string, string, string?])[] = [
  ['RShoulder', 'LShoulder'],
  ['RHip', 'LHip'],
  ...(['R', 'L'] as const).flatMap((side) =>
    (
      [
        ['Shoulder', 'Elbow'],
        ['Elbow', 'Wrist'],
        ['Shoulder', 'Hip'],
        ['Hip', 'Knee'],
        ['Knee', 'Ankle'],
        ['Ankle', 'Heel'],
        ['Ankle', 'BigToe'],
        ['Heel', 'BigToe'],
      ] as const
    ).map(([a, b]) => [`${side}${a}`, `${side}${b}`, `${a}-${b}`] as const),
  ),
];

/**
 * Expected lengths of the limb and trunk-side links, fractions of standing height (Winter 2009,
 * Fig. 4.1: the differences of joint heights, and the arm segments' lengths). A link whose length
 * over the whole trial is more than twice or under half of what these give, at the height the other
 * links imply, was never on the body: on two cameras facing each other (cam02+cam04 of the Pose2Sim
 * demo's static trial, where BlazePose folded one view's upper body onto the hips) a right shoulder
 * stood 1.5 m off in every frame, so its own median length hid it.
 */
const LINK_HEIGHT_SHARES: Readonly<Record<string, number>> = {
  'Shoulder-Elbow': WINTER_2009.upperArmLength,
  'Elbow-Wrist': WINTER_2009.forearmLength,
  'Shoulder-Hip': WINTER_2009.shoulderHeight - WINTER_2009.hipHeight,
  'Hip-Knee': WINTER_2009.hipHeight - WINTER_2009.kneeHeight,
  'Knee-Ankle': WINTER_2009.kneeHeight - WINTER_2009.ankleHeight,
};
const MAX_LENGTH_RATIO = 2;
/** Links with a trial length needed before their implied height is trusted (our choice: three of the ten). */
const MIN_LINKS_FOR_HEIGHT = 3;

/**
 * A link is off when its length differs from its median over the trial by more than this much and
 * than this share of the median (our choice: segment lengths vary by 10-50 mm SD on two cameras of
 * the Pose2Sim demo, a point on the wrong body or along the wrong ray by 0.2-1.6 m).
 */
const MAX_DEVIATION_M = 0.1;
const MAX_DEVIATION_SHARE = 0.4;

/** The distance between keypoints a and b in `frame` of `positions` (frames × keypoints × 3, m); NaN where either is missing. */
export function linkLengthM(
  positions: Float64Array,
  keypointCount: number,
  frame: number,
  a: number,
  b: number,
): number {
  const i = (frame * keypointCount + a) * 3;
  const j = (frame * keypointCount + b) * 3;
  return Math.hypot(
    positions[i] - positions[j],
    positions[i + 1] - positions[j + 1],
    positions[i + 2] - positions[j + 2],
  );
}

/** A link's median length over the frames where both its ends exist (linkLengthM); NaN where they never do. */
export function trialMedianLengthM(
  positions: Float64Array,
  frameCount: number,
  keypointCount: number,
  a: number,
  b: number,
): number {
  const lengths: number[] = [];
  for (let frame = 0; frame < frameCount; frame++) {
    const value = linkLengthM(positions, keypointCount, frame, a, b);
    if (!Number.isNaN(value)) lengths.push(value);
  }
  lengths.sort((x, y) => x - y);
  return lengths.length > 0 ? lengths[lengths.length >> 1] : Number.NaN;
}

/** Whether a link this long, where its reference length is `referenceM`, puts one of its ends off the body. */
export function isOffBody(lengthM: number, referenceM: number): boolean {
  return Math.abs(lengthM - referenceM) > Math.max(MAX_DEVIATION_M, MAX_DEVIATION_SHARE * referenceM);
}

export function removeSegmentOutliers(
  positions: Float64Array,
  frameCount: number,
  keypointNames: readonly string[],
): SegmentOutlierRemoval {
  const cleaned = new Float64Array(positions);
  const keypointCount = keypointNames.length;
  const removedPerPoint = new Uint32Array(keypointCount);
  const present = LINKS.filter(([a, b]) => keypointNames.includes(a) && keypointNames.includes(b));
  const links = present.map(([a, b]) => [keypointNames.indexOf(a), keypointNames.indexOf(b)] as const);
  const length = (frame: number, [a, b]: readonly [number, number]) => linkLengthM(cleaned, keypointCount, frame, a, b);
  const trialMedians = links.map(([a, b]) => trialMedianLengthM(cleaned, frameCount, keypointCount, a, b));
  const medians = plausibleLengths(
    trialMedians,
    present.map(([, , segment]) => (segment ? LINK_HEIGHT_SHARES[segment] : undefined)),
  );

  /** The last frame where each keypoint was removed here. */
  const removedAt = new Int32Array(keypointCount).fill(-1);
  const isMissing = (frame: number, k: number) => Number.isNaN(cleaned[(frame * keypointCount + k) * 3]);
  const remove = (frame: number, k: number) => {
    cleaned.fill(Number.NaN, (frame * keypointCount + k) * 3, (frame * keypointCount + k + 1) * 3);
    removedPerPoint[k]++;
    removedAt[k] = frame;
  };
  const off = new Uint8Array(keypointCount);
  const linked = new Uint8Array(keypointCount);
  for (let frame = 0; frame < frameCount; frame++) {
    // Remove, one at a time, the keypoint that most of its links put off the body, until no link is off.
    for (;;) {
      off.fill(0);
      linked.fill(0);
      links.forEach((link, l) => {
        const value = length(frame, link);
        if (Number.isNaN(value)) return;
        linked[link[0]]++;
        linked[link[1]]++;
        if (isOffBody(value, medians[l])) {
          off[link[0]]++;
          off[link[1]]++;
        }
      });
      let worst = -1;
      for (let k = 0; k < keypointCount; k++) {
        if (off[k] === 0) continue;
        // The larger share of its links off, then the more links off (an elbow off both ways before the wrist it shares one with).
        if (
          worst < 0 ||
          off[k] * linked[worst] > off[worst] * linked[k] ||
          (off[k] * linked[worst] === off[worst] * linked[k] && off[k] > off[worst])
        )
          worst = k;
      }
      if (worst < 0) break;
      remove(frame, worst);
    }
    // A keypoint linked only to keypoints removed here cannot be told to be on the body: it agreed
    // with a point that was not (a wrist on the other arm, beside its elbow there too).
    for (let changed = true; changed;) {
      changed = false;
      for (let k = 0; k < keypointCount; k++) {
        if (isMissing(frame, k)) continue;
        let toRemoved = false;
        let toKept = false;
        for (const [a, b] of links) {
          const other = a === k ? b : b === k ? a : -1;
          if (other < 0) continue;
          if (!isMissing(frame, other)) toKept = true;
          else if (removedAt[other] === frame) toRemoved = true;
        }
        if (toRemoved && !toKept) {
          remove(frame, k);
          changed = true;
        }
      }
    }
    // A keypoint whose neighbours are all missing is checked against the nearest ones present
    // beyond them: no farther than the links between reach (a wrist 1.3 m from its shoulder while
    // the elbow is missing, on cam01+cam03 of the multi-person demo for 16 frames).
    for (let k = 0; k < keypointCount; k++)
      if (!isMissing(frame, k) && isolated(frame, k) && beyondReach(frame, k)) remove(frame, k);
  }
  return { positions: cleaned, removedPerPoint };

  function isolated(frame: number, k: number): boolean {
    return links.every(([a, b]) => (a !== k && b !== k) || isMissing(frame, a === k ? b : a));
  }

  /** Whether a keypoint present beyond k's missing neighbours lies farther from it than the links between can reach. */
  function beyondReach(frame: number, k: number): boolean {
    const reachM = new Float64Array(keypointCount).fill(Number.POSITIVE_INFINITY);
    reachM[k] = 0;
    const queue = [k];
    while (queue.length > 0) {
      const from = queue.shift()!;
      links.forEach(([a, b], l) => {
        const to = a === from ? b : b === from ? a : -1;
        if (to < 0 || Number.isNaN(medians[l]) || reachM[from] + medians[l] >= reachM[to]) return;
        reachM[to] = reachM[from] + medians[l];
        if (isMissing(frame, to)) queue.push(to);
      });
    }
    for (let j = 0; j < keypointCount; j++) {
      if (j === k || isMissing(frame, j) || !Number.isFinite(reachM[j])) continue;
      if (length(frame, [k, j]) > reachM[j] + MAX_DEVIATION_M) return true;
    }
    return false;
  }
}

/**
 * Each link's reference length: its median over the trial, or, where that is more than
 * MAX_LENGTH_RATIO from the length its height share gives at the median height the links imply, that
 * length (the link was off the body throughout).
 */
function plausibleLengths(trialMedians: readonly number[], heightShares: readonly (number | undefined)[]): number[] {
  const heights = trialMedians
    .map((median, l) => median / (heightShares[l] ?? Number.NaN))
    .filter((height) => !Number.isNaN(height))
    .sort((a, b) => a - b);
  if (heights.length < MIN_LINKS_FOR_HEIGHT) return [...trialMedians];
  const heightM = heights[heights.length >> 1];
  return trialMedians.map((median, l) => {
    const share = heightShares[l];
    if (share === undefined || Number.isNaN(median)) return median;
    const expectedM = share * heightM;
    return median > MAX_LENGTH_RATIO * expectedM || median < expectedM / MAX_LENGTH_RATIO ? expectedM : median;
  });
}
