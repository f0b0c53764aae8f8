/**
 * The points people are told apart by across cameras, chosen so that they do not depend on which
 * side a view calls left: each keypoint without a side as it is, each left/right pair by the
 * midpoint of its two keypoints. A pose model sometimes has a person's sides the wrong way round in
 * one view (on the multi-person demo, cam02 in 28 of 100 frames); compared keypoint by keypoint
 * that view disagrees with the others by 200 px, by its midpoints it agrees within 25 px. The
 * midpoint of two projections is not quite the projection of the midpoint (perspective), a
 * difference of a few pixels that does not matter for telling people apart.
 */
export interface AssociationPoint {
  /** Keypoint indices; equal for a keypoint without a side. */
  first: number;
  second: number;
}

export function associationPoints(keypointNames: readonly string[]): AssociationPoint[] {
  const points: AssociationPoint[] = [];
  keypointNames.forEach((name, index) => {
    const side = /^[LR][A-Z]/.test(name) ? name[0] : null;
    if (!side) return points.push({ first: index, second: index });
    if (side === 'R') return;
    const other = keypointNames.indexOf(`R${name.slice(1)}`);
    // A left keypoint without its right one stands alone (it cannot be swapped with anything).
    points.push({ first: index, second: other >= 0 ? other : index });
  });
  keypointNames.forEach((name, index) => {
    if (/^R[A-Z]/.test(name) && !keypointNames.includes(`L${name.slice(1)}`))
      points.push({ first: index, second: index });
  });
  return points;
}

/**
 * One view's association points (frames × points × 3: x px, y px, confidence, the lower of the
 * pair's; NaN where either is missing or below `minConfidence`) and the person's size in the view
 * per frame (the longer side of the box around the confident keypoints, px; NaN when none).
 */
export function associationObservations(
  observations: Float32Array,
  frameCount: number,
  keypointCount: number,
  points: readonly AssociationPoint[],
  minConfidence: number,
): { observations: Float32Array; sizePx: Float32Array } {
  const out = new Float32Array(frameCount * points.length * 3).fill(Number.NaN);
  const sizePx = new Float32Array(frameCount).fill(Number.NaN);
  const usable = (i: number) =>
    observations[i + 2] >= minConfidence && !Number.isNaN(observations[i]) && !Number.isNaN(observations[i + 1]);
  for (let frame = 0; frame < frameCount; frame++) {
    const base = frame * keypointCount * 3;
    let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = base; i < base + keypointCount * 3; i += 3) {
      if (!usable(i)) continue;
      left = Math.min(left, observations[i]);
      right = Math.max(right, observations[i]);
      top = Math.min(top, observations[i + 1]);
      bottom = Math.max(bottom, observations[i + 1]);
    }
    if (right >= left) sizePx[frame] = Math.max(right - left, bottom - top, 1);
    points.forEach((point, p) => {
      const a = base + point.first * 3;
      const b = base + point.second * 3;
      if (!usable(a) || !usable(b)) return;
      const o = (frame * points.length + p) * 3;
      out[o] = (observations[a] + observations[b]) / 2;
      out[o + 1] = (observations[a + 1] + observations[b + 1]) / 2;
      out[o + 2] = Math.min(observations[a + 2], observations[b + 2]);
    });
  }
  return { observations: out, sizePx };
}
