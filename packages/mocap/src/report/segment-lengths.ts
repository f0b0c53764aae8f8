/**
 * Lengths of the body segments between keypoints over a trial: a segment of the skeleton does not
 * change length, so how much its measured length varies is a direct measure of the keypoints'
 * consistency (mis-detections, swapped sides, another person seen by a camera).
 */
export interface SegmentDefinition {
  name: string;
  from: string;
  to: string;
}

/** The 12 segments the quality report checks: thigh, shank, upper arm, forearm, hindfoot and foot, both sides. */
export const CHECKED_SEGMENTS: readonly SegmentDefinition[] = (['R', 'L'] as const).flatMap((side) => [
  { name: `${side}Thigh`, from: `${side}Hip`, to: `${side}Knee` },
  { name: `${side}Shank`, from: `${side}Knee`, to: `${side}Ankle` },
  { name: `${side}UpperArm`, from: `${side}Shoulder`, to: `${side}Elbow` },
  { name: `${side}Forearm`, from: `${side}Elbow`, to: `${side}Wrist` },
  { name: `${side}Hindfoot`, from: `${side}Ankle`, to: `${side}Heel` },
  { name: `${side}Foot`, from: `${side}Heel`, to: `${side}BigToe` },
]);

export interface SegmentLength {
  name: string;
  /** Mean and standard deviation of the length over the frames where both ends exist, metres. */
  meanM: number;
  sdM: number;
  /** Shortest and longest length over the trial, metres. */
  minM: number;
  maxM: number;
  frames: number;
}

/**
 * Each segment's length statistics over the frames of `positionsM` (frames × keypoints × 3).
 * Segments whose ends are not both among `keypointNames`, or never seen together, are left out.
 */
export function segmentLengths(
  positionsM: Float64Array,
  keypointNames: readonly string[],
  frameCount: number,
  segments: readonly SegmentDefinition[] = CHECKED_SEGMENTS,
): SegmentLength[] {
  const keypointCount = keypointNames.length;
  const result: SegmentLength[] = [];
  for (const segment of segments) {
    const a = keypointNames.indexOf(segment.from);
    const b = keypointNames.indexOf(segment.to);
    if (a < 0 || b < 0) continue;
    let count = 0;
    let sum = 0;
    let sumSquares = 0;
    let minM = Number.POSITIVE_INFINITY;
    let maxM = Number.NEGATIVE_INFINITY;
    for (let frame = 0; frame < frameCount; frame++) {
      const i = (frame * keypointCount + a) * 3;
      const j = (frame * keypointCount + b) * 3;
      const length = Math.hypot(
        positionsM[i] - positionsM[j],
        positionsM[i + 1] - positionsM[j + 1],
        positionsM[i + 2] - positionsM[j + 2],
      );
      if (Number.isNaN(length)) continue;
      count++;
      sum += length;
      sumSquares += length * length;
      minM = Math.min(minM, length);
      maxM = Math.max(maxM, length);
    }
    if (count === 0) continue;
    const meanM = sum / count;
    const sdM = count > 1 ? Math.sqrt(Math.max(0, (sumSquares - count * meanM * meanM) / (count - 1))) : 0;
    result.push({ name: segment.name, meanM, sdM, minM, maxM, frames: count });
  }
  return result;
}
