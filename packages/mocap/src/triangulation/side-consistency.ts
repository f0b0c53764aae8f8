import { type PointSolver, popCount } from './point-solver.ts';
import { type BodyLandmarks, orientSides } from './side-orientation.ts';
import { pairTwoViews } from './two-view-pairing.ts';

/**
 * Left/right consistency of each camera's 2D detections, before triangulation. A pose model
 * sometimes labels a limb's sides the wrong way round in one view (a person seen from behind, legs
 * crossing in a side view): triangulated as they are, a left keypoint from one camera meets the
 * right one from the others, and the point lands between the legs. Two decisions, per frame and per
 * group of left/right pairs (head, arms, legs):
 *
 * - pairing: which views belong together. With three or more cameras, a camera's sides are
 *   exchanged when that makes every camera's views of the group agree clearly better; cameras are
 *   tried one at a time, at most half of them (exchanging more is the same as exchanging the
 *   others). With two, over time as well (`pairTwoViews`), where one frame's reprojection cannot
 *   tell a pairing from its ghost.
 * - naming: which of the paired sides is left. A majority of three or more cameras names them;
 *   where none can, body geometry and time do (`orientSides`).
 */
export interface SideGroup {
  name: string;
  /** Observation offsets within a frame (keypoint indices) of each left/right pair. */
  pairs: readonly (readonly [left: number, right: number])[];
}

/** Left/right pairs of keypoint names grouped by body part; the names present in `keypointNames` are kept. */
export function sideGroups(keypointNames: readonly string[]): SideGroup[] {
  const parts: Record<string, readonly string[]> = {
    head: ['Eye', 'Ear'],
    arms: ['Shoulder', 'Elbow', 'Wrist'],
    legs: ['Hip', 'Knee', 'Ankle', 'Heel', 'BigToe', 'SmallToe'],
  };
  return Object.entries(parts)
    .map(([name, joints]) => ({
      name,
      pairs: joints
        .map((joint) => [keypointNames.indexOf(`L${joint}`), keypointNames.indexOf(`R${joint}`)] as const)
        .filter(([left, right]) => left >= 0 && right >= 0),
    }))
    .filter((group) => group.pairs.length > 0);
}

/**
 * An exchange must lower the group's summed reprojection error by this fraction (our choice: noise
 * moves the sum by a few per cent, a real swap by far more).
 */
const MIN_IMPROVEMENT = 0.3;

/**
 * Exchanges, in `solver`'s observations, the sides of each camera's group detections that disagree
 * with the other cameras (`pairViews`), then, with `landmarks`, names the sides by body geometry and
 * time where no majority of three or more cameras could (`orientSides`). Returns, per camera, how
 * many (frame, group) detections were exchanged. `capPx` bounds each view's error in the sum, so
 * that one wild view does not decide alone.
 */
export function correctSideSwaps(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  groups: readonly SideGroup[],
  capPx: number,
  landmarks?: BodyLandmarks,
): Uint32Array {
  const { exchanged, decided } =
    solver.cameraCount === 2
      ? pairBothViews(solver, frameCount, keypointCount, groups, capPx)
      : pairViews(solver, frameCount, keypointCount, groups, capPx);
  if (landmarks) {
    const flipped = orientSides(solver, frameCount, keypointCount, groups, decided, landmarks, capPx);
    for (let i = 0; i < exchanged.length; i++)
      if (flipped[i])
        exchanged[i] ^= seeingMask(solver, groups[i % groups.length], Math.floor(i / groups.length), keypointCount);
  }
  const swaps = new Uint32Array(solver.cameraCount);
  for (const mask of exchanged) for (let c = 0; c < solver.cameraCount; c++) if (mask & (1 << c)) swaps[c]++;
  return swaps;
}

/** With two cameras, each group's pairing over time (pairTwoViews); no frame is decided by a vote. */
function pairBothViews(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  groups: readonly SideGroup[],
  capPx: number,
): { exchanged: Uint32Array; decided: Uint8Array } {
  const exchanged = new Uint32Array(frameCount * groups.length);
  groups.forEach((group, g) =>
    pairTwoViews(solver, frameCount, keypointCount, group, capPx).forEach((path, frame) => {
      if (path) exchanged[frame * groups.length + g] = 0b10;
    }),
  );
  return { exchanged, decided: new Uint8Array(frameCount * groups.length) };
}

/** Cameras that see any keypoint of the group in the frame. */
function seeingMask(solver: PointSolver, group: SideGroup, frame: number, keypointCount: number): number {
  let mask = 0;
  for (const pair of group.pairs) for (const keypoint of pair) mask |= solver.seenBy(frame * keypointCount + keypoint);
  return mask;
}

/**
 * Per frame and group, the cameras whose sides are exchanged so that every camera's views of the
 * group agree clearly better (`exchanged`, a bit mask per frame × group), and whether three or more
 * cameras saw the group with a majority keeping its names (`decided`).
 */
function pairViews(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  groups: readonly SideGroup[],
  capPx: number,
): { exchanged: Uint32Array; decided: Uint8Array } {
  const cameraCount = solver.cameraCount;
  const exchanged = new Uint32Array(frameCount * groups.length);
  const decided = new Uint8Array(frameCount * groups.length);
  const exchange = (frame: number, group: SideGroup, c: number) => {
    for (const [left, right] of group.pairs)
      solver.swap(c, frame * keypointCount + left, frame * keypointCount + right);
  };
  const cost = (frame: number, group: SideGroup) => {
    let sum = 0;
    for (const pair of group.pairs) {
      for (const keypoint of pair) {
        const observation = frame * keypointCount + keypoint;
        const seen = solver.seenBy(observation);
        if ((seen & (seen - 1)) === 0 || !solver.solve(observation, seen)) continue;
        for (let c = 0; c < cameraCount; c++)
          if (seen & (1 << c)) sum += Math.min(capPx, solver.reprojectionError(c, observation));
      }
    }
    return sum;
  };

  for (let frame = 0; frame < frameCount; frame++) {
    for (const [g, group] of groups.entries()) {
      let current = cost(frame, group);
      let mask = 0;
      for (let count = 0; 2 * (count + 1) <= cameraCount; count++) {
        let best = -1;
        let bestCost = current * (1 - MIN_IMPROVEMENT);
        for (let c = 0; c < cameraCount; c++) {
          exchange(frame, group, c);
          const candidate = cost(frame, group);
          exchange(frame, group, c);
          if (candidate < bestCost) [best, bestCost] = [c, candidate];
        }
        if (best < 0) break;
        exchange(frame, group, best);
        mask |= 1 << best;
        current = bestCost;
      }
      exchanged[frame * groups.length + g] = mask;
      const seeing = popCount(seeingMask(solver, group, frame, keypointCount));
      const against = popCount(mask);
      decided[frame * groups.length + g] = seeing >= 3 && seeing - against > against ? 1 : 0;
    }
  }
  return { exchanged, decided };
}
