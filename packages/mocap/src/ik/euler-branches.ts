import type { KinematicModel } from '../model/kinematic-model.ts';
import { LinearFunction } from '../model/functions.ts';
import { multiply, setAxisAngle } from '../model/rotation.ts';

/**
 * Three successive rotations about perpendicular axes (a shoulder's flexion, adduction and
 * rotation; the pelvis's tilt, list and rotation) reach every orientation twice: (a, b, c) and
 * (a + pi, pi - b, c + pi) are the same pose. Where a joint's ranges allow both, inverse
 * kinematics can wander into the second triple (for an arm raised sideways past the horizontal),
 * and a warm start or a continuity term then holds it there: the angles flip by 180 degrees with
 * nothing moving. After each frame, every such joint takes the triple its coordinate tasks (the
 * priors) prefer, and on a tie the one with |b| <= 90 degrees.
 */
export interface EulerJoint {
  /** Coordinate indices of the first, middle and last rotation. */
  coordinates: [number, number, number];
}

const wrap = (angle: number) => angle - 2 * Math.PI * Math.round(angle / (2 * Math.PI));

function rotation(axes: number[][], angles: number[]): Float64Array {
  const r = new Float64Array(9 * 4);
  setAxisAngle(r, 0, axes[0][0], axes[0][1], axes[0][2], angles[0]);
  setAxisAngle(r, 9, axes[1][0], axes[1][1], axes[1][2], angles[1]);
  setAxisAngle(r, 18, axes[2][0], axes[2][1], axes[2][2], angles[2]);
  multiply(r, 27, r, 0, r, 9);
  multiply(r, 0, r, 27, r, 18);
  return r.subarray(0, 9);
}

/** The model's joints with three identity rotations whose second triple really is the same orientation. */
export function findEulerJoints(model: KinematicModel): EulerJoint[] {
  const index = new Map(model.coordinateNames.map((name, i) => [name, i]));
  const joints: EulerJoint[] = [];
  for (const joint of model.description.joints) {
    const rotations = joint.rotations;
    const identity = rotations.every(
      (axis) =>
        axis.coordinate !== undefined &&
        axis.fn instanceof LinearFunction &&
        axis.fn.slope === 1 &&
        axis.fn.intercept === 0,
    );
    if (!identity) continue;
    const axes = rotations.map((axis) => {
      const length = Math.hypot(...axis.axis);
      return axis.axis.map((v) => v / length);
    });
    // Check the identity on a generic pose instead of reasoning about the axes' handedness.
    const probe = [0.3, 2.1, -0.7];
    const original = rotation(axes, probe);
    const other = rotation(axes, [probe[0] + Math.PI, Math.PI - probe[1], probe[2] + Math.PI]);
    if (original.some((v, i) => Math.abs(v - other[i]) > 1e-9)) continue;
    joints.push({ coordinates: rotations.map((axis) => index.get(axis.coordinate!)!) as [number, number, number] });
  }
  return joints;
}

/**
 * Moves each joint to its other triple (when that lies within the bounds) if `priorCost` is lower
 * there, or equal and the middle angle is then within 90 degrees.
 */
export function preferBranch(
  joints: readonly EulerJoint[],
  q: Float64Array,
  lower: Float64Array,
  upper: Float64Array,
  priorCost: (q: Float64Array) => number,
): void {
  const current = [0, 0, 0];
  for (const { coordinates } of joints) {
    const [a, b, c] = coordinates;
    const other = [wrap(q[a] + Math.PI), wrap(Math.PI - q[b]), wrap(q[c] + Math.PI)];
    if (!coordinates.every((coordinate, k) => other[k] >= lower[coordinate] && other[k] <= upper[coordinate])) continue;
    const costBefore = priorCost(q);
    coordinates.forEach((coordinate, k) => {
      current[k] = q[coordinate];
      q[coordinate] = other[k];
    });
    const costAfter = priorCost(q);
    const tie = Math.abs(costAfter - costBefore) <= 1e-12 * Math.max(1, costBefore);
    const better = tie ? Math.abs(other[1]) < Math.abs(wrap(current[1])) : costAfter < costBefore;
    if (!better) coordinates.forEach((coordinate, k) => (q[coordinate] = current[k]));
  }
}
