import type { Vec3 } from '../osim-model.ts';
import {
  add,
  addScaled,
  closestPointOnLine,
  cross,
  distanceSquared,
  distanceSquaredPointToLine,
  dot,
  dsign,
  intersectLines,
  intersectSegmentPlane,
  norm,
  normalizeOrZero,
  rotateAbout,
  scale,
  sub,
  unit,
} from './wrap-math.ts';
import { type Quadrant, WrapAction, type WrapLineResult } from './wrap-result.ts';

/**
 * A path segment over a WrapCylinder, as OpenSim 4's WrapCylinder::wrapLine computes it (read in
 * OpenSim/Simulation/Wrap/WrapCylinder.cpp; Peter Loan's algorithm from SIMM): the cylinder lies
 * along the z axis of its frame, centred on z = 0. The segment wraps when it passes through the
 * cylinder (or, with a quadrant, when it would cross the forbidden side); the tangent points are
 * found in the plane, slid along the axis until the spiral path over the surface meets the
 * straight parts within 0.1°, and the wrapped length is that of the spiral (√((rθ)² + axial²)).
 */
const AXIS_POINT: Vec3 = [0, 0, -1];
const AXIS: Vec3 = [0, 0, 1];
const MAX_ITERATIONS = 100;
const TANGENCY_THRESHOLD_RAD = (0.1 * Math.PI) / 180;
/** OpenSim samples the wrapped path every 2 mm; the first sample decides whether the tangent points need sliding. */
const WRAP_SEGMENT_M = 0.002;

export interface CylinderShape {
  radiusM: number;
  lengthM: number;
}

/** The two tangent-point candidates on the cylinder for a line from `point` (its closest axis point `onAxis`). */
function tangentCandidates(point: Vec3, onAxis: Vec3, radius: number): [Vec3, Vec3] {
  const { unit: outward, length: distance } = normalizeOrZero(sub(point, onAxis));
  const sinTheta = radius / distance;
  const along = radius * sinTheta;
  const foot = addScaled(onAxis, outward, along);
  const across = Math.sqrt(radius * radius - along * along);
  const sideways = cross(AXIS, outward);
  return [addScaled(foot, sideways, across), addScaled(foot, sideways, -across)];
}

