/**
 * Normalised (Pearson) cross-correlation of two signals sampled on the same grid, with NaN marking
 * missing samples: at each lag, the correlation over the samples both signals have. correlation[m + maxLag]
 * compares reference[j] with other[j − m], i.e. positive lags mean the other signal is late.
 * Lags whose overlap is shorter than `minOverlapSamples` get NaN.
 */
export function crossCorrelate(
  reference: Float64Array,
  other: Float64Array,
  maxLagSamples: number,
  minOverlapSamples: number,
): Float64Array {
  const correlation = new Float64Array(2 * maxLagSamples + 1).fill(Number.NaN);
  const n = reference.length;
  for (let lag = -maxLagSamples; lag <= maxLagSamples; lag++) {
    let count = 0;
    let sumA = 0;
    let sumB = 0;
    let sumAA = 0;
    let sumBB = 0;
    let sumAB = 0;
    const start = Math.max(0, lag);
    const end = Math.min(n, other.length + lag);
    for (let j = start; j < end; j++) {
      const a = reference[j];
      const b = other[j - lag];
      if (Number.isNaN(a) || Number.isNaN(b)) continue;
      count++;
      sumA += a;
      sumB += b;
      sumAA += a * a;
      sumBB += b * b;
      sumAB += a * b;
    }
    if (count < minOverlapSamples) continue;
    const covariance = sumAB - (sumA * sumB) / count;
    const varianceA = sumAA - (sumA * sumA) / count;
    const varianceB = sumBB - (sumB * sumB) / count;
    if (!(varianceA > 0) || !(varianceB > 0)) continue;
    correlation[lag + maxLagSamples] = covariance / Math.sqrt(varianceA * varianceB);
  }
  return correlation;
}

export interface CorrelationPeak {
  /** Sub-sample lag of the peak (parabolic interpolation of the three samples around it). */
  lagSamples: number;
  correlation: number;
}

/** Local maxima of a correlation curve, best first, each refined to a sub-sample lag. */
export function correlationPeaks(correlation: Float64Array, maxLagSamples: number): CorrelationPeak[] {
  const peaks: CorrelationPeak[] = [];
  for (let i = 0; i < correlation.length; i++) {
    const value = correlation[i];
    if (Number.isNaN(value)) continue;
    const before = i > 0 ? correlation[i - 1] : Number.NaN;
    const after = i + 1 < correlation.length ? correlation[i + 1] : Number.NaN;
    if (!(Number.isNaN(before) || value >= before) || !(Number.isNaN(after) || value > after)) continue;
    let offset = 0;
    let peakValue = value;
    if (!Number.isNaN(before) && !Number.isNaN(after)) {
      const curvature = before - 2 * value + after;
      if (curvature < 0) {
        offset = (0.5 * (before - after)) / curvature;
        peakValue = value - 0.25 * (before - after) * offset;
      }
    }
    peaks.push({ lagSamples: i - maxLagSamples + offset, correlation: peakValue });
  }
  return peaks.sort((a, b) => b.correlation - a.correlation);
}
