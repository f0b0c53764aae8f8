import { ConstantFunction, type KinematicFunction } from './functions.ts';
import type { Vec3 } from './osim-model.ts';
import {
  findFunction,
  type FrameResolver,
  type ModelFrame,
  ModelFormatError,
  UnsupportedModelError,
} from './read-osim.ts';
import { bodyFixedXyzToMatrix, multiply } from './rotation.ts';
import type { Quadrant } from './wrapping/wrap-result.ts';
import { childBoolean, childNamed, childNumbers, childText, type XmlNode } from './xml-tree.ts';

/**
 * The muscle (and ligament, path spring) paths of an OpenSim model, read from its .osim: each
 * GeometryPath's points (fixed, conditional and moving path points, each in its parent frame) and
 * its PathWraps, and the model's wrap objects (cylinder, sphere, ellipsoid, torus) with their
 * frames and quadrants. path-length.ts computes lengths from these as OpenSim does.
 */
interface PointBase {
  name: string;
  /** The point's parent frame: its body and the frame's offset in that body. */
  frame: ModelFrame;
}

export type PathPointDescription = PointBase &
  (
    | { kind: 'fixed'; locationM: Vec3 }
    /** Active while its coordinate is within [rangeMin, rangeMax] (ConditionalPathPoint). */
    | { kind: 'conditional'; locationM: Vec3; coordinate: string; rangeMin: number; rangeMax: number }
    /** Each location component a function of a coordinate, clamped to its range (MovingPathPoint). */
    | { kind: 'moving'; components: { fn: KinematicFunction; coordinate?: string }[] }
  );

export interface PathWrapDescription {
  wrapObject: string;
  /** 1-based first and last path points the wrap applies to; below 1 means the path's first (last) point. */
  startPoint: number;
  endPoint: number;
}

export interface GeometryPathDescription {
  /** The component owning the path (a muscle, ligament or path spring), and its element name. */
  owner: string;
  ownerType: string;
  points: PathPointDescription[];
  wraps: PathWrapDescription[];
}

export type WrapShape =
  | { type: 'WrapCylinder'; radiusM: number; lengthM: number }
  | { type: 'WrapSphere'; radiusM: number }
  | { type: 'WrapEllipsoid'; dimensionsM: Vec3 }
  | { type: 'WrapTorus'; innerRadiusM: number; outerRadiusM: number };

export interface WrapObjectDescription {
  name: string;
  /** The body the wrap object is fixed to ("ground" for ground). */
  body: string;
  /** The wrap object's frame in its body: rotation (row-major) and origin. */
  rotation: Float64Array;
  translationM: Vec3;
  active: boolean;
  quadrant: Quadrant;
  shape: WrapShape;
}

const POINT_TYPES = new Set(['PathPoint', 'ConditionalPathPoint', 'MovingPathPoint']);
const WRAP_TYPES = new Set(['WrapCylinder', 'WrapSphere', 'WrapEllipsoid', 'WrapTorus']);

/** The last segment of a socket path ("/jointset/knee_r/knee_angle_r" → "knee_angle_r"), or an OpenSim 3.3 name. */
const lastSegment = (path: string) => path.trim().split('/').filter(Boolean).pop() ?? '';

function vector(node: XmlNode, name: string, fallback: Vec3): Vec3 {
  const values = childNumbers(node, name);
  if (!values || values.length === 0) return [...fallback];
  if (values.length !== 3)
    throw new ModelFormatError(`<${name}> of "${node.attributes.name ?? node.name}" must hold 3 numbers.`);
  return [values[0], values[1], values[2]];
}

/** The frame a path point, marker or wrap set is defined in: <socket_parent_frame> (OpenSim 4) or <body> (3.3). */
export function parentFramePath(node: XmlNode): string | undefined {
  return childText(node, 'socket_parent_frame') ?? childText(node, 'body');
}

function readPoint(node: XmlNode, frames: FrameResolver, owner: string): PathPointDescription {
  const name = node.attributes.name ?? '';
  const where = `path point "${name}" of ${owner}`;
  const framePath = parentFramePath(node);
  if (!framePath) throw new ModelFormatError(`The ${where} names no frame (<socket_parent_frame> or <body>).`);
  const frame = frames(framePath, where);
  if (node.name === 'MovingPathPoint') {
    const components = (['x', 'y', 'z'] as const).map((axis) => {
      const holder = childNamed(node, `${axis}_location`);
      const fn = (holder && findFunction(holder, `${where}, ${axis}_location`)) ?? new ConstantFunction(0);
      const coordinatePath = childText(node, `socket_${axis}_coordinate`) ?? childText(node, `${axis}_coordinate`);
      const coordinate = coordinatePath ? lastSegment(coordinatePath) : undefined;
      return { fn, ...(coordinate && { coordinate }) };
    });
    return { name, frame, kind: 'moving', components };
  }
  const locationM = vector(node, 'location', [0, 0, 0]);
  if (node.name === 'ConditionalPathPoint') {
    const coordinate = lastSegment(childText(node, 'socket_coordinate') ?? childText(node, 'coordinate') ?? '');
    const range = childNumbers(node, 'range') ?? [];
    if (!coordinate || range.length !== 2)
      throw new ModelFormatError(`The conditional ${where} needs a coordinate and a two-number <range>.`);
    return { name, frame, kind: 'conditional', locationM, coordinate, rangeMin: range[0], rangeMax: range[1] };
  }
  return { name, frame, kind: 'fixed', locationM };
}

