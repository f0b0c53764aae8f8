import { describe, expect, it } from 'vitest';
import {
  CubicSpline,
  MultiplierFunction,
  NaturalOddSpline,
  PiecewiseLinearFunction,
  PolynomialFunction,
} from '../../src/model/functions.ts';

const cubic = (x: number) => 0.3 * x ** 3 - 0.2 * x ** 2 + 0.5 * x - 0.1;
const cubicSlope = (x: number) => 0.9 * x ** 2 - 0.4 * x + 0.5;

describe('OpenSim joint functions', () => {
  it('SimmSpline reproduces a cubic exactly (its end conditions match third derivatives) and extrapolates linearly', () => {
    const xs = [-2, -1.3, -0.5, 0, 0.4, 1.1, 2];
    const spline = new CubicSpline('SimmSpline', xs, xs.map(cubic));
    for (const x of [-1.9, -0.77, 0.01, 0.9, 1.99]) {
      expect(spline.value(x)).toBeCloseTo(cubic(x), 10);
      expect(spline.derivative(x)).toBeCloseTo(cubicSlope(x), 9);
    }
    expect(spline.value(3)).toBeCloseTo(cubic(2) + cubicSlope(2), 9);
    expect(spline.derivative(-5)).toBeCloseTo(cubicSlope(-2), 9);
  });

  it('two-point splines are straight lines', () => {
    const spline = new CubicSpline('NaturalCubicSpline', [0, 2], [1, 5]);
    expect(spline.value(1)).toBeCloseTo(3, 12);
    expect(spline.derivative(1)).toBeCloseTo(2, 12);
  });

  it('GCVSpline of degree 5 interpolates its points and reproduces a quadratic everywhere', () => {
    const quadratic = (x: number) => 1 - 2 * x + 0.5 * x * x;
    const xs = [0, 0.3, 0.7, 1.2, 1.6, 2.1, 2.5];
    const spline = new NaturalOddSpline(5, xs, xs.map(quadratic));
    for (const x of [...xs, 0.15, 1.4, 2.4, -1, 3.5]) expect(spline.value(x)).toBeCloseTo(quadratic(x), 8);
    const wiggly = xs.map((x) => Math.sin(3 * x));
    const interpolant = new NaturalOddSpline(5, xs, wiggly);
    xs.forEach((x, i) => expect(interpolant.value(x)).toBeCloseTo(wiggly[i], 9));
    const h = 1e-6;
    expect(interpolant.derivative(1.3)).toBeCloseTo(
      (interpolant.value(1.3 + h) - interpolant.value(1.3 - h)) / (2 * h),
      5,
    );
  });

  it('polynomials take coefficients from the highest power down; multipliers scale', () => {
    const polynomial = new PolynomialFunction([2, -1, 3]);
    expect(polynomial.value(2)).toBe(9);
    expect(polynomial.derivative(2)).toBe(7);
    expect(new MultiplierFunction(polynomial, 0.5).value(2)).toBe(4.5);
  });

  it('piecewise linear functions interpolate and extend their end slopes', () => {
    const f = new PiecewiseLinearFunction([0, 1, 3], [0, 2, 3]);
    expect(f.value(0.5)).toBeCloseTo(1, 12);
    expect(f.value(2)).toBeCloseTo(2.5, 12);
    expect(f.value(5)).toBeCloseTo(4, 12);
    expect(f.value(-1)).toBeCloseTo(-2, 12);
    expect(f.derivative(2)).toBeCloseTo(0.5, 12);
  });
});
