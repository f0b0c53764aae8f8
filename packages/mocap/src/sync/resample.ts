/**
 * Linear interpolation of a sampled signal (NaN where missing) at arbitrary times on the same clock;
 * NaN outside the samples or where either neighbour is missing. `timesS` must increase; queries are
 * fastest in increasing order.
 */
export function resampleAt(timesS: Float64Array, values: Float64Array, atS: Float64Array): Float64Array {
  const out = new Float64Array(atS.length).fill(Number.NaN);
  const n = timesS.length;
  if (n === 0) return out;
  let k = 0;
  for (let j = 0; j < atS.length; j++) {
    const t = atS[j];
    if (!(t >= timesS[0] && t <= timesS[n - 1])) continue;
    if (n === 1) {
      out[j] = values[0];
      continue;
    }
    if (timesS[k] > t) k = 0;
    while (k + 2 < n && timesS[k + 1] <= t) k++;
    const t0 = timesS[k];
    const t1 = timesS[k + 1];
    const fraction = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
    out[j] =
      fraction === 0 ? values[k] : fraction === 1 ? values[k + 1] : values[k] + (values[k + 1] - values[k]) * fraction;
  }
  return out;
}
