/**
 * The one-argument functions OpenSim uses in CustomJoint transform axes and coordinate couplers,
 * evaluated exactly as OpenSim does (OpenSim/Common/*.cpp): value and first derivative.
 */
export interface KinematicFunction {
  readonly kind: string;
  value(x: number): number;
  derivative(x: number): number;
}

export class ConstantFunction implements KinematicFunction {
  readonly kind = 'Constant';
  constructor(readonly constant: number) {}
  value(): number {
    return this.constant;
  }
  derivative(): number {
    return 0;
  }
}

/** OpenSim LinearFunction: coefficients [slope, intercept]. */
export class LinearFunction implements KinematicFunction {
  readonly kind = 'LinearFunction';
  constructor(
    readonly slope: number,
    readonly intercept: number,
  ) {}
  value(x: number): number {
    return this.slope * x + this.intercept;
  }
  derivative(): number {
    return this.slope;
  }
}

/** OpenSim PolynomialFunction (SimTK::Function::Polynomial): coefficients from the highest power down. */
export class PolynomialFunction implements KinematicFunction {
  readonly kind = 'PolynomialFunction';
  private readonly coefficients: Float64Array;
  constructor(coefficients: number[]) {
    this.coefficients = Float64Array.from(coefficients);
  }
  value(x: number): number {
    let sum = 0;
    for (let i = 0; i < this.coefficients.length; i++) sum = sum * x + this.coefficients[i];
    return sum;
  }
  derivative(x: number): number {
    const c = this.coefficients;
    const degree = c.length - 1;
    let sum = 0;
    for (let i = 0; i < degree; i++) sum = sum * x + c[i] * (degree - i);
    return sum;
  }
}

export class MultiplierFunction implements KinematicFunction {
  readonly kind = 'MultiplierFunction';
  constructor(
    readonly inner: KinematicFunction,
    readonly scale: number,
  ) {}
  value(x: number): number {
    return this.scale * this.inner.value(x);
  }
  derivative(x: number): number {
    return this.scale * this.inner.derivative(x);
  }
}

// SimmMacros.h: MAX(TINY_NUMBER, dx) guards knot spacing, EQUAL_WITHIN_ERROR uses ROUNDOFF_ERROR.
const TINY_NUMBER = 0.0000001;
const ROUNDOFF_ERROR = 0.0000000000002;

/** Index k of the knot interval [x[k], x[k+1]] holding xValue (xValue inside the knot range). */
function findInterval(x: Float64Array, xValue: number): number {
  let low = 0;
  let high = x.length - 1;
  while (high - low > 1) {
    const mid = (low + high) >> 1;
    if (xValue < x[mid]) high = mid;
    else low = mid;
  }
  return low;
}

/**
 * OpenSim's SimmSpline and NaturalCubicSpline (identical code in OpenSim): the cubic spline of
 * Forsythe, Malcolm & Moler ("Computer Methods for Mathematical Computations", 1977), whose end
 * conditions match the third derivative to divided differences of the first/last four points;
 * outside the knots it extrapolates linearly with the end slope.
 */
export class CubicSpline implements KinematicFunction {
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  private readonly b: Float64Array;
  private readonly c: Float64Array;
  private readonly d: Float64Array;

