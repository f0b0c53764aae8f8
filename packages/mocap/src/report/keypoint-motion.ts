/**
 * Frame-to-frame displacement of one keypoint over a trial (frames × keypoints × 3, metres):
 * its largest and median jump between consecutive frames where it exists. A keypoint cannot move
 * far in one frame (an ankle does not cover 0.7 m in 17 ms), so the largest jump shows mis-detections
 * that survived, and the median the keypoint's jitter (for a foot standing still).
 */
export interface FrameMotion {
  largestJumpM: number;
  medianJumpM: number;
}

export function frameMotion(
  positionsM: Float64Array,
  keypointCount: number,
  keypoint: number,
  frameCount: number,
): FrameMotion | null {
  const jumps: number[] = [];
  for (let frame = 1; frame < frameCount; frame++) {
    const at = (frame * keypointCount + keypoint) * 3;
    const before = at - keypointCount * 3;
    const jump = Math.hypot(
      positionsM[at] - positionsM[before],
      positionsM[at + 1] - positionsM[before + 1],
      positionsM[at + 2] - positionsM[before + 2],
    );
    if (!Number.isNaN(jump)) jumps.push(jump);
  }
  if (jumps.length === 0) return null;
  jumps.sort((a, b) => a - b);
  return { largestJumpM: jumps[jumps.length - 1], medianJumpM: jumps[jumps.length >> 1] };
}
