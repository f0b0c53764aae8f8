/**
 * Isolated spikes in 3D trajectories (frames × points × 3, NaN where missing), removed before gap
 * filling and low-pass filtering: a point that leaves the path of its neighbours for a frame or two
 * and comes back (a mis-detection that reached triangulation). A point is a spike when it lies
 * farther from the median of the 5 frames around it than the body can move it away from that
 * path, and farther than the trajectory's own noise allows. A point seen alone, with no other frame
 * of it within two frames either side, cannot be checked against a path and is taken as a spike too:
 * with two cameras a mis-detection along the epipolar line reprojects perfectly, and such lone
 * samples are where it shows (a heel 25 cm off between two gaps on the Pose2Sim demo's cam01+cam02).
 * Spikes become missing, for the gap filling to bridge.
 */
export interface SpikeRemoval {
  /** The trajectories with spikes set to NaN. */
  positions: Float64Array;
  /** Per point: frames removed. */
  removedPerPoint: Uint32Array;
}

/**
 * The largest acceleration a keypoint is taken to reach, m/s² (our choice: 50 g, above the limb
 * accelerations of kicks, throws and landings, which stay within a few tens of g). Over the ±2-frame
 * window a point under constant acceleration a lies ½·a·dt² from the window's median.
 */
export const MAX_BODY_ACCELERATION_M_PER_S2 = 50 * 9.81;
/** A spike also stands this many times above the trajectory's median deviation (its noise). */
const NOISE_FACTOR = 6;
const HALF_WINDOW = 2;

export function removeSpikes(
  positions: Float64Array,
  frameCount: number,
  pointCount: number,
  frameRateHz: number,
): SpikeRemoval {
  const cleaned = new Float64Array(positions);
  const removedPerPoint = new Uint32Array(pointCount);
  const physicalLimitM = (0.5 * MAX_BODY_ACCELERATION_M_PER_S2) / (frameRateHz * frameRateHz);
  const deviations = new Float64Array(frameCount);
  const window = [
    new Float64Array(2 * HALF_WINDOW + 1),
    new Float64Array(2 * HALF_WINDOW + 1),
    new Float64Array(2 * HALF_WINDOW + 1),
  ];
  const stride = pointCount * 3;

  for (let point = 0; point < pointCount; point++) {
    const valid: number[] = [];
    for (let frame = 0; frame < frameCount; frame++) {
      deviations[frame] = Number.NaN;
      const at = frame * stride + point * 3;
      if (Number.isNaN(positions[at])) continue;
      // A window centred on the frame (narrower near the ends), so that movement does not shift its median.
      const half = Math.min(HALF_WINDOW, frame, frameCount - 1 - frame);
      let count = 0;
      for (let other = frame - half; other <= frame + half; other++) {
        const from = other * stride + point * 3;
        if (Number.isNaN(positions[from])) continue;
        for (let axis = 0; axis < 3; axis++) window[axis][count] = positions[from + axis];
        count++;
      }
      if (count === 1 && frameCount > 2 * HALF_WINDOW && alone(positions, stride, point, frame, frameCount)) {
        deviations[frame] = Number.POSITIVE_INFINITY;
        continue;
      }
      if (count < 3) continue;
      const median = window.map((values) => medianOf(values.subarray(0, count)));
      deviations[frame] = Math.hypot(
        positions[at] - median[0],
        positions[at + 1] - median[1],
        positions[at + 2] - median[2],
      );
      valid.push(deviations[frame]);
    }
    const limitM =
      valid.length > 0 ? Math.max(physicalLimitM, NOISE_FACTOR * medianOf(Float64Array.from(valid))) : physicalLimitM;
    for (let frame = 0; frame < frameCount; frame++) {
      if (!(deviations[frame] > limitM)) continue;
      cleaned.fill(Number.NaN, frame * stride + point * 3, frame * stride + point * 3 + 3);
      removedPerPoint[point]++;
    }
  }
  return { positions: cleaned, removedPerPoint };
}

/** Whether no other frame within HALF_WINDOW of `frame` has the point. */
function alone(positions: Float64Array, stride: number, point: number, frame: number, frameCount: number): boolean {
  for (let other = Math.max(0, frame - HALF_WINDOW); other <= Math.min(frameCount - 1, frame + HALF_WINDOW); other++)
    if (other !== frame && !Number.isNaN(positions[other * stride + point * 3])) return false;
  return true;
}

/** Median of a small array (sorted in place). */
function medianOf(values: Float64Array): number {
  values.sort();
  const middle = values.length >> 1;
  return values.length % 2 === 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}