function readGeometryPath(path: XmlNode, owner: XmlNode, frames: FrameResolver): GeometryPathDescription {
  const ownerName = owner.attributes.name ?? owner.name;
  const where = `${owner.name} "${ownerName}"`;
  const pointSet = childNamed(path, 'PathPointSet');
  const points = (childNamed(pointSet ?? path, 'objects')?.children ?? [])
    .filter((node) => POINT_TYPES.has(node.name))
    .map((node) => readPoint(node, frames, where));
  const wrapSet = childNamed(path, 'PathWrapSet');
  const wraps = (childNamed(wrapSet ?? path, 'objects')?.children ?? [])
    .filter((node) => node.name === 'PathWrap')
    .map((node) => {
      const range = childNumbers(node, 'range') ?? [-1, -1];
      return {
        wrapObject: (childText(node, 'wrap_object') ?? '').trim(),
        startPoint: range[0] ?? -1,
        endPoint: range[1] ?? -1,
      };
    });
  return { owner: ownerName, ownerType: owner.name, points, wraps };
}

/** WrapObject::extendFinalizeFromProperties: "x", "+x", "-y", …, "all" (also the default, "Unassigned"). */
function parseQuadrant(text: string | undefined, owner: string): Quadrant {
  const value = (text ?? 'all').trim();
  if (value === '' || /^(all|unassigned)$/i.test(value)) return { axis: 0, sign: 0 };
  const match = /^([+-]?)([xyz])$/i.exec(value);
  if (!match) throw new ModelFormatError(`The quadrant "${value}" of wrap object "${owner}" is not valid.`);
  return { axis: 'xyz'.indexOf(match[2].toLowerCase()) as 0 | 1 | 2, sign: match[1] === '-' ? -1 : 1 };
}

function readShape(node: XmlNode): WrapShape {
  const number = (name: string, fallback: number) => childNumbers(node, name)?.[0] ?? fallback;
  switch (node.name) {
    case 'WrapCylinder':
      return { type: 'WrapCylinder', radiusM: number('radius', 1), lengthM: number('length', 1) };
    case 'WrapSphere':
      return { type: 'WrapSphere', radiusM: number('radius', 0.05) };
    case 'WrapEllipsoid':
      return { type: 'WrapEllipsoid', dimensionsM: vector(node, 'dimensions', [-1, -1, -1]) };
    default:
      return {
        type: 'WrapTorus',
        innerRadiusM: number('inner_radius', 0.01),
        outerRadiusM: number('outer_radius', 0.05),
      };
  }
}

function readWrapObject(node: XmlNode, ownerFrame: ModelFrame): WrapObjectDescription {
  const name = node.attributes.name ?? '';
  const rotationInFrame = bodyFixedXyzToMatrix(vector(node, 'xyz_body_rotation', [0, 0, 0]));
  const translation = vector(node, 'translation', [0, 0, 0]);
  const r = ownerFrame.rotation;
  const t = ownerFrame.translationM;
  const rotation = new Float64Array(9);
  multiply(rotation, 0, r, 0, rotationInFrame, 0);
  return {
    name,
    body: ownerFrame.body,
    rotation,
    translationM: [
      t[0] + r[0] * translation[0] + r[1] * translation[1] + r[2] * translation[2],
      t[1] + r[3] * translation[0] + r[4] * translation[1] + r[5] * translation[2],
      t[2] + r[6] * translation[0] + r[7] * translation[1] + r[8] * translation[2],
    ],
    active: childBoolean(node, 'active') ?? true,
    quadrant: parseQuadrant(childText(node, 'quadrant'), name),
    shape: readShape(node),
  };
}

export interface ModelPaths {
  paths: GeometryPathDescription[];
  wrapObjects: Map<string, WrapObjectDescription>;
}

/**
 * Every GeometryPath of the model (outside <defaults>, which holds templates, not components) and
 * every wrap object, from the <Model> element. A wrap object type this reader does not know, or a
 * PathWrap naming a wrap object the model lacks, is refused by name.
 */
export function readModelPaths(model: XmlNode, frames: FrameResolver): ModelPaths {
  const paths: GeometryPathDescription[] = [];
  const wrapObjects = new Map<string, WrapObjectDescription>();
  const visit = (node: XmlNode, parent: XmlNode | undefined) => {
    if (node.name === 'defaults') return;
    if (node.name === 'GeometryPath' && parent) {
      paths.push(readGeometryPath(node, parent, frames));
      return;
    }
    if (node.name === 'WrapObjectSet' && parent) {
      const ownerName = parent.attributes.name ?? '';
      const ownerFrame = frames(ownerName, `wrap objects of ${parent.name} "${ownerName}"`);
      for (const wrap of childNamed(node, 'objects')?.children ?? []) {
        if (!WRAP_TYPES.has(wrap.name))
          throw new UnsupportedModelError(
            `Wrap object type ${wrap.name} ("${wrap.attributes.name}") is not supported. Supported: ${[...WRAP_TYPES].join(', ')}.`,
          );
        wrapObjects.set(wrap.attributes.name ?? '', readWrapObject(wrap, ownerFrame));
      }
      return;
    }
    for (const child of node.children) visit(child, node);
  };
  visit(model, undefined);
  for (const path of paths) {
    for (const wrap of path.wraps) {
      if (!wrapObjects.has(wrap.wrapObject))
        throw new ModelFormatError(
          `${path.ownerType} "${path.owner}" wraps over "${wrap.wrapObject}", which is not a wrap object of the model.`,
        );
    }
  }
  return { paths, wrapObjects };
}
