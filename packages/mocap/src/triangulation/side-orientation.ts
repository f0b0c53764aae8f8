import { type PointSolver, popCount } from './point-solver.ts';
import type { SideGroup } from './side-consistency.ts';
import { cheapestTwoStatePath } from './two-state-path.ts';

/**
 * Which side is left, where no third camera can vote. Once the views of a body part are paired
 * (each camera's left meets the others' left, `pairViews`), the 3D points it gives can still carry
 * the wrong names: with two cameras that disagree, either camera may be the one that mislabelled;
 * with two that agree, both may (a pose model seeing a person from behind often mirrors them).
 * Three or more cameras out-vote one; two cannot. There, body geometry and time decide:
 *
 * - geometry: seen from above with the body upright, the right hip (shoulder, knee...) lies to the
 *   right of the left one, right being the facing direction (nose ahead of the ears, or toes ahead
 *   of the heels) crossed with the trunk's up (mid-hip to neck). Those landmarks are the same
 *   whichever way the sides are named;
 * - time: a body part does not jump to the other side between two frames, so a name that swaps
 *   between frames while the points stay put is a labelling error.
 *
 * Per body part, a two-state Viterbi path over the frames (names as the views give them, or
 * exchanged) minimises the geometry's disagreement plus the jumps; frames a majority of three or
 * more cameras decided are held as they are.
 */
export interface BodyLandmarks {
  nose: number;
  /** Mid-shoulder and mid-hip keypoints: the trunk's up. */
  neck: number;
  midHip: number;
  /** Left/right keypoint pairs whose midpoint, or whose differences, give the facing direction. */
  ears?: readonly [left: number, right: number];
  heels?: readonly [left: number, right: number];
  toes?: readonly [left: number, right: number];
}

/** Keypoint indices of the landmarks that tell the facing direction; undefined when the keypoint set lacks them. */
export function bodyLandmarks(keypointNames: readonly string[]): BodyLandmarks | undefined {
  const index = (name: string) => keypointNames.indexOf(name);
  const pair = (joint: string) => {
    const [left, right] = [index(`L${joint}`), index(`R${joint}`)];
    return left >= 0 && right >= 0 ? ([left, right] as const) : undefined;
  };
  const [nose, neck, midHip] = [index('Nose'), index('Neck'), index('midHip')];
  if (neck < 0 || midHip < 0) return undefined;
  return { nose, neck, midHip, ears: pair('Ear'), heels: pair('Heel'), toes: pair('BigToe') };
}

/**
 * Cost of a frame whose names contradict the geometry outright (every pair on the wrong side),
 * against a jump: a jump of JUMP_SCALE_M per frame costs as much (our choice: a side swap moves
 * each point by the body part's width, 0.1-0.4 m, in one frame; a body part moves 1-3 cm a frame
 * at 60 fps in the demo's balancing and about 8 cm at a running ankle).
 */
const GEOMETRY_WEIGHT = 1;
const JUMP_SCALE_M = 0.1;

/**
 * Exchanges, in `solver`'s observations, the sides of every camera's views of a body part in the
 * frames where geometry and time say the names are the wrong way round. `decided[frame * groups +
 * group]` is 1 where a majority of three or more cameras fixed the names. Returns, per frame and
 * group, 1 where the names were exchanged.
 */
export function orientSides(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  groups: readonly SideGroup[],
  decided: Uint8Array,
  landmarks: BodyLandmarks,
  maxLandmarkErrorPx: number,
): Uint8Array {
  const flipped = new Uint8Array(frameCount * groups.length);
  const right = rightDirections(solver, frameCount, keypointCount, landmarks, maxLandmarkErrorPx);
  groups.forEach((group, g) => {
    const points = groupPoints(solver, frameCount, keypointCount, group);
    const path = orientationPath(
      points,
      group.pairs.length,
      frameCount,
      right,
      (frame) => decided[frame * groups.length + g] === 1,
    );
    for (let frame = 0; frame < frameCount; frame++) {
      if (!path[frame]) continue;
      flipped[frame * groups.length + g] = 1;
      for (let c = 0; c < solver.cameraCount; c++)
        for (const [left, rightKeypoint] of group.pairs)
          solver.swap(c, frame * keypointCount + left, frame * keypointCount + rightKeypoint);
    }
  });
  return flipped;
}

