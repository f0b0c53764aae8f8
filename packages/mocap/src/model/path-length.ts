import type { GeometryPathDescription, PathPointDescription, WrapObjectDescription } from './geometry-paths.ts';
import type { KinematicModel } from './kinematic-model.ts';
import type { Vec3 } from './osim-model.ts';
import { UnsupportedModelError } from './read-osim.ts';
import { wrapCylinder } from './wrapping/wrap-cylinder.ts';
import { distanceSquared } from './wrapping/wrap-math.ts';
import { WrapAction, type WrapLineResult } from './wrapping/wrap-result.ts';
import { wrapSphere } from './wrapping/wrap-sphere.ts';

/**
 * The length of a GeometryPath at the model's current pose, as OpenSim computes it
 * (GeometryPath::computePath, applyWrapObjects and calcPathLength in
 * OpenSim/Simulation/Model/GeometryPath.cpp): the active points (conditional points only within
 * their coordinate's range, moving points at their functions of the clamped coordinates), then each
 * PathWrap tried on every segment within its range, the first segment that passes through the wrap
 * object taken, else the one whose wrap lengthens the path least; with several wrap objects, up
 * to 8 passes until the length settles within 0.5 mm. The length is the sum of the straight parts
 * and of the lengths over the wrap surfaces.
 */
export interface PathPose {
  kinematics: KinematicModel;
  /** Coordinate values the kinematics were posed with (rad, m), in the model's coordinate order. */
  q: Float64Array;
}

interface PathEntry {
  /** Index in the path's point list, or -1 for a wrap point. */
  point: number;
  groundM: Vec3;
  /** The PathWrap that put this wrap point in the path, and the wrap object it lies on. */
  wrap?: number;
  wrapObject?: string;
  /** For the second wrap point: the length over the surface from the first. */
  wrapLengthM?: number;
}

/** OpenSim stops iterating over several wrap objects once the length changes by less than this (GeometryPath.cpp). */
const SETTLED_M = 0.0005;
const MAX_PASSES = 8;

function bodyIndexOf(kinematics: KinematicModel, body: string): number {
  const index = kinematics.bodyNames.indexOf(body);
  if (index < 0)
    throw new UnsupportedModelError(`A path or wrap object is on body "${body}", which is not in the model.`);
  return index;
}

/** A point given in a frame fixed on `body` (rotation, origin), to ground at the current pose. */
function toGround(kinematics: KinematicModel, body: number, rotation: Float64Array, origin: Vec3, local: Vec3): Vec3 {
  const inBody: Vec3 = [0, 1, 2].map(
    (i) => origin[i] + rotation[3 * i] * local[0] + rotation[3 * i + 1] * local[1] + rotation[3 * i + 2] * local[2],
  ) as Vec3;
  const R = kinematics.bodyRotation;
  const p = kinematics.bodyTranslation;
  const r = 9 * body;
  return [0, 1, 2].map(
    (i) => p[3 * body + i] + R[r + 3 * i] * inBody[0] + R[r + 3 * i + 1] * inBody[1] + R[r + 3 * i + 2] * inBody[2],
  ) as Vec3;
}

/** The inverse of toGround: a ground point in the frame fixed on `body`. */
function fromGround(
  kinematics: KinematicModel,
  body: number,
  rotation: Float64Array,
  origin: Vec3,
  ground: Vec3,
): Vec3 {
  const R = kinematics.bodyRotation;
  const p = kinematics.bodyTranslation;
  const r = 9 * body;
  const d = [0, 1, 2].map((i) => ground[i] - p[3 * body + i]);
  const inBody = [0, 1, 2].map((i) => R[r + i] * d[0] + R[r + 3 + i] * d[1] + R[r + 6 + i] * d[2] - origin[i]);
  return [0, 1, 2].map(
    (i) => rotation[i] * inBody[0] + rotation[3 + i] * inBody[1] + rotation[6 + i] * inBody[2],
  ) as Vec3;
}

function coordinateValue(pose: PathPose, name: string, clamp: boolean): number {
  const c = pose.kinematics.coordinateNames.indexOf(name);
  if (c < 0)
    throw new UnsupportedModelError(`A path point depends on coordinate "${name}", which is not in the model.`);
  const value = pose.q[c];
  if (!clamp) return value;
  const { rangeMin, rangeMax } = pose.kinematics.coordinates[c];
  return Math.min(rangeMax, Math.max(rangeMin, value));
}

function isActive(point: PathPointDescription, pose: PathPose): boolean {
  if (point.kind !== 'conditional') return true;
  const value = coordinateValue(pose, point.coordinate, false);
  return value >= point.rangeMin - 1e-5 && value <= point.rangeMax + 1e-5;
}

function pointInGround(point: PathPointDescription, pose: PathPose): Vec3 {
  const local: Vec3 =
    point.kind === 'moving'
      ? (point.components.map(({ fn, coordinate }) =>
          fn.value(coordinate === undefined ? 0 : coordinateValue(pose, coordinate, true)),
        ) as Vec3)
      : point.locationM;
  const { body, rotation, translationM } = point.frame;
  return toGround(pose.kinematics, bodyIndexOf(pose.kinematics, body), rotation, translationM, local);
}

const distance = (a: Vec3, b: Vec3) => Math.sqrt(distanceSquared(a, b));

