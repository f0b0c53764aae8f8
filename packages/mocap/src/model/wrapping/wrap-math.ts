import type { Vec3 } from '../osim-model.ts';

/**
 * The vector helpers of OpenSim's muscle wrapping (OpenSim/Simulation/Wrap/WrapMath.cpp), with the
 * same conventions (parameters along a segment run 0..1 from its first point) and tolerances, so
 * the wrap objects built on them take the same decisions as OpenSim's.
 */

/** SimmMacros.h ROUNDOFF_ERROR, used by EQUAL_WITHIN_ERROR. */
const ROUNDOFF_ERROR = 0.0000000000002;
/** WrapMath.cpp LINE_EPSILON. */
const LINE_EPSILON = 0.00001;
/** SimTK::Eps for doubles: below this length a vector normalises to zero. */
const EPS = Number.EPSILON;

export const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const scale = (a: Vec3, s: number): Vec3 => [a[0] * s, a[1] * s, a[2] * s];
export const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
export const norm = (a: Vec3): number => Math.hypot(a[0], a[1], a[2]);
export const distanceSquared = (a: Vec3, b: Vec3): number =>
  (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2;
/** a + s b */
export const addScaled = (a: Vec3, b: Vec3, s: number): Vec3 => [a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]];

/** The unit vector of `v` (zero below SimTK::Eps), and the length it had. */
export function normalizeOrZero(v: Vec3): { unit: Vec3; length: number } {
  const length = norm(v);
  return { unit: length >= EPS ? scale(v, 1 / length) : [0, 0, 0], length };
}

export const unit = (v: Vec3): Vec3 => normalizeOrZero(v).unit;

/** DSIGN: the sign of a number, with 0 counted positive. */
export const dsign = (value: number): number => (value >= 0 ? 1 : -1);

/** Squared distance from `point` to the infinite line through `linePoint` along `lineDirection`. */
export function distanceSquaredPointToLine(point: Vec3, linePoint: Vec3, lineDirection: Vec3): number {
  const toLine = sub(linePoint, point);
  const n = unit(lineDirection);
  return dot(sub(toLine, scale(n, dot(toLine, n))), sub(toLine, scale(n, dot(toLine, n))));
}

/**
 * The point of the line through `linePoint` along `line` closest to `point`, and its parameter
 * in units of `line`'s length.
 */
export function closestPointOnLine(point: Vec3, linePoint: Vec3, line: Vec3): { point: Vec3; t: number } {
  const { unit: v1, length } = normalizeOrZero(sub(point, linePoint));
  const { unit: v2, length: lineLength } = normalizeOrZero(line);
  const along = dot(v1, v2) * length;
  return { point: addScaled(linePoint, v2, along), t: along / lineLength };
}

const det3 = (r0: Vec3, r1: Vec3, r2: Vec3): number => dot(r0, cross(r1, r2));

/**
 * The mutually closest points of line p1-p2 (parameter s, 0 at p1 and 1 at p2) and line p3-p4
 * (parameter t); undefined for parallel lines.
 */
export function intersectLines(
  p1: Vec3,
  p2: Vec3,
  p3: Vec3,
  p4: Vec3,
): { onFirst: Vec3; s: number; onSecond: Vec3; t: number } | undefined {
  const { unit: vec1, length: mag1 } = normalizeOrZero(sub(p2, p1));
  const { unit: vec2, length: mag2 } = normalizeOrZero(sub(p4, p3));
  const crossProduct = cross(vec1, vec2);
  const denominator = dot(crossProduct, crossProduct);
  if (Math.abs(denominator) <= ROUNDOFF_ERROR) return undefined;
  const offset = sub(p3, p1);
  const t = det3(offset, vec1, crossProduct) / denominator;
  const s = det3(offset, vec2, crossProduct) / denominator;
  return { onFirst: addScaled(p1, vec1, s), s: s / mag1, onSecond: addScaled(p3, vec2, t), t: t / mag2 };
}

/** Where segment pt1-pt2 crosses the plane n·x + d = 0 (undefined when parallel or outside the segment). */
export function intersectSegmentPlane(pt1: Vec3, pt2: Vec3, normal: Vec3, d: number): Vec3 | undefined {
  const vec = sub(pt2, pt1);
  const along = dot(vec, normal);
  if (Math.abs(along) < LINE_EPSILON) return undefined;
  const t = (-d - dot(normal, pt1)) / along;
  if (t < -LINE_EPSILON || t > 1 + LINE_EPSILON) return undefined;
  return addScaled(pt1, vec, t);
}

/** `v` turned by `angleRad` about the (not necessarily unit) `axis`, right-handed. */
export function rotateAbout(v: Vec3, axis: Vec3, angleRad: number): Vec3 {
  const k = unit(axis);
  const c = Math.cos(angleRad);
  const s = Math.sin(angleRad);
  return add(add(scale(v, c), scale(cross(k, v), s)), scale(k, dot(k, v) * (1 - c)));
}
