import type { PointSolver } from './point-solver.ts';
import type { SideGroup } from './side-consistency.ts';
import { cheapestTwoStatePath } from './two-state-path.ts';

/**
 * Which of two cameras' left and right views of a body part belong together, when there is no third
 * camera. When the cameras stand at about the same height, a left and a right point at the same
 * height lie on nearly the same epipolar plane: both pairings meet in 3D and reproject within a few
 * pixels, the wrong one as a "ghost" half a metre off, below the floor or behind the person. One frame
 * alone cannot always tell them apart; the frames around it can: the right pairing reprojects better
 * over a run of frames and moves smoothly, a ghost jumps in and out. Per body part, a two-state path
 * over the frames (views as given, or the second camera's sides exchanged) minimises the reprojection
 * error of each frame plus the jumps between frames, whatever the names (`orientSides` names the sides
 * afterwards).
 */

/**
 * Reprojection error, in units of this many pixels of mean error over the body part's views, weighs
 * as much as a jump of JUMP_SCALE_M per frame (our choice: BlazePose's noise on the demo is 5-10 px
 * (docs/pose.md), a mislabelled limb adds 10-30 px; a ghost jumps 0.3-1 m where a body part moves 1-8 cm).
 */
const REPROJECTION_SCALE_PX = 5;
const JUMP_SCALE_M = 0.1;

/** Per frame, 1 where the second camera's sides of `group` are to be exchanged. */
export function pairTwoViews(
  solver: PointSolver,
  frameCount: number,
  keypointCount: number,
  group: SideGroup,
  capPx: number,
): Uint8Array {
  const pairCount = group.pairs.length;
  // Per state (as given, exchanged): frames × pairs × (left xyz, right xyz), and the mean reprojection error per frame.
  const points = [0, 1].map(() => new Float64Array(frameCount * pairCount * 6).fill(Number.NaN));
  const errorSumPx = [0, 1].map(() => new Float64Array(frameCount));
  const views = [0, 1].map(() => new Uint16Array(frameCount));
  const exchange = (frame: number) => {
    for (const [left, right] of group.pairs)
      solver.swap(1, frame * keypointCount + left, frame * keypointCount + right);
  };
  for (let frame = 0; frame < frameCount; frame++) {
    for (const state of [0, 1]) {
      if (state === 1) exchange(frame);
      group.pairs.forEach((pair, p) =>
        pair.forEach((keypoint, side) => {
          const observation = frame * keypointCount + keypoint;
          if (solver.seenBy(observation) !== 3 || !solver.solve(observation, 3)) return;
          points[state].set(solver.point, (frame * pairCount + p) * 6 + side * 3);
          errorSumPx[state][frame] +=
            Math.min(capPx, solver.reprojectionError(0, observation)) +
            Math.min(capPx, solver.reprojectionError(1, observation));
          views[state][frame] += 2;
        }),
      );
      if (state === 1) exchange(frame);
    }
  }
  const path = cheapestTwoStatePath(frameCount, {
    stateCost(frame) {
      // Mean error over the views either pairing triangulates; a view one of them cannot pair counts as the cap.
      const most = Math.max(views[0][frame], views[1][frame]);
      if (most === 0) return undefined;
      const cost = (state: number) =>
        (errorSumPx[state][frame] + capPx * (most - views[state][frame])) / most / REPROJECTION_SCALE_PX;
      return [cost(0), cost(1)];
    },
    transitionCost(previous, frame, from, to) {
      return nearestJump(points[from], points[to], pairCount, previous, frame) / (JUMP_SCALE_M * (frame - previous));
    },
  });
  for (let frame = 0; frame < frameCount; frame++) if (path[frame]) exchange(frame);
  return path;
}

/**
 * How far a body part's points move between two frames whatever their names: the smaller of the
 * mean distances with the names kept and with them exchanged, over the pairs seen in both frames,
 * times the group's pairs (0 without a pair seen in both).
 */
function nearestJump(before: Float64Array, after: Float64Array, pairCount: number, from: number, to: number): number {
  let same = 0;
  let crossed = 0;
  let seen = 0;
  for (let p = 0; p < pairCount; p++) {
    const a = (from * pairCount + p) * 6;
    const b = (to * pairCount + p) * 6;
    const distance = (i: number, j: number) =>
      Math.hypot(before[i] - after[j], before[i + 1] - after[j + 1], before[i + 2] - after[j + 2]);
    const [ll, rr, lr, rl] = [distance(a, b), distance(a + 3, b + 3), distance(a, b + 3), distance(a + 3, b)];
    if ([ll, rr, lr, rl].some(Number.isNaN)) continue;
    same += ll + rr;
    crossed += lr + rl;
    seen++;
  }
  return seen > 0 ? (Math.min(same, crossed) * pairCount) / seen : 0;
}
