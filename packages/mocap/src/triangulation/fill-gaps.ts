/**
 * Fills short gaps in 3D trajectories (frames × points × 3, NaN where missing) with a natural cubic
 * spline through every valid sample of that coordinate, as Pose2Sim does with a cubic interpolation
 * limited to short gaps. Only interior gaps of at most `maxGapFrames` frames are filled: longer
 * gaps, and missing frames at the start or end, are left missing rather than invented.
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
  const secondDerivatives = new Float64Array(frameCount);
  const work = new Float64Array(frameCount);
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
      naturalSplineSecondDerivatives(knotFrames, knotValues, knotCount, secondDerivatives, work);
      for (let k = 0; k + 1 < knotCount; k++) {
        const gap = knotFrames[k + 1] - knotFrames[k] - 1;
        if (gap < 1 || gap > maxGapFrames) continue;
        for (let frame = knotFrames[k] + 1; frame < knotFrames[k + 1]; frame++) {
          filled[frame * stride + channel] = evaluateSpline(knotFrames, knotValues, secondDerivatives, k, frame);
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

/** Second derivatives of the natural cubic spline through (t, y) by the tridiagonal (Thomas) solve. */
function naturalSplineSecondDerivatives(
  t: Float64Array,
  y: Float64Array,
  n: number,
  m: Float64Array,
  work: Float64Array,
): void {
  m[0] = 0;
  m[n - 1] = 0;
  work[0] = 0;
  // Forward sweep of h_{i-1} m_{i-1} + 2(h_{i-1} + h_i) m_i + h_i m_{i+1} = 6 (slope_i − slope_{i-1}).
  for (let i = 1; i < n - 1; i++) {
    const hPrev = t[i] - t[i - 1];
    const h = t[i + 1] - t[i];
    const rhs = 6 * ((y[i + 1] - y[i]) / h - (y[i] - y[i - 1]) / hPrev);
    const diagonal = 2 * (hPrev + h) - hPrev * work[i - 1];
    work[i] = h / diagonal;
    m[i] = (rhs - hPrev * m[i - 1]) / diagonal;
  }
  for (let i = n - 2; i >= 1; i--) m[i] -= work[i] * m[i + 1];
}

function evaluateSpline(t: Float64Array, y: Float64Array, m: Float64Array, k: number, at: number): number {
  const h = t[k + 1] - t[k];
  const a = (t[k + 1] - at) / h;
  const b = (at - t[k]) / h;
  return a * y[k] + b * y[k + 1] + (((a * a * a - a) * m[k] + (b * b * b - b) * m[k + 1]) * (h * h)) / 6;
}
