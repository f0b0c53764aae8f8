import { type StorageTable, storageColumn } from '../formats/mot.ts';
import type { MarkerTrajectories } from '../formats/trc.ts';

/**
 * Joint angles set beside another tool's for the same trial. Two models rarely share their zero:
 * a model whose markers were placed on the subject's static trial reads 0 in that pose, a generic
 * model with fixed markers reads whatever its geometry gives. So the comparison reports the mean
 * difference (the offset between the two neutrals) and the RMS difference both as it is and with
 * that offset removed.
 */
export interface CoordinateComparison {
  coordinate: string;
  /** Frames compared (present in both, after the lag). */
  frames: number;
  /** Largest change between consecutive frames, degrees, ours and the reference's over the same frames. */
  largestJumpDeg: number;
  referenceLargestJumpDeg: number;
  /** Mean of ours minus the reference, degrees. */
  offsetDeg: number;
  rmsDifferenceDeg: number;
  rmsDifferenceWithoutOffsetDeg: number;
}

function largestJump(values: number[]): number {
  let largest = 0;
  for (let i = 1; i < values.length; i++) largest = Math.max(largest, Math.abs(values[i] - values[i - 1]));
  return largest;
}

/**
 * Compares the named coordinates of two motions in degrees, frame f of ours with frame f + lagFrames
 * of the reference (same frame rate). A coordinate missing from either motion is left out.
 */
export function compareMotions(
  ours: StorageTable,
  reference: StorageTable,
  coordinates: readonly string[],
  lagFrames = 0,
): CoordinateComparison[] {
  if (!ours.inDegrees || !reference.inDegrees)
    throw new RangeError('Both motions must store rotations in degrees (.mot from an IK tool).');
  const comparisons: CoordinateComparison[] = [];
  for (const coordinate of coordinates) {
    const a = storageColumn(ours, coordinate);
    const b = storageColumn(reference, coordinate);
    if (!a || !b) continue;
    const oursPaired: number[] = [];
    const theirsPaired: number[] = [];
    for (let f = 0; f < a.length; f++) {
      const g = f + lagFrames;
      if (g < 0 || g >= b.length || Number.isNaN(a[f]) || Number.isNaN(b[g])) continue;
      oursPaired.push(a[f]);
      theirsPaired.push(b[g]);
    }
    const differences = oursPaired.map((value, i) => value - theirsPaired[i]);
    const frames = differences.length;
    const offsetDeg = differences.reduce((sum, d) => sum + d, 0) / frames;
    const meanSquare = differences.reduce((sum, d) => sum + d * d, 0) / frames;
    comparisons.push({
      coordinate,
      frames,
      largestJumpDeg: largestJump(oursPaired),
      referenceLargestJumpDeg: largestJump(theirsPaired),
      offsetDeg,
      rmsDifferenceDeg: Math.sqrt(meanSquare),
      rmsDifferenceWithoutOffsetDeg: Math.sqrt(Math.max(0, meanSquare - offsetDeg * offsetDeg)),
    });
  }
  return comparisons;
}

/**
 * The frame lag (within ±maxLagFrames) that brings two marker recordings of the same trial in the
 * same world frame closest: frame f of `ours` against frame f + lag of `reference`, RMS distance
 * over the named markers present in both. Tools start their time bases at different frames.
 */
export function bestFrameLag(
  ours: MarkerTrajectories,
  reference: MarkerTrajectories,
  markerNames: readonly string[],
  maxLagFrames = 5,
): { lagFrames: number; rmsDistanceM: number } {
  const pairs = markerNames
    .map((name) => [ours.markerNames.indexOf(name), reference.markerNames.indexOf(name)] as const)
    .filter(([a, b]) => a >= 0 && b >= 0);
  let best = { lagFrames: 0, rmsDistanceM: Number.POSITIVE_INFINITY };
  for (let lag = -maxLagFrames; lag <= maxLagFrames; lag++) {
    let sum = 0;
    let count = 0;
    for (let f = 0; f < ours.timesS.length; f++) {
      const g = f + lag;
      if (g < 0 || g >= reference.timesS.length) continue;
      for (const [a, b] of pairs) {
        const p = (f * ours.markerNames.length + a) * 3;
        const r = (g * reference.markerNames.length + b) * 3;
        const squared =
          (ours.positionsM[p] - reference.positionsM[r]) ** 2 +
          (ours.positionsM[p + 1] - reference.positionsM[r + 1]) ** 2 +
          (ours.positionsM[p + 2] - reference.positionsM[r + 2]) ** 2;
        if (Number.isNaN(squared)) continue;
        sum += squared;
        count++;
      }
    }
    const rms = Math.sqrt(sum / count);
    if (count > 0 && rms < best.rmsDistanceM) best = { lagFrames: lag, rmsDistanceM: rms };
  }
  return best;
}
