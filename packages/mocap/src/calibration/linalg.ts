/** Small dense linear algebra for calibration: row-major number arrays, sizes up to ~10. */

/** Eigen-decomposition of a symmetric n x n matrix by cyclic Jacobi rotations. Eigenvalues ascending. */
export function symmetricEigen(matrix: ArrayLike<number>, n: number): { values: number[]; vectors: number[][] } {
  const a = Array.from(matrix);
  const v = new Array<number>(n * n).fill(0);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => a[i * n + i] - a[j * n + j]);
  return {
    values: order.map((i) => a[i * n + i]),
    vectors: order.map((i) => Array.from({ length: n }, (_, k) => v[k * n + i])),
  };
}

/** Solves A x = b (n x n, row-major) by Gaussian elimination with partial pivoting; null if singular. */
export function solveLinear(A: ArrayLike<number>, b: ArrayLike<number>, n: number): number[] | null {
  const m = Array.from(A);
  const x = Array.from(b);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r * n + col]) > Math.abs(m[pivot * n + col])) pivot = r;
    if (Math.abs(m[pivot * n + col]) < 1e-14) return null;
    if (pivot !== col) {
      for (let k = 0; k < n; k++) [m[col * n + k], m[pivot * n + k]] = [m[pivot * n + k], m[col * n + k]];
      [x[col], x[pivot]] = [x[pivot], x[col]];
    }
    for (let r = col + 1; r < n; r++) {
      const f = m[r * n + col] / m[col * n + col];
      if (f === 0) continue;
      for (let k = col; k < n; k++) m[r * n + k] -= f * m[col * n + k];
      x[r] -= f * x[col];
    }
  }
  for (let r = n - 1; r >= 0; r--) {
    let acc = x[r];
    for (let k = r + 1; k < n; k++) acc -= m[r * n + k] * x[k];
    x[r] = acc / m[r * n + r];
  }
  return x;
}

/** Similarity transform that moves points to zero mean and mean distance √2 (Hartley normalisation). */
function normaliser(points: ArrayLike<number>, count: number): number[] {
  let mx = 0;
  let my = 0;
  for (let i = 0; i < count; i++) {
    mx += points[2 * i];
    my += points[2 * i + 1];
  }
  mx /= count;
  my /= count;
  let d = 0;
  for (let i = 0; i < count; i++) d += Math.hypot(points[2 * i] - mx, points[2 * i + 1] - my);
  d /= count;
  const s = d > 0 ? Math.SQRT2 / d : 1;
  return [s, 0, -s * mx, 0, s, -s * my, 0, 0, 1];
}

export function multiply3(a: ArrayLike<number>, b: ArrayLike<number>): number[] {
  const out = new Array<number>(9);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) out[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j];
  return out;
}

export function invert3(m: ArrayLike<number>): number[] | null {
  const [a, b, c, d, e, f, g, h, i] = Array.from(m);
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  if (Math.abs(det) < 1e-300) return null;
  return [
    A,
    -(b * i - c * h),
    b * f - c * e,
    B,
    a * i - c * g,
    -(a * f - c * d),
    C,
    -(a * h - b * g),
    a * e - b * d,
  ].map((v) => v / det);
}

export function transpose3(m: ArrayLike<number>): number[] {
  return [m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]];
}

/**
 * Homography H (row-major 3x3, H[8] = 1) with dst ≈ H · src, by the normalised DLT on n ≥ 4
 * correspondences (points as flat [x0, y0, x1, y1, ...]). Null when degenerate.
 */
export function fitHomography(src: ArrayLike<number>, dst: ArrayLike<number>, count: number): number[] | null {
  if (count < 4) return null;
  const ts = normaliser(src, count);
  const td = normaliser(dst, count);
  const ata = new Float64Array(81);
  const row = new Float64Array(9);
  const accumulate = () => {
    for (let i = 0; i < 9; i++) {
      if (row[i] === 0) continue;
      for (let j = 0; j < 9; j++) ata[i * 9 + j] += row[i] * row[j];
    }
  };
  for (let k = 0; k < count; k++) {
    const x = ts[0] * src[2 * k] + ts[2];
    const y = ts[4] * src[2 * k + 1] + ts[5];
    const u = td[0] * dst[2 * k] + td[2];
    const v = td[4] * dst[2 * k + 1] + td[5];
    row.set([x, y, 1, 0, 0, 0, -u * x, -u * y, -u]);
    accumulate();
    row.set([0, 0, 0, x, y, 1, -v * x, -v * y, -v]);
    accumulate();
  }
  const { vectors } = symmetricEigen(ata, 9);
  const hn = vectors[0];
  const tdInv = invert3(td);
  if (!tdInv) return null;
  const h = multiply3(multiply3(tdInv, hn), ts);
  if (Math.abs(h[8]) < 1e-15) return null;
  return h.map((v) => v / h[8]);
}

export function applyHomography(h: ArrayLike<number>, x: number, y: number): [number, number] {
  const w = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w];
}

/** Rotation matrix (row-major) from a Rodrigues vector. */
export function rodriguesToMatrix(r: ArrayLike<number>): number[] {
  const theta = Math.hypot(r[0], r[1], r[2]);
  if (theta < 1e-12) return [1, -r[2], r[1], r[2], 1, -r[0], -r[1], r[0], 1];
  const [kx, ky, kz] = [r[0] / theta, r[1] / theta, r[2] / theta];
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  const v = 1 - c;
  return [
    c + kx * kx * v,
    kx * ky * v - kz * s,
    kx * kz * v + ky * s,
    ky * kx * v + kz * s,
    c + ky * ky * v,
    ky * kz * v - kx * s,
    kz * kx * v - ky * s,
    kz * ky * v + kx * s,
    c + kz * kz * v,
  ];
}

/** Rodrigues vector of a rotation matrix (row-major). */
export function matrixToRodrigues(R: ArrayLike<number>): [number, number, number] {
  const trace = R[0] + R[4] + R[8];
  const cos = Math.min(1, Math.max(-1, (trace - 1) / 2));
  const theta = Math.acos(cos);
  if (theta < 1e-9) return [(R[7] - R[5]) / 2, (R[2] - R[6]) / 2, (R[3] - R[1]) / 2];
  if (Math.PI - theta < 1e-5) {
    // Near π: axis from the diagonal.
    const xx = Math.sqrt(Math.max(0, (R[0] + 1) / 2));
    const yy = Math.sqrt(Math.max(0, (R[4] + 1) / 2));
    const zz = Math.sqrt(Math.max(0, (R[8] + 1) / 2));
    let axis: [number, number, number];
    if (xx >= yy && xx >= zz) axis = [xx, (R[1] + R[3]) / (4 * xx), (R[2] + R[6]) / (4 * xx)];
    else if (yy >= zz) axis = [(R[1] + R[3]) / (4 * yy), yy, (R[5] + R[7]) / (4 * yy)];
    else axis = [(R[2] + R[6]) / (4 * zz), (R[5] + R[7]) / (4 * zz), zz];
    const n = Math.hypot(...axis);
    return [(axis[0] / n) * theta, (axis[1] / n) * theta, (axis[2] / n) * theta];
  }
  const k = theta / (2 * Math.sin(theta));
  return [(R[7] - R[5]) * k, (R[2] - R[6]) * k, (R[3] - R[1]) * k];
}
