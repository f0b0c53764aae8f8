/**
 * 3x3 rotation matrices stored row-major in 9 consecutive numbers of a Float64Array, so the
 * kinematic loops can keep every body's pose in one flat buffer without allocating.
 */

/** out = rotation of `angleRad` about the unit axis (x, y, z) (Rodrigues' formula). */
export function setAxisAngle(out: Float64Array, o: number, x: number, y: number, z: number, angleRad: number): void {
  const c = Math.cos(angleRad);
  const s = Math.sin(angleRad);
  const t = 1 - c;
  out[o] = t * x * x + c;
  out[o + 1] = t * x * y - s * z;
  out[o + 2] = t * x * z + s * y;
  out[o + 3] = t * x * y + s * z;
  out[o + 4] = t * y * y + c;
  out[o + 5] = t * y * z - s * x;
  out[o + 6] = t * x * z - s * y;
  out[o + 7] = t * y * z + s * x;
  out[o + 8] = t * z * z + c;
}

/** out = a * b (3x3), all row-major at the given offsets; out may not alias a or b. */
export function multiply(out: Float64Array, o: number, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  for (let i = 0; i < 3; i++) {
    const a0 = a[ao + 3 * i];
    const a1 = a[ao + 3 * i + 1];
    const a2 = a[ao + 3 * i + 2];
    out[o + 3 * i] = a0 * b[bo] + a1 * b[bo + 3] + a2 * b[bo + 6];
    out[o + 3 * i + 1] = a0 * b[bo + 1] + a1 * b[bo + 4] + a2 * b[bo + 7];
    out[o + 3 * i + 2] = a0 * b[bo + 2] + a1 * b[bo + 5] + a2 * b[bo + 8];
  }
}

/** Rotation from body-fixed (intrinsic) X-Y-Z angles: R = Rx(a) * Ry(b) * Rz(c), as OpenSim's orientations. */
export function bodyFixedXyzToMatrix(anglesRad: ArrayLike<number>): Float64Array {
  const [a, b, c] = [anglesRad[0], anglesRad[1], anglesRad[2]];
  const rx = new Float64Array(9);
  const ry = new Float64Array(9);
  const rz = new Float64Array(9);
  setAxisAngle(rx, 0, 1, 0, 0, a);
  setAxisAngle(ry, 0, 0, 1, 0, b);
  setAxisAngle(rz, 0, 0, 0, 1, c);
  const rxy = new Float64Array(9);
  const out = new Float64Array(9);
  multiply(rxy, 0, rx, 0, ry, 0);
  multiply(out, 0, rxy, 0, rz, 0);
  return out;
}

/**
 * Body-fixed X-Y-Z angles of a rotation (Simbody's convertRotationToBodyFixedXYZ): R = Rx(a) Ry(b) Rz(c).
 * Writes the three angles to out[o..o+2].
 */
export function matrixToBodyFixedXyz(r: Float64Array, ro: number, out: Float64Array | number[], o: number): void {
  // R[0][2] = sin(b); R[1][2] = -sin(a)cos(b); R[2][2] = cos(a)cos(b); R[0][1] = -cos(b)sin(c); R[0][0] = cos(b)cos(c).
  const sinB = r[ro + 2];
  const cosB = Math.hypot(r[ro + 5], r[ro + 8]);
  out[o + 1] = Math.atan2(sinB, cosB);
  if (cosB > 1e-12) {
    out[o] = Math.atan2(-r[ro + 5], r[ro + 8]);
    out[o + 2] = Math.atan2(-r[ro + 1], r[ro]);
  } else {
    // Gimbal lock: only a +/- c is defined; put it all in a.
    out[o] = Math.atan2(r[ro + 7], r[ro + 4]);
    out[o + 2] = 0;
  }
}