export function wrapCylinder(shape: CylinderShape, quadrant: Quadrant, p1: Vec3, p2: Vec3): WrapLineResult {
  const radius = shape.radiusM;
  const rSquared = radius * radius;
  const { axis: wrapAxis, sign: wrapSign } = quadrant;
  const constrained = wrapSign !== 0;
  const none = (action: WrapAction): WrapLineResult => ({ action, r1: p1, r2: p2, lengthM: 0 });

  if (
    distanceSquaredPointToLine(p1, AXIS_POINT, AXIS) < rSquared ||
    distanceSquaredPointToLine(p2, AXIS_POINT, AXIS) < rSquared
  )
    return none(WrapAction.insideRadius);

  // Closest approach of the segment to the cylinder's axis (between its end caps' centres).
  const halfLength = shape.lengthM / 2;
  const nearest = intersectLines(p1, p2, [0, 0, -halfLength], [0, 0, halfLength]);
  const segmentHitsCylinder =
    nearest !== undefined &&
    distanceSquared(nearest.onFirst, nearest.onSecond) < rSquared &&
    nearest.s > 0 &&
    nearest.s < 1;
  // OpenSim's closest point is NaN for a segment parallel to the axis, whose sign reads negative.
  const nearestSign = nearest ? dsign(nearest.onFirst[wrapAxis]) : -1;
  let action: WrapAction = WrapAction.wrapped;
  if (!constrained) {
    if (!segmentHitsCylinder) return none(WrapAction.noWrap);
    action = WrapAction.mandatoryWrap;
  }

  const p11 = closestPointOnLine(p1, AXIS_POINT, AXIS).point;
  const p22 = closestPointOnLine(p2, AXIS_POINT, AXIS).point;
  const [r1a, r1b] = tangentCandidates(p1, p11, radius);
  const [r2a, r2b] = tangentCandidates(p2, p22, radius);
  let r1: Vec3;
  let r2: Vec3;
  let farSideWrap = false;
  let longWrap = false;

  const active = (point: Vec3) => dsign(point[wrapAxis]) === wrapSign;
  if (constrained) {
    if (active(p1) || active(p2)) {
      // A point on the constrained side: a mandatory wrap when the segment passes through the cylinder,
      // a wrap when the points lie on both sides and the segment's closest point is off the active side.
      if (segmentHitsCylinder) action = WrapAction.mandatoryWrap;
      else if (dsign(p1[wrapAxis]) !== dsign(p2[wrapAxis]) && nearestSign !== wrapSign) action = WrapAction.wrapped;
      else return none(WrapAction.noWrap);
    }
    const angleBetween = (a: Vec3, b: Vec3) => Math.acos(dot(a, b) / (norm(a) * norm(b)));
    const alpha = angleBetween(sub(r1a, p11), sub(r2b, p22));
    const beta = angleBetween(sub(r1b, p11), sub(r2a, p22));
    const choose = (first: Vec3, second: Vec3, farWhenAlphaLarger: boolean) => {
      r1 = first;
      r2 = second;
      farSideWrap = alpha > beta ? farWhenAlphaLarger : !farWhenAlphaLarger;
    };
    // Prefer tangent points on the active side; when r1's candidates do not decide, r2's do.
    if (active(r1a) && active(r1b)) {
      if (active(r2a)) choose(r1b, r2a, false);
      else choose(r1a, r2b, true);
    } else if (active(r1a)) choose(r1a, r2b, true);
    else if (active(r1b)) choose(r1b, r2a, false);
    else if (active(r2a)) choose(r1b, r2a, false);
    else if (active(r2b)) choose(r1a, r2b, true);
    else if (alpha > beta) {
      r1 = r1a;
      r2 = r2b;
      farSideWrap = true;
    } else {
      r1 = r1b;
      r2 = r2a;
      farSideWrap = true;
    }
    // A long wrap goes round more than half the cylinder.
    const sumMuscle = add(sub(r1!, p1), sub(r2!, p2));
    const sumRadial = add(sub(r1!, p11), sub(r2!, p22));
    longWrap = dot(sumRadial, sumMuscle) < 0;
  } else {
    // Unconstrained: the pair of tangent points whose radial directions are closest.
    const r1am = unit(sub(r1a, p11));
    const r1bm = unit(sub(r1b, p11));
    const r2am = unit(sub(r2a, p22));
    const r2bm = unit(sub(r2b, p22));
    const dot1 = dot(r1am, r2am);
    const dot2 = dot(r1am, r2bm);
    const dot3 = dot(r1bm, r2am);
    const dot4 = dot(r1bm, r2bm);
    if (dot1 > dot2 && dot1 > dot3 && dot1 > dot4) [r1, r2] = [r1a, r2a];
    else if (dot2 > dot3 && dot2 > dot4) [r1, r2] = [r1a, r2b];
    else if (dot3 > dot4) [r1, r2] = [r1b, r2a];
    else [r1, r2] = [r1b, r2b];
  }

  // The apex: where the plane through both points and the axis meets the cylinder, on the wrap's side.
  const p11Distance = norm(sub(p1, p11));
  const p22Distance = norm(sub(p2, p22));
  const t = p11Distance / (p11Distance + p22Distance);
  const midPoint = addScaled(p1, sub(p2, p1), t);
  const axisPoint = closestPointOnLine(midPoint, AXIS_POINT, AXIS).point;
  const planeNormal = unit(cross(unit(sub(p1, axisPoint)), unit(sub(p2, axisPoint))));
  const vertical1 = unit(cross(AXIS, planeNormal));
  const vertical2 = unit(cross(planeNormal, AXIS));
  const apex1 = addScaled(axisPoint, vertical1, radius);
  const apex2 = addScaled(axisPoint, vertical2, radius);
  const firstIsNearer = distanceSquared(midPoint, apex1) < distanceSquared(midPoint, apex2);
  const apex = farSideWrap === firstIsNearer ? apex2 : apex1;

  // Slide the tangent points along their lines of tangency to the plane through both points and the apex.
  const apexPlaneNormal = unit(cross(unit(sub(p1, apex)), unit(sub(p2, apex))));
  const d = -dot(p1, apexPlaneNormal);
  // OpenSim projects onto the line through one axis point along the other's position vector (the axis, as both lie on it).
  const slide = (r: Vec3, own: Vec3, other: Vec3): Vec3 => {
    const onPlane = intersectSegmentPlane(addScaled(r, AXIS, -10), addScaled(r, AXIS, 10), apexPlaneNormal, d);
    if (!onPlane) return r;
    const projected = closestPointOnLine(onPlane, own, other).point;
    return distanceSquared(projected, other) < distanceSquared(own, other) ? onPlane : r;
  };
  r1 = slide(r1!, p11, p22);
  r2 = slide(r2!, p22, p11);

  // Beyond the cylinder's (display) length at both ends: no wrap.
  const outside = (r: Vec3) => r[2] < -halfLength || r[2] > halfLength;
  if (outside(r1) && outside(r2)) return none(WrapAction.noWrap);

  const spiral = spiralPath(p1, p2, r1, r2, radius, longWrap);
  return { action, r1: spiral.r1, r2: spiral.r2, lengthM: spiral.lengthM };
}

