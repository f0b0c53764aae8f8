/**
 * Fills short gaps in 3D trajectories (frames × points × 3, NaN where missing) with a
 * shape-preserving piecewise cubic (PCHIP: Fritsch & Carlson, SIAM J. Numer. Anal. 17(2), 1980, with
 * SciPy's PchipInterpolator derivatives) through every valid sample of that coordinate. Only interior
 * gaps of at most `maxGapFrames` frames are filled: longer gaps, and missing frames at the start or
 * end, are left missing rather than invented. Shape-preserving rather than the natural spline Pose2Sim
 * uses: with two cameras, gaps come many and long with lone samples between them, and a spline
 * through those swings half a metre away between two foot positions a few centimetres apart, where
 * PCHIP stays between the samples on either side of the gap.
 */
export function fillShortGaps(
  positions: Float64Array,
  frameCount: number,
  pointCount: number,
  maxGapFrames: number,
): { filled: Float64Array; filledFrames: number } {
  const filled = new Float64Array(positions);
  if (maxGapFrames < 1 || frameCount < 3) return { filled, filledFrames: 0 };
  const stride = pointCount * 3;
  const knotFrames = new Float64Array(frameCount);
  const knotValues = new Float64Array(frameCount);
  const derivatives = new Float64Array(frameCount);
  let filledFrames = 0;

  for (let point = 0; point < pointCount; point++) {
    const xChannel = point * 3;
    if (!hasFillableGap(positions, frameCount, stride, xChannel, maxGapFrames)) continue;
    for (let axis = 0; axis < 3; axis++) {
      const channel = xChannel + axis;
      let knotCount = 0;
      for (let frame = 0; frame < frameCount; frame++) {
        const value = positions[frame * stride + channel];
        if (Number.isNaN(value)) continue;
        knotFrames[knotCount] = frame;
        knotValues[knotCount] = value;
        knotCount++;
      }
      if (knotCount < 2) continue;
      pchipDerivatives(knotFrames, knotValues, knotCount, derivatives);
      for (let k = 0; k + 1 < knotCount; k++) {
        const gap = knotFrames[k + 1] - knotFrames[k] - 1;
        if (gap < 1 || gap > maxGapFrames) continue;
        for (let frame = knotFrames[k] + 1; frame < knotFrames[k + 1]; frame++) {
          filled[frame * stride + channel] = evaluateHermite(knotFrames, knotValues, derivatives, k, frame);
          if (axis === 0) filledFrames++;
        }
      }
    }
  }
  return { filled, filledFrames };
}

function hasFillableGap(
  positions: Float64Array,
  frameCount: number,
  stride: number,
  channel: number,
  maxGapFrames: number,
): boolean {
  let lastValid = -1;
  for (let frame = 0; frame < frameCount; frame++) {
    if (Number.isNaN(positions[frame * stride + channel])) continue;
    const gap = frame - lastValid - 1;
    if (lastValid >= 0 && gap >= 1 && gap <= maxGapFrames) return true;
    lastValid = frame;
  }
  return false;
}

/**
 * PCHIP's derivative at each knot (SciPy's PchipInterpolator): 0 where the slopes on either side
 * differ in sign (a local extremum stays at the knot), else their weighted harmonic mean; at the ends,
 * the one-sided three-point estimate kept to the shape of the data.
 */
function pchipDerivatives(t: Float64Array, y: Float64Array, n: number, d: Float64Array): void {
  const slope = (k: number) => (y[k + 1] - y[k]) / (t[k + 1] - t[k]);
  const width = (k: number) => t[k + 1] - t[k];
  if (n === 2) {
    d[0] = d[1] = slope(0);
    return;
  }
  for (let k = 1; k < n - 1; k++) {
    const [before, after] = [slope(k - 1), slope(k)];
    if (before === 0 || after === 0 || Math.sign(before) !== Math.sign(after)) {
      d[k] = 0;
      continue;
    }
    const w1 = 2 * width(k) + width(k - 1);
    const w2 = width(k) + 2 * width(k - 1);
    d[k] = (w1 + w2) / (w1 / before + w2 / after);
  }
  d[0] = endDerivative(width(0), width(1), slope(0), slope(1));
  d[n - 1] = endDerivative(width(n - 2), width(n - 3), slope(n - 2), slope(n - 3));
}

function endDerivative(h0: number, h1: number, m0: number, m1: number): number {
  const d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
  if (Math.sign(d) !== Math.sign(m0)) return 0;
  if (Math.sign(m0) !== Math.sign(m1) && Math.abs(d) > 3 * Math.abs(m0)) return 3 * m0;
  return d;
}

/** The cubic Hermite between knots k and k+1 at `at`. */
function evaluateHermite(t: Float64Array, y: Float64Array, d: Float64Array, k: number, at: number): number {
  const h = t[k + 1] - t[k];
  const s = (at - t[k]) / h;
  const s2 = s * s;
  const s3 = s2 * s;
  return (
    (2 * s3 - 3 * s2 + 1) * y[k] +
    (s3 - 2 * s2 + s) * h * d[k] +
    (-2 * s3 + 3 * s2) * y[k + 1] +
    (s3 - s2) * h * d[k + 1]
  );
}
