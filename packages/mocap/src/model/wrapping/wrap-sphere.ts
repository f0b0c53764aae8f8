import type { Vec3 } from '../osim-model.ts';
import { add, addScaled, closestPointOnLine, cross, dot, dsign, norm, scale, sub, unit } from './wrap-math.ts';
import { type Quadrant, WrapAction, type WrapLineResult } from './wrap-result.ts';

/**
 * A path segment over a WrapSphere centred on its frame's origin, as OpenSim 4's
 * WrapSphere::wrapLine computes it (read in OpenSim/Simulation/Wrap/WrapSphere.cpp): the segment
 * wraps only when it passes through the sphere; the tangent points lie in the plane through both
 * points and the centre, the pair chosen that is closest together (or, with a quadrant, on the
 * allowed side), and the wrapped length is the great-circle arc between them.
 */
export interface SphereShape {
  radiusM: number;
}

/** The two points where lines from `point` touch the sphere in the plane with normal `n`. */
function tangentPoints(point: Vec3, n: Vec3, radius: number): [Vec3, Vec3] {
  const distance = norm(point);
  const towardsCentre = unit(scale(point, -1));
  const sideways = cross(n, towardsCentre);
  const angle = Math.asin(radius / distance);
  const reach = distance * Math.cos(angle);
  const along = (sign: number) =>
    addScaled(point, add(scale(towardsCentre, Math.cos(angle)), scale(sideways, sign * Math.sin(angle))), reach);
  return [along(-1), along(1)];
}

/** Any unit vector perpendicular to `v`. */
function perpendicular(v: Vec3): Vec3 {
  const helper: Vec3 = Math.abs(v[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  return unit(cross(v, helper));
}

export function wrapSphere(shape: SphereShape, quadrant: Quadrant, p1: Vec3, p2: Vec3): WrapLineResult {
  const radius = shape.radiusM;
  const none = (action: WrapAction): WrapLineResult => ({ action, r1: p1, r2: p2, lengthM: 0 });
  if (norm(p1) < radius || norm(p2) < radius) return none(WrapAction.insideRadius);

  // Where the line p2 + λ (p1 - p2) meets the sphere: both crossings must lie inside the segment.
  const ri = sub(p1, p2);
  const a = dot(ri, ri);
  const b = 2 * dot(p2, ri);
  const c = dot(p2, p2) - radius * radius;
  const disc = b * b - 4 * a * c;
  if (disc < 0) return none(WrapAction.noWrap);
  const l1 = (-b + Math.sqrt(disc)) / (2 * a);
  const l2 = (-b - Math.sqrt(disc)) / (2 * a);
  if (!(l1 > 0 && l1 < 1) || !(l2 > 0 && l2 < 1) || l1 < l2) return none(WrapAction.noWrap);

  const direction = unit(ri);
  const normal = cross(direction, unit(p2));
  // A segment through the centre: OpenSim reuses the previous wrap's plane; any plane through the line is as good.
  const n = norm(normal) < 0.00001 ? perpendicular(direction) : unit(normal);
  const [r1a, r1b] = tangentPoints(p1, n, radius);
  const [r2a, r2b] = tangentPoints(p2, n, radius);
  const [r1am, r1bm, r2am, r2bm] = [r1a, r1b, r2a, r2b].map(unit);
  const j1 = dot(r1am, r2am);
  const j2 = dot(r1am, r2bm);
  const j3 = dot(r1bm, r2am);
  const j4 = dot(r1bm, r2bm);
  let [r1, r2, other1, other2] =
    j1 > j2 && j1 > j3 && j1 > j4
      ? [r1a, r2a, r1b, r2b]
      : j2 > j3 && j2 > j4
        ? [r1a, r2b, r1b, r2a]
        : j3 > j4
          ? [r1b, r2a, r1a, r2b]
          : [r1b, r2b, r1a, r2a];
  let action: WrapAction = WrapAction.wrapped;
  let farSide = false;

  if (quadrant.sign !== 0) {
    const { axis, sign } = quadrant;
    if (dsign(p1[axis]) === sign || dsign(p2[axis]) === sign) {
      // OpenSim measures this closest point's parameter in metres along the unit direction, not as a fraction.
      const closest = closestPointOnLine([0, 0, 0], p1, direction);
      const tt = -closest.t;
      if (dot(closest.point, closest.point) < radius * radius && tt > 0 && tt < 1) action = WrapAction.mandatoryWrap;
      else if (dsign(p1[axis]) !== dsign(p2[axis]) && dsign(closest.point[axis]) !== sign) action = WrapAction.wrapped;
      else return none(WrapAction.noWrap);
    }
    if (dsign(p1[axis]) !== sign || dsign(p2[axis]) !== sign) {
      const wrapAxis: Vec3 = [0, 0, 0];
      wrapAxis[axis] = sign;
      const towardsCentre = unit(scale(add(p1, p2), -1));
      [r1, other1] = dot(r1am, towardsCentre) > dot(r1bm, towardsCentre) ? [r1a, r1b] : [r1b, r1a];
      [r2, other2] = dot(r2am, towardsCentre) > dot(r2bm, towardsCentre) ? [r2a, r2b] : [r2b, r2a];
      if (dot(unit(add(sub(r1, p1), sub(r2, p2))), wrapAxis) < 0) [r1, r2] = [other1, other2];
      farSide = dot(add(r1, r2), add(sub(r1, p1), sub(r2, p2))) < 0;
    }
  }

  const angle = Math.acos(dot(unit(r1), unit(r2)));
  // OpenSim gives a far-side arc as the negative of its length (WrapSphere.cpp: angle = -(2π - angle)); kept as is.
  return { action, r1, r2, lengthM: radius * (farSide ? -(2 * Math.PI - angle) : angle) };
}
