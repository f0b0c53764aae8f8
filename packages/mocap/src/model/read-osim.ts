import {
  ConstantFunction,
  CubicSpline,
  type KinematicFunction,
  LinearFunction,
  MultiplierFunction,
  NaturalOddSpline,
  PiecewiseLinearFunction,
  PolynomialFunction,
} from './functions.ts';
import type {
  BodyDescription,
  CoordinateDescription,
  CouplerDescription,
  FrameOffset,
  JointDescription,
  JointType,
  MarkerDescription,
  MotionType,
  OsimModel,
  TransformAxisDescription,
  Vec3,
} from './osim-model.ts';
import { bodyFixedXyzToMatrix, matrixToBodyFixedXyz, multiply } from './rotation.ts';
import {
  childBoolean,
  childNamed,
  childNumbers,
  childrenNamed,
  childText,
  descendants,
  parseOpenSimNumber,
  parseXmlTree,
  type XmlNode,
} from './xml-tree.ts';

/** The .osim file uses something this reader does not model; the message names it. */
export class UnsupportedModelError extends Error {
  override name = 'UnsupportedModelError';
}

export class ModelFormatError extends Error {
  override name = 'ModelFormatError';
}

const FUNCTION_TYPES = new Set([
  'Constant',
  'LinearFunction',
  'PolynomialFunction',
  'SimmSpline',
  'NaturalCubicSpline',
  'GCVSpline',
  'PiecewiseLinearFunction',
  'MultiplierFunction',
]);
/** Function classes of OpenSim that are recognisably functions but not supported here. */
const UNSUPPORTED_FUNCTION_TYPES = new Set([
  'PiecewiseConstantFunction',
  'StepFunction',
  'Sine',
  'LinearFunctionMultivariate',
  'MultivariatePolynomialFunction',
  'FunctionSet',
]);

const JOINT_TYPES = new Set<string>([
  'CustomJoint',
  'PinJoint',
  'UniversalJoint',
  'BallJoint',
  'GimbalJoint',
  'FreeJoint',
  'WeldJoint',
  'SliderJoint',
  'PlanarJoint',
]);

const ZERO: Vec3 = [0, 0, 0];
const EMPTY_NODE: XmlNode = { name: '', attributes: {}, children: [], text: '' };