  constructor(
    readonly kind: 'SimmSpline' | 'NaturalCubicSpline',
    xs: number[],
    ys: number[],
  ) {
    if (xs.length < 2 || xs.length !== ys.length) {
      throw new Error(
        `${kind} needs at least 2 points and as many x as y values (got ${xs.length} x, ${ys.length} y).`,
      );
    }
    this.x = Float64Array.from(xs);
    this.y = Float64Array.from(ys);
    const n = xs.length;
    const x = this.x;
    const y = this.y;
    const b = (this.b = new Float64Array(n));
    const c = (this.c = new Float64Array(n));
    const d = (this.d = new Float64Array(n));
    if (n === 2) {
      const t = Math.max(TINY_NUMBER, x[1] - x[0]);
      b[0] = b[1] = (y[1] - y[0]) / t;
      return;
    }
    const nm1 = n - 1;
    const nm2 = n - 2;
    // Tridiagonal system: b diagonal, d off-diagonal, c right-hand side.
    d[0] = Math.max(TINY_NUMBER, x[1] - x[0]);
    c[1] = (y[1] - y[0]) / d[0];
    for (let i = 1; i < nm1; i++) {
      d[i] = Math.max(TINY_NUMBER, x[i + 1] - x[i]);
      b[i] = 2 * (d[i - 1] + d[i]);
      c[i + 1] = (y[i + 1] - y[i]) / d[i];
      c[i] = c[i + 1] - c[i];
    }
    b[0] = -d[0];
    b[nm1] = -d[nm2];
    c[0] = 0;
    c[nm1] = 0;
    if (n > 3) {
      const d31 = Math.max(TINY_NUMBER, x[3] - x[1]);
      const d20 = Math.max(TINY_NUMBER, x[2] - x[0]);
      const d1 = Math.max(TINY_NUMBER, x[nm1] - x[n - 3]);
      const d2 = Math.max(TINY_NUMBER, x[nm2] - x[n - 4]);
      const d30 = Math.max(TINY_NUMBER, x[3] - x[0]);
      const d3 = Math.max(TINY_NUMBER, x[nm1] - x[n - 4]);
      c[0] = ((c[2] / d31 - c[1] / d20) * d[0] * d[0]) / d30;
      c[nm1] = (-(c[nm2] / d1 - c[n - 3] / d2) * d[nm2] * d[nm2]) / d3;
    }
    for (let i = 1; i < n; i++) {
      const t = d[i - 1] / b[i - 1];
      b[i] -= t * d[i - 1];
      c[i] -= t * c[i - 1];
    }
    c[nm1] /= b[nm1];
    for (let i = nm2; i >= 0; i--) c[i] = (c[i] - d[i] * c[i + 1]) / b[i];
    b[nm1] = (y[nm1] - y[nm2]) / d[nm2] + d[nm2] * (c[nm2] + 2 * c[nm1]);
    for (let i = 0; i < nm1; i++) {
      b[i] = (y[i + 1] - y[i]) / d[i] - d[i] * (c[i + 1] + 2 * c[i]);
      d[i] = (c[i + 1] - c[i]) / d[i];
      c[i] *= 3;
    }
    c[nm1] *= 3;
    d[nm1] = d[nm2];
  }

  value(xValue: number): number {
    const { x, y, b, c, d } = this;
    const n = x.length;
    if (xValue < x[0]) return y[0] + (xValue - x[0]) * b[0];
    if (xValue > x[n - 1]) return y[n - 1] + (xValue - x[n - 1]) * b[n - 1];
    if (Math.abs(xValue - x[0]) <= ROUNDOFF_ERROR) return y[0];
    if (Math.abs(xValue - x[n - 1]) <= ROUNDOFF_ERROR) return y[n - 1];
    const k = n < 3 ? 0 : findInterval(x, xValue);
    const dx = xValue - x[k];
    return y[k] + dx * (b[k] + dx * (c[k] + dx * d[k]));
  }

  derivative(xValue: number): number {
    const { x, b, c, d } = this;
    const n = x.length;
    if (xValue < x[0]) return b[0];
    if (xValue > x[n - 1]) return b[n - 1];
    if (Math.abs(xValue - x[0]) <= ROUNDOFF_ERROR) return b[0];
    if (Math.abs(xValue - x[n - 1]) <= ROUNDOFF_ERROR) return b[n - 1];
    const k = n < 3 ? 0 : findInterval(x, xValue);
    const dx = xValue - x[k];
    return b[k] + dx * (2 * c[k] + 3 * dx * d[k]);
  }
}

/** OpenSim PiecewiseLinearFunction: straight segments between points, end slopes extended outside. */
export class PiecewiseLinearFunction implements KinematicFunction {
  readonly kind = 'PiecewiseLinearFunction';
  private readonly x: Float64Array;
  private readonly y: Float64Array;
  private readonly slope: Float64Array;
  constructor(xs: number[], ys: number[]) {
    if (xs.length < 2 || xs.length !== ys.length) {
      throw new Error(
        `PiecewiseLinearFunction needs at least 2 points and as many x as y values (got ${xs.length} x, ${ys.length} y).`,
      );
    }
    this.x = Float64Array.from(xs);
    this.y = Float64Array.from(ys);
    const n = xs.length;
    this.slope = new Float64Array(n);
    for (let i = 0; i < n - 1; i++) this.slope[i] = (ys[i + 1] - ys[i]) / Math.max(TINY_NUMBER, xs[i + 1] - xs[i]);
    this.slope[n - 1] = this.slope[n - 2];
  }
  private segment(xValue: number): number {
    const n = this.x.length;
    if (xValue < this.x[0]) return 0;
    if (xValue >= this.x[n - 1]) return n - 1;
    return findInterval(this.x, xValue);
  }
  value(xValue: number): number {
    const k = this.segment(xValue);
    return this.y[k] + (xValue - this.x[k]) * this.slope[k];
  }
  derivative(xValue: number): number {
    return this.slope[this.segment(xValue)];
  }
}