/**
 * Per frame, the body's right (a unit vector, NaN when unknown): the facing direction (nose ahead of
 * the ears' midpoint, else of the neck, plus the feet's heel-to-toe directions) crossed with the
 * trunk's up, both flattened onto the plane across the trunk. A landmark counts only where its
 * views agree (mean reprojection error at most `maxLandmarkErrorPx`): with two cameras, one view
 * that put the upper body at the hips (BlazePose on the demo's static trial seen from behind, cam02)
 * meets the other as a "neck" below the hips, turning the body's up sideways and naming correctly
 * labelled legs the wrong way round in 9 of 11 frames.
 */
function rightDirections(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  landmarks: BodyLandmarks,
  maxLandmarkErrorPx: number,
): Float64Array {
  const right = new Float64Array(frameCount * 3).fill(Number.NaN);
  const point = (frame: number, keypoint: number | undefined): number[] | undefined => {
    if (keypoint === undefined || keypoint < 0) return undefined;
    const observation = frame * keypointCount + keypoint;
    const seen = solver.seenBy(observation);
    if ((seen & (seen - 1)) === 0 || !solver.solve(observation, seen)) return undefined;
    let errorPx = 0;
    for (let c = 0; c < solver.cameraCount; c++)
      if (seen & (1 << c)) errorPx += solver.reprojectionError(c, observation);
    if (errorPx > maxLandmarkErrorPx * popCount(seen)) return undefined;
    return [solver.point[0], solver.point[1], solver.point[2]];
  };
  const midpoint = (frame: number, pair: readonly [number, number] | undefined) => {
    const [a, b] = pair ? [point(frame, pair[0]), point(frame, pair[1])] : [];
    return a && b ? a.map((value, i) => (value + b[i]) / 2) : undefined;
  };
  for (let frame = 0; frame < frameCount; frame++) {
    const [neck, midHip] = [point(frame, landmarks.neck), point(frame, landmarks.midHip)];
    if (!neck || !midHip) continue;
    const up = normalised(minus(neck, midHip));
    const facing = [0, 0, 0];
    const nose = point(frame, landmarks.nose);
    const head = midpoint(frame, landmarks.ears) ?? neck;
    if (nose) addUnit(facing, across(minus(nose, head), up));
    for (const foot of [0, 1] as const) {
      const heel = landmarks.heels && point(frame, landmarks.heels[foot]);
      const toe = landmarks.toes && point(frame, landmarks.toes[foot]);
      if (heel && toe) addUnit(facing, across(minus(toe, heel), up), 0.5);
    }
    const r = normalised(cross(facing, up));
    right.set(r, frame * 3);
  }
  return right;
}

/** Per frame and pair, the left and right 3D points (frames × pairs × 6), NaN where not triangulated. */
function groupPoints(solver: PointSolver, frameCount: number, keypointCount: number, group: SideGroup): Float64Array {
  const points = new Float64Array(frameCount * group.pairs.length * 6).fill(Number.NaN);
  for (let frame = 0; frame < frameCount; frame++) {
    group.pairs.forEach((pair, p) =>
      pair.forEach((keypoint, side) => {
        const observation = frame * keypointCount + keypoint;
        const seen = solver.seenBy(observation);
        if ((seen & (seen - 1)) !== 0 && solver.solve(observation, seen))
          points.set(solver.point, (frame * group.pairs.length + p) * 6 + side * 3);
      }),
    );
  }
  return points;
}

/**
 * Per frame, 1 where the names are to be exchanged: the cheapest path of the geometry's
 * disagreement in each frame plus the jumps between frames with points; `held` frames keep theirs.
 */