function pathLength(entries: PathEntry[]): number {
  let length = 0;
  for (let i = 1; i < entries.length; i++) {
    const [a, b] = [entries[i - 1], entries[i]];
    const overSurface = a.wrapObject !== undefined && a.wrapObject === b.wrapObject;
    length += overSurface ? (b.wrapLengthM ?? 0) : distance(a.groundM, b.groundM);
  }
  return length;
}

function wrapLine(object: WrapObjectDescription, p1: Vec3, p2: Vec3): WrapLineResult {
  switch (object.shape.type) {
    case 'WrapCylinder':
      return wrapCylinder(object.shape, object.quadrant, p1, p2);
    case 'WrapSphere':
      return wrapSphere(object.shape, object.quadrant, p1, p2);
    default:
      throw new UnsupportedModelError(
        `Wrapping over ${object.shape.type} "${object.name}" is not supported yet; muscle lengths over it cannot be computed.`,
      );
  }
}

interface SegmentWrap {
  result: WrapLineResult;
  /** Ground positions of the tangent points. */
  r1: Vec3;
  r2: Vec3;
  endIndex: number;
}

/** WrapObject::wrapPathSegment: the segment in the wrap object's frame, wrapped, and the tangent points back in ground. */
function wrapSegment(object: WrapObjectDescription, pose: PathPose, a: Vec3, b: Vec3): Omit<SegmentWrap, 'endIndex'> {
  const body = bodyIndexOf(pose.kinematics, object.body);
  const local = (point: Vec3) => fromGround(pose.kinematics, body, object.rotation, object.translationM, point);
  const result = wrapLine(object, local(a), local(b));
  const ground = (point: Vec3) => toGround(pose.kinematics, body, object.rotation, object.translationM, point);
  return { result, r1: ground(result.r1), r2: ground(result.r2) };
}

/** GeometryPath::applyWrapObjects on the active points, then the length. */
export function geometryPathLengthM(
  path: GeometryPathDescription,
  wrapObjects: ReadonlyMap<string, WrapObjectDescription>,
  pose: PathPose,
): number {
  const active = path.points.map((point) => isActive(point, pose));
  const entries: PathEntry[] = path.points.flatMap((point, index) =>
    active[index] ? [{ point: index, groundM: pointInGround(point, pose) }] : [],
  );
  const wraps = path.wraps;
  if (wraps.length === 0) return pathLength(entries);

  const order = wraps.map((_, i) => i);
  const results = new Array<WrapAction>(wraps.length).fill(WrapAction.noWrap);
  const removeWrapPoints = (wrap: number) => {
    const at = entries.findIndex((entry) => entry.wrap === wrap);
    if (at >= 0) entries.splice(at, 2);
  };
  let lastLength = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < (wraps.length < 2 ? 1 : MAX_PASSES); pass++) {
    for (let i = 0; i < wraps.length; i++) {
      results[i] = WrapAction.noWrap;
      const wrap = order[i];
      const { wrapObject: objectName, startPoint, endPoint } = wraps[wrap];
      const object = wrapObjects.get(objectName)!;
      removeWrapPoints(wrap);
      if (!object.active) continue;
      // The user's range of path points (1-based; below 1 means the first or last), to its first and last active points.
      const first = startPoint < 1 ? 0 : startPoint - 1;
      const last = endPoint < 1 ? path.points.length - 1 : endPoint - 1;
      let from = first;
      while (from <= last && !active[from]) from++;
      let to = last;
      while (to >= first && !active[to]) to--;
      if (from > last || to < first) return pathLength(entries);
      const start = entries.findIndex((entry) => entry.point === from);
      const end = entries.findIndex((entry) => entry.point === to);
      if (start < 0 || end < 0) return pathLength(entries);

      let best: SegmentWrap | undefined;
      let smallestChange = Number.POSITIVE_INFINITY;
      for (let pt1 = start; pt1 < end; pt1++) {
        const [a, b] = [entries[pt1], entries[pt1 + 1]];
        // Not between the two wrap points of one wrap object.
        if (a.wrapObject !== undefined && b.wrapObject !== undefined && a.wrapObject === b.wrapObject) continue;
        const segment = wrapSegment(object, pose, a.groundM, b.groundM);
        results[i] = segment.result.action;
        if (segment.result.action === WrapAction.mandatoryWrap) {
          best = { ...segment, endIndex: pt1 + 1 };
          break;
        }
        if (segment.result.action === WrapAction.wrapped) {
          const change =
            distance(a.groundM, segment.r1) +
            segment.result.lengthM +
            distance(segment.r2, b.groundM) -
            distance(a.groundM, b.groundM);
          if (change < smallestChange) {
            smallestChange = change;
            best = { ...segment, endIndex: pt1 + 1 };
          }
        }
      }
      if (best) {
        entries.splice(
          best.endIndex,
          0,
          { point: -1, groundM: best.r1, wrap, wrapObject: objectName, wrapLengthM: 0 },
          { point: -1, groundM: best.r2, wrap, wrapObject: objectName, wrapLengthM: best.result.lengthM },
        );
      }
    }
    const length = pathLength(entries);
    if (Math.abs(length - lastLength) < SETTLED_M) break;
    lastLength = length;
    // A first object that missed while the second found a point inside it: try them the other way round.
    if (pass === 0 && wraps.length > 1 && results[0] === WrapAction.noWrap && results[1] === WrapAction.insideRadius) {
      [order[0], order[1]] = [1, 0];
      removeWrapPoints(0);
    }
  }
  return pathLength(entries);
}
