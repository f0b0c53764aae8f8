import type { PointSolver } from './point-solver.ts';

/**
 * Left/right consistency of each camera's 2D detections, before triangulation. A pose model
 * sometimes labels a limb's sides the wrong way round in one view (a person seen from behind, legs
 * crossing in a side view): triangulated as they are, a left keypoint from one camera meets the
 * right one from the others, and the point lands between the legs. Per frame and per group of
 * left/right pairs (head, arms, legs), a camera's sides are exchanged when that makes every
 * camera's views of the group agree clearly better; cameras are tried one at a time, at most half
 * of them (exchanging more is the same as exchanging the others).
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
 * with the other cameras. Returns, per camera, how many (frame, group) detections were exchanged.
 * `capPx` bounds each view's error in the sum, so that one wild view does not decide alone.
 */
export function correctSideSwaps(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  groups: readonly SideGroup[],
  capPx: number,
): Uint32Array {
  const cameraCount = solver.cameraCount;
  const swaps = new Uint32Array(cameraCount);
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
    for (const group of groups) {
      let current = cost(frame, group);
      for (let exchanged = 0; 2 * (exchanged + 1) <= cameraCount; exchanged++) {
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
        swaps[best]++;
        current = bestCost;
      }
    }
  }
  return swaps;
}