/**
 * OpenSim GCVSpline with zero smoothing: the interpolating natural spline of odd degree 2m-1
 * (Woltring's GCVSPL, used through SimTK::SplineFitter), written as a polynomial of degree m-1
 * plus truncated powers, sum a_i (x - x_i)_+^(2m-1) with sum a_i x_i^k = 0 for k < m; outside
 * the knots it is the polynomial of degree m-1 that natural splines continue as.
 */
export class NaturalOddSpline implements KinematicFunction {
  readonly kind = 'GCVSpline';
  private readonly knots: Float64Array;
  private readonly weights: Float64Array;
  private readonly polynomial: Float64Array;
  private readonly power: number;

  constructor(degree: number, xs: number[], ys: number[]) {
    if (degree % 2 !== 1 || degree < 1 || degree > 7)
      throw new Error(`GCVSpline degree must be 1, 3, 5 or 7 (got ${degree}).`);
    const m = (degree + 1) / 2;
    const n = xs.length;
    if (n < m || n !== ys.length)
      throw new Error(`GCVSpline of degree ${degree} needs at least ${m} points and as many x as y values.`);
    this.power = degree;
    this.knots = Float64Array.from(xs);
    // Unknowns: a_0..a_{n-1}, p_0..p_{m-1}; rows: interpolation (n), moment conditions (m).
    const size = n + m;
    const matrix = new Float64Array(size * size);
    const rhs = new Float64Array(size);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) matrix[i * size + j] = xs[i] > xs[j] ? (xs[i] - xs[j]) ** degree : 0;
      for (let k = 0; k < m; k++) matrix[i * size + n + k] = xs[i] ** k;
      rhs[i] = ys[i];
    }
    for (let k = 0; k < m; k++) for (let j = 0; j < n; j++) matrix[(n + k) * size + j] = xs[j] ** k;
    const solution = solveDense(matrix, rhs, size);
    this.weights = solution.slice(0, n);
    this.polynomial = solution.slice(n);
  }

  value(x: number): number {
    let sum = 0;
    for (let k = this.polynomial.length - 1; k >= 0; k--) sum = sum * x + this.polynomial[k];
    for (let i = 0; i < this.knots.length; i++)
      if (x > this.knots[i]) sum += this.weights[i] * (x - this.knots[i]) ** this.power;
    return sum;
  }

  derivative(x: number): number {
    let sum = 0;
    for (let k = this.polynomial.length - 1; k >= 1; k--) sum = sum * x + k * this.polynomial[k];
    for (let i = 0; i < this.knots.length; i++) {
      if (x > this.knots[i]) sum += this.power * this.weights[i] * (x - this.knots[i]) ** (this.power - 1);
    }
    return sum;
  }
}

/** Gaussian elimination with partial pivoting (small systems built once at model load). */
function solveDense(matrix: Float64Array, rhs: Float64Array, size: number): Float64Array {
  const a = Float64Array.from(matrix);
  const b = Float64Array.from(rhs);
  for (let col = 0; col < size; col++) {
    let pivot = col;
    for (let row = col + 1; row < size; row++)
      if (Math.abs(a[row * size + col]) > Math.abs(a[pivot * size + col])) pivot = row;
    if (a[pivot * size + col] === 0) throw new Error('GCVSpline points are degenerate (repeated x values?).');
    if (pivot !== col) {
      for (let k = 0; k < size; k++)
        [a[col * size + k], a[pivot * size + k]] = [a[pivot * size + k], a[col * size + k]];
      [b[col], b[pivot]] = [b[pivot], b[col]];
    }
    for (let row = col + 1; row < size; row++) {
      const factor = a[row * size + col] / a[col * size + col];
      if (factor === 0) continue;
      for (let k = col; k < size; k++) a[row * size + k] -= factor * a[col * size + k];
      b[row] -= factor * b[col];
    }
  }
  const x = new Float64Array(size);
  for (let row = size - 1; row >= 0; row--) {
    let sum = b[row];
    for (let k = row + 1; k < size; k++) sum -= a[row * size + k] * x[k];
    x[row] = sum / a[row * size + row];
  }
  return x;
}