function vec3(node: XmlNode, name: string, fallback: Vec3 = ZERO): Vec3 {
  const values = childNumbers(node, name);
  if (!values || values.length === 0) return [...fallback];
  if (values.length !== 3)
    throw new ModelFormatError(`<${name}> of "${node.attributes.name ?? node.name}" must hold 3 numbers.`);
  return [values[0], values[1], values[2]];
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

function parseFunction(node: XmlNode, owner: string): KinematicFunction {
  switch (node.name) {
    case 'Constant':
      return new ConstantFunction(parseOpenSimNumber(childText(node, 'value') ?? '0'));
    case 'LinearFunction': {
      const c = childNumbers(node, 'coefficients') ?? [1, 0];
      return new LinearFunction(c[0] ?? 1, c[1] ?? 0);
    }
    case 'PolynomialFunction':
      return new PolynomialFunction(childNumbers(node, 'coefficients') ?? [0]);
    case 'SimmSpline':
    case 'NaturalCubicSpline':
      return new CubicSpline(node.name, childNumbers(node, 'x') ?? [], childNumbers(node, 'y') ?? []);
    case 'PiecewiseLinearFunction':
      return new PiecewiseLinearFunction(childNumbers(node, 'x') ?? [], childNumbers(node, 'y') ?? []);
    case 'GCVSpline':
      return new NaturalOddSpline(
        Number(childText(node, 'degree') ?? '5'),
        childNumbers(node, 'x') ?? [],
        childNumbers(node, 'y') ?? [],
      );
    case 'MultiplierFunction': {
      const inner = findFunction(node, `${owner} (MultiplierFunction)`);
      if (!inner) throw new ModelFormatError(`The MultiplierFunction of ${owner} has no inner function.`);
      return new MultiplierFunction(inner, parseOpenSimNumber(childText(node, 'scale') ?? '1'));
    }
    default:
      throw new UnsupportedModelError(
        `Function type ${node.name} (used by ${owner}) is not supported. Supported: ${[...FUNCTION_TYPES].join(', ')}.`,
      );
  }
}

/**
 * The function element held by an element: OpenSim 4 writes it as a direct child (<LinearFunction name="function">),
 * OpenSim 3 wraps it in <function>...</function> (or <coupled_coordinates_function>).
 */
export function functionElement(parent: XmlNode): XmlNode | undefined {
  const direct = parent.children.find(
    (child) => FUNCTION_TYPES.has(child.name) || UNSUPPORTED_FUNCTION_TYPES.has(child.name),
  );
  if (direct) return direct;
  for (const wrapperName of ['function', 'coupled_coordinates_function']) {
    const wrapper = childNamed(parent, wrapperName);
    if (wrapper && wrapper.children.length > 0) return wrapper.children[0];
  }
  return undefined;
}

export function findFunction(parent: XmlNode, owner: string): KinematicFunction | undefined {
  const element = functionElement(parent);
  return element && parseFunction(element, owner);
}

// ---------------------------------------------------------------------------------------------
// Frames
// ---------------------------------------------------------------------------------------------

type ResolvedFrame = ModelFrame;

interface FrameScope {
  bodyNames: Set<string>;
  /** Offset frames owned by each joint (OpenSim 4 <frames>), by joint name then frame name. */
  jointFrames: Map<string, Map<string, XmlNode>>;
  /** Offset frames owned by bodies or the model (<components>), by name. */
  otherFrames: Map<string, XmlNode>;
}

const IDENTITY = bodyFixedXyzToMatrix(ZERO);

function frameFromBody(body: string): ResolvedFrame {
  return { body, rotation: IDENTITY, translationM: [0, 0, 0] };
}

function resolveFramePath(
  path: string,
  scope: FrameScope,
  jointName: string | undefined,
  owner: string,
  depth = 0,
): ResolvedFrame {
  if (depth > 16) throw new ModelFormatError(`Frame references of ${owner} form a cycle.`);
  const segments = path.split('/').filter((s) => s !== '' && s !== '.' && s !== '..');
  const last = segments[segments.length - 1];
  if (!last) throw new ModelFormatError(`${owner} refers to an empty frame path.`);
  const jointIndex = segments.indexOf('jointset');
  const ownJoint = jointIndex >= 0 ? segments[jointIndex + 1] : !path.startsWith('/') ? jointName : undefined;
  const offset =
    (ownJoint !== undefined ? scope.jointFrames.get(ownJoint)?.get(last) : undefined) ??
    (last === 'ground' || scope.bodyNames.has(last) ? undefined : scope.otherFrames.get(last));
  if (offset) return resolveOffsetFrame(offset, scope, ownJoint, owner, depth + 1);
  if (last === 'ground' || scope.bodyNames.has(last)) return frameFromBody(last);
  throw new ModelFormatError(
    `${owner} refers to frame "${path}", which is neither a body, ground nor a PhysicalOffsetFrame of the model.`,
  );
}

function resolveOffsetFrame(
  node: XmlNode,
  scope: FrameScope,
  jointName: string | undefined,
  owner: string,
  depth: number,
): ResolvedFrame {
  const parentPath = childText(node, 'socket_parent');
  if (!parentPath)
    throw new ModelFormatError(`PhysicalOffsetFrame "${node.attributes.name}" of ${owner} has no <socket_parent>.`);
  const parent = resolveFramePath(parentPath, scope, jointName, owner, depth);
  const offsetRotation = bodyFixedXyzToMatrix(vec3(node, 'orientation'));
  const offsetTranslation = vec3(node, 'translation');
  return composeFrames(parent, offsetRotation, offsetTranslation);
}

function composeFrames(parent: ResolvedFrame, rotation: Float64Array, translationM: Vec3): ResolvedFrame {
  const r = parent.rotation;
  const composed = new Float64Array(9);
  multiply(composed, 0, r, 0, rotation, 0);
  const t = parent.translationM;
  return {
    body: parent.body,
    rotation: composed,
    translationM: [
      t[0] + r[0] * translationM[0] + r[1] * translationM[1] + r[2] * translationM[2],
      t[1] + r[3] * translationM[0] + r[4] * translationM[1] + r[5] * translationM[2],
      t[2] + r[6] * translationM[0] + r[7] * translationM[1] + r[8] * translationM[2],
    ],
  };
}

function toOffset(frame: ResolvedFrame): FrameOffset {
  const angles: Vec3 = [0, 0, 0];
  matrixToBodyFixedXyz(frame.rotation, 0, angles, 0);
  return { translationM: frame.translationM, orientationXyzRad: angles };
}

// ---------------------------------------------------------------------------------------------
// Joints and coordinates
// ---------------------------------------------------------------------------------------------

function parseCoordinate(node: XmlNode, joint: string, motionType: MotionType): CoordinateDescription {
  const range = childNumbers(node, 'range') ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return {
    name: node.attributes.name,
    joint,
    motionType,
    defaultValue: parseOpenSimNumber(childText(node, 'default_value') ?? '0'),
    rangeMin: range[0] ?? Number.NEGATIVE_INFINITY,
    rangeMax: range[1] ?? Number.POSITIVE_INFINITY,
    clamped: childBoolean(node, 'clamped') ?? false,
    locked: childBoolean(node, 'locked') ?? false,
  };
}

function constantAxis(axis: Vec3): TransformAxisDescription {
  return { axis, fn: new ConstantFunction(0) };
}

function coordinateAxis(axis: Vec3, coordinate: string | undefined): TransformAxisDescription {
  return coordinate === undefined ? constantAxis(axis) : { axis, coordinate, fn: new LinearFunction(1, 0) };
}

const X: Vec3 = [1, 0, 0];
const Y: Vec3 = [0, 1, 0];
const Z: Vec3 = [0, 0, 1];

type Axes = Pick<JointDescription, 'rotations' | 'translations'>;

/** The fixed joint types as spatial transforms (OpenSim's PinJoint rotates about Z, etc.). */
function predefinedAxes(type: JointType, names: string[], jointName: string): Axes {
  const need = {
    PinJoint: 1,
    UniversalJoint: 2,
    BallJoint: 3,
    GimbalJoint: 3,
    FreeJoint: 6,
    WeldJoint: 0,
    SliderJoint: 1,
    PlanarJoint: 3,
  }[type as Exclude<JointType, 'CustomJoint'>];
  if (names.length !== need)
    throw new ModelFormatError(`${type} "${jointName}" must have ${need} coordinates (found ${names.length}).`);
  const c = (i: number) => names[i];
  switch (type) {
    case 'PinJoint':
      return {
        rotations: [coordinateAxis(Z, c(0)), constantAxis(X), constantAxis(Y)],
        translations: [constantAxis(X), constantAxis(Y), constantAxis(Z)],
      };
    case 'UniversalJoint':
      return {
        rotations: [coordinateAxis(X, c(0)), coordinateAxis(Y, c(1)), constantAxis(Z)],
        translations: [constantAxis(X), constantAxis(Y), constantAxis(Z)],
      };
    case 'BallJoint':
    case 'GimbalJoint':
      return {
        rotations: [coordinateAxis(X, c(0)), coordinateAxis(Y, c(1)), coordinateAxis(Z, c(2))],
        translations: [constantAxis(X), constantAxis(Y), constantAxis(Z)],
      };
    case 'FreeJoint':
      return {
        rotations: [coordinateAxis(X, c(0)), coordinateAxis(Y, c(1)), coordinateAxis(Z, c(2))],
        translations: [coordinateAxis(X, c(3)), coordinateAxis(Y, c(4)), coordinateAxis(Z, c(5))],
      };
    case 'SliderJoint':
      return {
        rotations: [constantAxis(X), constantAxis(Y), constantAxis(Z)],
        translations: [coordinateAxis(X, c(0)), constantAxis(Y), constantAxis(Z)],
      };
    case 'PlanarJoint':
      return {
        rotations: [coordinateAxis(Z, c(0)), constantAxis(X), constantAxis(Y)],
        translations: [coordinateAxis(X, c(1)), coordinateAxis(Y, c(2)), constantAxis(Z)],
      };
    default:
      return {
        rotations: [constantAxis(X), constantAxis(Y), constantAxis(Z)],
        translations: [constantAxis(X), constantAxis(Y), constantAxis(Z)],
      };
  }
}

function parseSpatialTransform(joint: XmlNode, jointName: string): Axes {
  const transform = childNamed(joint, 'SpatialTransform');
  if (!transform) throw new ModelFormatError(`CustomJoint "${jointName}" has no <SpatialTransform>.`);
  const axes = childrenNamed(transform, 'TransformAxis');
  const byName = new Map(axes.map((axis) => [axis.attributes.name, axis]));
  const defaults: Vec3[] = [X, Y, Z];
  const read = (name: string, index: number): TransformAxisDescription => {
    const node = byName.get(name) ?? axes[index];
    if (!node) return constantAxis(defaults[index % 3]);
    const owner = `axis ${name} of joint "${jointName}"`;
    const names = (childText(node, 'coordinates') ?? '').split(/\s+/).filter((s) => s !== '');
    if (names.length > 1)
      throw new UnsupportedModelError(
        `The ${owner} depends on ${names.length} coordinates (${names.join(', ')}); only one-coordinate transform axes are supported.`,
      );
    const axis = vec3(node, 'axis', defaults[index % 3]);
    const length = Math.hypot(axis[0], axis[1], axis[2]);
    const unit: Vec3 = length > 0 ? [axis[0] / length, axis[1] / length, axis[2] / length] : defaults[index % 3];
    // OpenSim gives an axis with a coordinate and no function a LinearFunction(1, 0), otherwise a Constant(0).
    const fn = findFunction(node, owner) ?? (names.length === 1 ? new LinearFunction(1, 0) : new ConstantFunction(0));
    return { axis: unit, coordinate: names[0], fn };
  };
  return {
    rotations: [read('rotation1', 0), read('rotation2', 1), read('rotation3', 2)],
    translations: [read('translation1', 3), read('translation2', 4), read('translation3', 5)],
  };
}

/**
 * OpenSim's motion type (CustomJoint::constructCoordinates): a CustomJoint coordinate is rotational
 * when a rotation axis is directly proportional to it (a LinearFunction, e.g. slope 1 or -1 for
 * left-side joints), otherwise "coupled", which OpenSim leaves unconverted in degree files (the
 * patella's knee_angle_r_beta through a SimmSpline, for one). Coordinates of the fixed joint types
 * are rotational or translational by their axis.
 */
function motionTypeOf(type: string, name: string, axes: Axes): MotionType {
  const onRotation = axes.rotations.filter((axis) => axis.coordinate === name);
  if (type !== 'CustomJoint') return onRotation.length > 0 ? 'rotational' : 'translational';
  if (onRotation.some((axis) => axis.fn instanceof LinearFunction && axis.fn.slope !== 0)) return 'rotational';
  return onRotation.length > 0 ? 'coupled' : 'translational';
}

interface ParsedJoint {
  joint: JointDescription;
  coordinates: CoordinateDescription[];
}

function buildJoint(
  type: string,
  node: XmlNode,
  childBody: string,
  parent: ResolvedFrame,
  child: ResolvedFrame,
  coordinateNodes: XmlNode[],
): ParsedJoint {
  const name = node.attributes.name ?? `${childBody}_joint`;
  if (!JOINT_TYPES.has(type)) {
    throw new UnsupportedModelError(
      `Joint type ${type} ("${name}") is not supported. Supported: ${[...JOINT_TYPES].join(', ')}.`,
    );
  }
  if (childBoolean(node, 'reverse'))
    throw new UnsupportedModelError(`Joint "${name}" is reversed (<reverse>true</reverse>), which is not supported.`);
  if (child.body !== childBody)
    throw new ModelFormatError(
      `Joint "${name}" attaches its child frame to "${child.body}" but was expected on "${childBody}".`,
    );
  const names = coordinateNodes.map((c) => c.attributes.name);
  const axes =
    type === 'CustomJoint' ? parseSpatialTransform(node, name) : predefinedAxes(type as JointType, names, name);
  for (const axis of [...axes.rotations, ...axes.translations]) {
    if (axis.coordinate !== undefined && !names.includes(axis.coordinate)) {
      throw new ModelFormatError(`Joint "${name}" uses coordinate "${axis.coordinate}" that it does not define.`);
    }
  }
  const joint: JointDescription = {
    name,
    type: type as JointType,
    parentBody: parent.body,
    childBody,
    parentOffset: toOffset(parent),
    childOffset: toOffset(child),
    ...axes,
  };
  return {
    joint,
    coordinates: coordinateNodes.map((c) => parseCoordinate(c, name, motionTypeOf(type, c.attributes.name, axes))),
  };
}

// ---------------------------------------------------------------------------------------------
// Bodies, markers, constraints
// ---------------------------------------------------------------------------------------------

function parseBody(node: XmlNode): BodyDescription {
  const name = node.attributes.name;
  const geometryFiles: string[] = [];
  let geometryScaleFactors: Vec3 = [1, 1, 1];
  const attached = childNamed(node, 'attached_geometry');
  if (attached) {
    for (const geometry of attached.children) {
      if (geometry.name === 'Mesh') {
        const file = childText(geometry, 'mesh_file');
        if (file) geometryFiles.push(file);
      }
      geometryScaleFactors = vec3(geometry, 'scale_factors', [1, 1, 1]);
    }
  }
  // OpenSim 3: <VisibleObject><geometry_files>a.vtp b.vtp</geometry_files><scale_factors>...</scale_factors>.
  const visible = childNamed(node, 'VisibleObject');
  if (visible) {
    geometryFiles.push(...(childText(visible, 'geometry_files') ?? '').split(/\s+/).filter((s) => s !== ''));
    geometryScaleFactors = vec3(visible, 'scale_factors', [1, 1, 1]);
  }
  const massKg = childNumbers(node, 'mass')?.[0];
  const massCenterM = childNumbers(node, 'mass_center') ? vec3(node, 'mass_center') : undefined;
  return {
    name,
    geometryFiles,
    geometryScaleFactors,
    ...(massKg !== undefined && { massKg }),
    ...(massCenterM && { massCenterM }),
  };
}

function parseConstraints(model: XmlNode): CouplerDescription[] {
  const set = childNamed(model, 'ConstraintSet');
  const objects = set ? childNamed(set, 'objects') : undefined;
  const couplers: CouplerDescription[] = [];
  for (const node of objects?.children ?? []) {
    const name = node.attributes.name ?? node.name;
    const enforced = childBoolean(node, 'isEnforced') ?? !(childBoolean(node, 'isDisabled') ?? false);
    if (!enforced) continue;
    if (node.name !== 'CoordinateCouplerConstraint') {
      throw new UnsupportedModelError(
        `Constraint ${node.name} ("${name}") is not supported; only CoordinateCouplerConstraint is. Disable it in the model (isEnforced false) to load the model without it.`,
      );
    }
    const independents = (childText(node, 'independent_coordinate_names') ?? '').split(/\s+/).filter((s) => s !== '');
    const dependent = (childText(node, 'dependent_coordinate_name') ?? '').trim();
    if (independents.length !== 1) {
      throw new UnsupportedModelError(
        `CoordinateCouplerConstraint "${name}" has ${independents.length} independent coordinates; only one is supported.`,
      );
    }
    const fn = findFunction(node, `CoordinateCouplerConstraint "${name}"`);
    if (!fn) throw new ModelFormatError(`CoordinateCouplerConstraint "${name}" has no coupled_coordinates_function.`);
    const scale = parseOpenSimNumber(childText(node, 'scale_factor') ?? '1');
    couplers.push({
      name,
      independent: independents[0],
      dependent,
      fn: scale === 1 ? fn : new MultiplierFunction(fn, scale),
    });
  }
  return couplers;
}

function parseMarkers(model: XmlNode, scope: FrameScope): MarkerDescription[] {
  const set = childNamed(model, 'MarkerSet');
  const objects = set ? childNamed(set, 'objects') : undefined;
  return childrenNamed(objects ?? EMPTY_NODE, 'Marker').map((node) => {
    const name = node.attributes.name;
    const framePath = childText(node, 'socket_parent_frame') ?? childText(node, 'body');
    if (!framePath) throw new ModelFormatError(`Marker "${name}" names no body (<socket_parent_frame> or <body>).`);
    const frame = resolveFramePath(framePath, scope, undefined, `marker "${name}"`);
    const local = vec3(node, 'location');
    return { name, body: frame.body, locationM: composeFrames(frame, IDENTITY, local).translationM };
  });
}

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

export function objectsOf(model: XmlNode, setName: string): XmlNode[] {
  const set = childNamed(model, setName);
  const objects = set ? childNamed(set, 'objects') : undefined;
  return objects?.children ?? [];
}

/** OpenSim 4: joints in <JointSet>, frames as PhysicalOffsetFrames, markers with socket_parent_frame. */
function readOpenSim4(model: XmlNode, scope: FrameScope): { joints: ParsedJoint[] } {
  const joints: ParsedJoint[] = [];
  for (const node of objectsOf(model, 'JointSet')) {
    const name = node.attributes.name;
    const parentPath = childText(node, 'socket_parent_frame') ?? childText(node, 'parent_frame');
    const childPath = childText(node, 'socket_child_frame') ?? childText(node, 'child_frame');
    if (!parentPath || !childPath)
      throw new ModelFormatError(`Joint "${name}" lacks <socket_parent_frame> or <socket_child_frame>.`);
    const owner = `joint "${name}"`;
    const parent = resolveFramePath(parentPath, scope, name, owner);
    const child = resolveFramePath(childPath, scope, name, owner);
    const coordinates = childrenNamed(childNamed(node, 'coordinates') ?? EMPTY_NODE, 'Coordinate');
    joints.push(buildJoint(node.name, node, child.body, parent, child, coordinates));
  }
  return { joints };
}

/** OpenSim 3.3: each body holds its <Joint> with parent_body, location_in_parent, orientation_in_parent, location, orientation. */
function readOpenSim3(model: XmlNode): { joints: ParsedJoint[] } {
  const joints: ParsedJoint[] = [];
  for (const body of objectsOf(model, 'BodySet')) {
    const holder = childNamed(body, 'Joint');
    const node = holder?.children[0];
    if (!node) continue;
    const parentBody = (childText(node, 'parent_body') ?? '').trim();
    if (!parentBody)
      throw new ModelFormatError(
        `Joint "${node.attributes.name}" of body "${body.attributes.name}" names no <parent_body>.`,
      );
    const parent: ResolvedFrame = {
      body: parentBody,
      rotation: bodyFixedXyzToMatrix(vec3(node, 'orientation_in_parent')),
      translationM: vec3(node, 'location_in_parent'),
    };
    const child: ResolvedFrame = {
      body: body.attributes.name,
      rotation: bodyFixedXyzToMatrix(vec3(node, 'orientation')),
      translationM: vec3(node, 'location'),
    };
    const coordinateSet = childNamed(node, 'CoordinateSet');
    const coordinates = childrenNamed(
      coordinateSet ? (childNamed(coordinateSet, 'objects') ?? coordinateSet) : EMPTY_NODE,
      'Coordinate',
    );
    joints.push(buildJoint(node.name, node, body.attributes.name, parent, child, coordinates));
  }
  return { joints };
}

/** The <Model> element of a parsed .osim document. */
export function modelElement(root: XmlNode): XmlNode {
  const model = root.name === 'Model' ? root : childNamed(root, 'Model');
  if (!model) throw new ModelFormatError('Not an OpenSim model: no <Model> element under <OpenSimDocument>.');
  return model;
}

/** OpenSim 4 documents have a <JointSet>; OpenSim 3.3 ones keep each joint in its child body. */
export function isOpenSim4(model: XmlNode): boolean {
  return childNamed(model, 'JointSet') !== undefined;
}

/** The name of the ground body: "ground" in OpenSim 4, the first body of the BodySet in OpenSim 3.3. */
function groundNameOf(model: XmlNode): string {
  return isOpenSim4(model) ? 'ground' : (objectsOf(model, 'BodySet')[0]?.attributes.name ?? 'ground');
}

function frameScope(model: XmlNode, bodyNames: Set<string>): FrameScope {
  const jointFrames = new Map<string, Map<string, XmlNode>>();
  for (const joint of objectsOf(model, 'JointSet')) {
    const frames = childNamed(joint, 'frames');
    jointFrames.set(
      joint.attributes.name,
      new Map(childrenNamed(frames ?? EMPTY_NODE, 'PhysicalOffsetFrame').map((f) => [f.attributes.name, f])),
    );
  }
  const otherFrames = new Map(
    model.children
      .filter((child) => child.name !== 'JointSet')
      .flatMap((child) => descendants(child, (node) => node.name === 'PhysicalOffsetFrame'))
      .map((frame) => [frame.attributes.name, frame]),
  );
  return { bodyNames, jointFrames, otherFrames };
}

/** A frame of the model as its body ("ground" for ground) and its fixed transform in that body. */
export interface ModelFrame {
  body: string;
  /** Row-major rotation of the frame in the body frame. */
  rotation: Float64Array;
  translationM: Vec3;
}

/**
 * Resolves frame references of a model (a socket path such as "/bodyset/femur_r" or
 * "/jointset/hip_r/pelvis_offset", or an OpenSim 3.3 body name) to their body and offset.
 * `jointName` resolves paths relative to a joint (its own <frames>).
 */
export type FrameResolver = (path: string, owner: string, jointName?: string) => ModelFrame;

export function modelFrames(model: XmlNode): FrameResolver {
  const groundName = groundNameOf(model);
  const bodyNames = new Set(objectsOf(model, 'BodySet').map((body) => body.attributes.name));
  bodyNames.add(groundName);
  const scope = frameScope(model, bodyNames);
  return (path, owner, jointName) => {
    const frame = resolveFramePath(path, scope, jointName, owner);
    return frame.body === groundName ? { ...frame, body: 'ground' } : frame;
  };
}

/** Reads the kinematic content of an OpenSim 3.3 or 4.x .osim document. */
export function readOsim(text: string): OsimModel {
  return readOsimTree(parseXmlTree(text));
}

/** readOsim on an already parsed document (or its <Model> element). */
export function readOsimTree(root: XmlNode): OsimModel {
  const model = modelElement(root);
  const bodyNodes = objectsOf(model, 'BodySet');
  const groundName = groundNameOf(model);
  const bodies = bodyNodes
    .filter((node) => node.attributes.name !== groundName && node.attributes.name !== 'ground')
    .map(parseBody);
  const scope = frameScope(model, new Set(bodies.map((b) => b.name)));

  const { joints } = isOpenSim4(model) ? readOpenSim4(model, scope) : readOpenSim3(model);
  for (const parsed of joints) {
    if (parsed.joint.parentBody === groundName) parsed.joint.parentBody = 'ground';
  }
  const markers = parseMarkers(model, { ...scope, bodyNames: new Set([...scope.bodyNames, groundName]) }).map(
    (marker) => (marker.body === groundName ? { ...marker, body: 'ground' } : marker),
  );

  const jointByChild = new Map<string, string>();
  for (const { joint } of joints) {
    const previous = jointByChild.get(joint.childBody);
    if (previous)
      throw new UnsupportedModelError(
        `Body "${joint.childBody}" is the child of two joints ("${previous}" and "${joint.name}"): closed kinematic loops are not supported.`,
      );
    jointByChild.set(joint.childBody, joint.name);
  }
  for (const body of bodies) {
    if (!jointByChild.has(body.name))
      throw new UnsupportedModelError(
        `Body "${body.name}" has no joint connecting it to the model; free-floating bodies are not supported.`,
      );
  }

  return {
    name: model.attributes.name ?? 'model',
    bodies,
    joints: joints.map((j) => j.joint),
    coordinates: joints.flatMap((j) => j.coordinates),
    markers,
    couplers: parseConstraints(model),
  };
}