/**
 * WrapCylinder::_make_spiral_path: the spiral from r1 to r2 over the surface (the long way when
 * `farSide`), with r1 and r2 slid along the axis until the straight parts meet it tangentially.
 */
function spiralPath(
  p1: Vec3,
  p2: Vec3,
  startR1: Vec3,
  startR2: Vec3,
  radius: number,
  farSide: boolean,
): { r1: Vec3; r2: Vec3; lengthM: number } {
  const sense = farSide ? -1 : 1;
  let r1 = startR1;
  let r2 = startR2;
  for (let iterations = 0; ; iterations++) {
    const r1a = closestPointOnLine(r1, AXIS_POINT, AXIS).point;
    const r2a = closestPointOnLine(r2, AXIS_POINT, AXIS).point;
    const axial = sub(r2a, r1a);
    const uu = scale(sub(r1, r1a), 1 / radius);
    const vv = scale(sub(r2, r2a), 1 / radius);
    let theta = Math.acos(dot(uu, vv) / (norm(uu) * norm(vv)));
    if (farSide) theta = 2 * Math.PI - theta;
    const lengthM = Math.hypot(radius * theta, norm(axial));
    const segments = Math.max(1, Math.floor(lengthM / WRAP_SEGMENT_M));
    if (segments < 2 || iterations >= MAX_ITERATIONS) return { r1, r2, lengthM };
    const ax = unit(cross(uu, vv));
    const pointAt = (t: number) =>
      add(add(r1a, scale(rotateAbout(uu, ax, sense * t * theta), radius)), scale(axial, t));
    const t = 1 / segments;
    const next1 = adjustTangentPoint(p1, r1, pointAt(t));
    const next2 = adjustTangentPoint(p2, r2, pointAt(1 - t));
    if (!next1 && !next2) return { r1, r2, lengthM };
    r1 = next1 ?? r1;
    r2 = next2 ?? r2;
  }
}

/**
 * WrapCylinder::_adjust_tangent_point: when the line from `point` to the tangent point `r` and the
 * first stretch of the spiral (towards `w`) part by more than the threshold, slide r along the axis
 * (1.5 times the way to where the line point-w crosses r's line of tangency); undefined when tangent.
 */
function adjustTangentPoint(point: Vec3, r: Vec3, w: Vec3): Vec3 | undefined {
  const alpha = Math.acos(dot(unit(sub(r, point)), AXIS));
  const omega = Math.acos(dot(unit(sub(w, r)), AXIS));
  if (Math.abs(alpha - omega) <= TANGENCY_THRESHOLD_RAD) return undefined;
  const pointOnTangency = closestPointOnLine(point, r, AXIS).point;
  const wOnTangency = closestPointOnLine(w, r, AXIS).point;
  const crossing = intersectLines(point, w, pointOnTangency, wOnTangency);
  if (!crossing) return undefined;
  return addScaled(r, sub(crossing.onSecond, r), 1.5);
}
