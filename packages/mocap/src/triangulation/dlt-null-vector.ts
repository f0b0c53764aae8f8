/**
 * The homogeneous point X (‖X‖ = 1) minimising ‖A·X‖ for a DLT system, from its 4×4 normal matrix
 * M = AᵀA: the eigenvector of M's smallest eigenvalue, i.e. the right singular vector SVD gives.
 *
 * M's smallest eigenvalue is the squared residual (≈ 0) and the others are of the order of the
 * squared rays' weights, so inverse iteration converges at a ratio of (noise/signal)², to machine
 * precision in two steps (Golub & Van Loan, Matrix Computations, §7.6.1). The start is the
 * linear-least-squares point with X₄ = 1 (Hartley & Sturm 1997), itself already close.
 * Allocation-free: works in the caller's 16-element scratch array.
 */
export function dltNullVector(M: Float64Array, scratch: Float64Array, out: Float64Array): boolean {
  // Start: solve M₃₃·x = −m₃ by Cramer's rule.
  const a = M[0],
    b = M[1],
    c = M[2],
    d = M[5],
    e = M[6],
    f = M[10];
  const c00 = d * f - e * e;
  const c01 = c * e - b * f;
  const c02 = b * e - c * d;
  const determinant = a * c00 + b * c01 + c * c02;
  if (!(Math.abs(determinant) > 0)) return false;
  const r0 = -M[3],
    r1 = -M[7],
    r2 = -M[11];
  const c11 = a * f - c * c;
  const c12 = b * c - a * e;
  const c22 = a * d - b * b;
  out[0] = (c00 * r0 + c01 * r1 + c02 * r2) / determinant;
  out[1] = (c01 * r0 + c11 * r1 + c12 * r2) / determinant;
  out[2] = (c02 * r0 + c12 * r1 + c22 * r2) / determinant;
  out[3] = 1;

  // LDLᵀ factorisation of M into scratch (L below the diagonal, D on it). A zero or negative pivot
  // means M is singular to rounding: the start is then the exact solution.
  for (let i = 0; i < 16; i++) scratch[i] = M[i];
  for (let j = 0; j < 4; j++) {
    let pivot = scratch[j * 5];
    for (let k = 0; k < j; k++) pivot -= scratch[j * 4 + k] * scratch[j * 4 + k] * scratch[k * 5];
    if (!(pivot > 0)) return true;
    scratch[j * 5] = pivot;
    for (let i = j + 1; i < 4; i++) {
      let value = scratch[i * 4 + j];
      for (let k = 0; k < j; k++) value -= scratch[i * 4 + k] * scratch[j * 4 + k] * scratch[k * 5];
      scratch[i * 4 + j] = value / pivot;
    }
  }
  for (let iteration = 0; iteration < 2; iteration++) {
    // Solve L·D·Lᵀ·y = out in place, then normalise.
    for (let i = 1; i < 4; i++) for (let k = 0; k < i; k++) out[i] -= scratch[i * 4 + k] * out[k];
    for (let i = 0; i < 4; i++) out[i] /= scratch[i * 5];
    for (let i = 2; i >= 0; i--) for (let k = i + 1; k < 4; k++) out[i] -= scratch[k * 4 + i] * out[k];
    const norm = Math.hypot(out[0], out[1], out[2], out[3]);
    if (!(norm > 0) || !Number.isFinite(norm)) return false;
    for (let i = 0; i < 4; i++) out[i] /= norm;
  }
  return true;
}