function orientationPath(
  points: Float64Array,
  pairCount: number,
  frameCount: number,
  right: Float64Array,
  held: (frame: number) => boolean,
): Uint8Array {
  return cheapestTwoStatePath(frameCount, {
    stateCost(frame) {
      if (!hasPoints(points, pairCount, frame)) return undefined;
      const agreement = sideAgreement(points, pairCount, frame, right);
      const [kept, exchanged] = Number.isNaN(agreement)
        ? [0, 0]
        : [(GEOMETRY_WEIGHT * (1 - agreement)) / 2, (GEOMETRY_WEIGHT * (1 + agreement)) / 2];
      return [kept, held(frame) ? Number.POSITIVE_INFINITY : exchanged];
    },
    transitionCost(previous, frame, from, to) {
      const { same, crossed } = jumps(points, pairCount, previous, frame);
      // Only the difference between the two hypotheses is evidence, per frame elapsed.
      const excess = from === to ? same - crossed : crossed - same;
      return Math.max(0, excess) / (JUMP_SCALE_M * (frame - previous));
    },
  });
}

function hasPoints(points: Float64Array, pairCount: number, frame: number): boolean {
  for (let i = frame * pairCount * 6; i < (frame + 1) * pairCount * 6; i += 3)
    if (!Number.isNaN(points[i])) return true;
  return false;
}

/**
 * How well the names agree with the body's right in one frame: the right-minus-left offsets along
 * the right direction over their summed lengths, +1 (every pair on its side) to -1 (every pair
 * mirrored); NaN without the direction or a complete pair.
 */
function sideAgreement(points: Float64Array, pairCount: number, frame: number, right: Float64Array): number {
  const r = right.subarray(frame * 3, frame * 3 + 3);
  if (Number.isNaN(r[0])) return Number.NaN;
  let along = 0;
  let length = 0;
  for (let p = 0; p < pairCount; p++) {
    const at = (frame * pairCount + p) * 6;
    const offset = [0, 1, 2].map((axis) => points[at + 3 + axis] - points[at + axis]);
    if (offset.some(Number.isNaN)) continue;
    along += offset[0] * r[0] + offset[1] * r[1] + offset[2] * r[2];
    length += Math.hypot(offset[0], offset[1], offset[2]);
  }
  return length > 0 ? along / length : Number.NaN;
}

/** Summed distances of each side's points between two frames, names kept (`same`) or exchanged (`crossed`). */
function jumps(points: Float64Array, pairCount: number, from: number, to: number) {
  let same = 0;
  let crossed = 0;
  for (let p = 0; p < pairCount; p++) {
    const a = (from * pairCount + p) * 6;
    const b = (to * pairCount + p) * 6;
    const distance = (i: number, j: number) =>
      Math.hypot(points[i] - points[j], points[i + 1] - points[j + 1], points[i + 2] - points[j + 2]);
    const [ll, rr, lr, rl] = [distance(a, b), distance(a + 3, b + 3), distance(a, b + 3), distance(a + 3, b)];
    if ([ll, rr, lr, rl].some(Number.isNaN)) continue;
    same += ll + rr;
    crossed += lr + rl;
  }
  return { same, crossed };
}

const minus = (a: number[], b: number[]) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const cross = (a: number[], b: number[]) => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const normalised = (v: number[]) => {
  const length = Math.hypot(v[0], v[1], v[2]);
  return length > 0 ? v.map((value) => value / length) : [Number.NaN, Number.NaN, Number.NaN];
};
/** The part of `v` across the unit vector `up`. */
const across = (v: number[], up: number[]) => {
  const along = v[0] * up[0] + v[1] * up[1] + v[2] * up[2];
  return [v[0] - along * up[0], v[1] - along * up[1], v[2] - along * up[2]];
};
function addUnit(sum: number[], v: number[], weight = 1): void {
  const unit = normalised(v);
  if (unit.some(Number.isNaN)) return;
  for (let i = 0; i < 3; i++) sum[i] += weight * unit[i];
}
