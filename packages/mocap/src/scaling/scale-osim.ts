import { type GeometryPathDescription, parentFramePath, readModelPaths } from '../model/geometry-paths.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import type { Vec3 } from '../model/osim-model.ts';
import { geometryPathLengthM } from '../model/path-length.ts';
import {
  functionElement,
  type FrameResolver,
  isOpenSim4,
  modelElement,
  modelFrames,
  objectsOf,
  readOsimTree,
  UnsupportedModelError,
} from '../model/read-osim.ts';
import { bodyFixedXyzToMatrix } from '../model/rotation.ts';
import {
  childNamed,
  childNumbers,
  childText,
  formatOpenSimNumbers,
  setText,
  type XmlDocument,
  type XmlNode,
} from '../model/xml-tree.ts';

/**
 * OpenSim's Model::scale (OpenSim/Simulation/Model/Model.cpp, 4.x) on an .osim document, editing
 * the values in place so that everything else in the file (muscles, controllers, probes,
 * appearance, whatever this program does not model) is written back untouched:
 *
 * 1. In the default pose, the length of every GeometryPath (muscles, ligaments, path springs).
 * 2. Each component scaled by the factors of the body it is fixed to: bodies' mass centres and
 *    attached geometry; offset frames (joint frames among them), markers and path points
 *    elementwise; the translation functions of a CustomJoint by the parent body's factors along
 *    each axis; moving path points' functions; wrap objects' positions and sizes; contact
 *    geometry's positions and sizes (which OpenSim leaves as they are; OpenCap scales them by hand).
 * 3. Inertias with the bodies' factors; masses either with the bodies' volumes or, preserving the
 *    mass distribution, all by one factor so the total is the subject's mass.
 * 4. Every muscle's optimal fibre length and tendon slack length (a ligament's or path spring's
 *    resting length) by the ratio of its path length after scaling to before, in the default pose.
 *
 * Where OpenSim wraps a scaled function in a MultiplierFunction, the function's own values are
 * multiplied instead (the same function, and no element the input did not have).
 */
export interface OsimScaleOptions {
  /** Per body, X Y Z factors; bodies not listed are not scaled. */
  factors: ReadonlyMap<string, Vec3>;
  /** The subject's mass, kg: the scaled model's total (OpenSim's ScaleTool <mass>). */
  massKg?: number;
  /** true (ScaleTool's default and OpenCap's): masses keep their proportions; false: each scales with its body's volume. */
  preserveMassDistribution?: boolean;
}

export interface OsimScaleResult {
  /** Body masses after scaling, kg, in BodySet order. */
  bodyMassesKg: Map<string, number>;
  /** Per path-owning component: path length after / before scaling in the default pose. */
  pathLengthRatios: Map<string, number>;
}

function numbers(node: XmlNode, name: string): number[] | undefined {
  const values = childNumbers(node, name);
  return values && values.length > 0 ? values : undefined;
}

function setNumbers(node: XmlNode, name: string, values: ArrayLike<number>): void {
  const child = childNamed(node, name);
  if (child) setText(child, formatOpenSimNumbers(values));
}

/** Multiplies an element's numbers elementwise by `factors` (repeated when the element holds more than three). */
function scaleElementwise(node: XmlNode, name: string, factors: readonly number[]): void {
  const values = numbers(node, name);
  if (values)
    setNumbers(
      node,
      name,
      values.map((value, i) => value * factors[i % factors.length]),
    );
}

function scaleScalar(node: XmlNode, name: string, factor: number): void {
  scaleElementwise(node, name, [factor]);
}

/**
 * A function multiplied by `factor` in place: the values that make it (a constant, coefficients,
 * spline ordinates, a multiplier's scale). A function that cannot be scaled so is refused by name.
 */
export function scaleFunctionInPlace(fn: XmlNode, factor: number, owner: string): void {
  switch (fn.name) {
    case 'Constant':
      return scaleScalar(fn, 'value', factor);
    case 'LinearFunction':
    case 'PolynomialFunction':
      return scaleScalar(fn, 'coefficients', factor);
    case 'SimmSpline':
    case 'NaturalCubicSpline':
    case 'GCVSpline':
    case 'PiecewiseLinearFunction':
    case 'PiecewiseConstantFunction':
      return scaleScalar(fn, 'y', factor);
    case 'MultiplierFunction':
      if (childNamed(fn, 'scale')) return scaleScalar(fn, 'scale', factor);
      throw new UnsupportedModelError(`The MultiplierFunction of ${owner} has no <scale> to scale.`);
    case 'Sine':
      scaleScalar(fn, 'amplitude', factor);
      return scaleScalar(fn, 'offset', factor);
    default:
      throw new UnsupportedModelError(`${owner} uses a ${fn.name}, which cannot be scaled; only known functions can.`);
  }
}

/** Every element below `node` (not inside <defaults>, whose entries are templates), with its parent. */
function* walk(node: XmlNode): Generator<{ node: XmlNode; parent: XmlNode }> {
  for (const child of node.children) {
    if (child.name === 'defaults') continue;
    yield { node: child, parent: node };
    yield* walk(child);
  }
}

/** Scales the document in place (see the module comment). */
export function scaleOsimDocument(document: XmlDocument, options: OsimScaleOptions): OsimScaleResult {
  const model = modelElement(document.root);
  const before = pathLengths(model);
  const factorsOf = (body: string): Vec3 | undefined => (body === 'ground' ? undefined : options.factors.get(body));
  const frames = modelFrames(model);
  const baseBodyFactors = (path: string | undefined, owner: string, jointName?: string): Vec3 | undefined =>
    path === undefined ? undefined : factorsOf(frames(path, owner, jointName).body);

  scaleFramesAndJoints(model, frames, baseBodyFactors, factorsOf);
  scaleStations(model, baseBodyFactors);
  scaleWrapObjects(model, frames, factorsOf);
  const bodyMassesKg = scaleBodies(model, factorsOf, options);

  const after = pathLengths(model);
  const pathLengthRatios = new Map<string, number>();
  for (const { node } of walk(model)) {
    const name = node.attributes.name;
    const pre = before.get(node);
    if (pre === undefined || !(pre > 0)) continue;
    const ratio = after.get(node)! / pre;
    pathLengthRatios.set(name ?? node.name, ratio);
    // Muscle::extendPostScale, Ligament and PathSpring: the lengths that set the force scale with the path.
    for (const property of ['optimal_fiber_length', 'tendon_slack_length', 'resting_length'])
      scaleScalar(node, property, ratio);
  }
  return { bodyMassesKg, pathLengthRatios };
}

/** Every path-owning component's path length in the default pose (couplers applied). */
function pathLengths(model: XmlNode): Map<XmlNode, number> {
  const kinematics = new KinematicModel(readOsimTree(model));
  const q = kinematics.defaultCoordinates();
  kinematics.setCoordinates(q);
  const { paths, wrapObjects } = readModelPaths(model, modelFrames(model));
  const byOwner = new Map<string, GeometryPathDescription>(
    paths.map((path) => [`${path.ownerType}/${path.owner}`, path]),
  );
  const lengths = new Map<XmlNode, number>();
  for (const { node } of walk(model)) {
    if (!childNamed(node, 'GeometryPath')) continue;
    const path = byOwner.get(`${node.name}/${node.attributes.name ?? node.name}`);
    if (path) lengths.set(node, geometryPathLengthM(path, wrapObjects, { kinematics, q }));
  }
  return lengths;
}

function scaleFramesAndJoints(
  model: XmlNode,
  frames: FrameResolver,
  baseBodyFactors: (path: string | undefined, owner: string, jointName?: string) => Vec3 | undefined,
  factorsOf: (body: string) => Vec3 | undefined,
): void {
  // Offset frames (OpenSim 4): the translation by the factors of the body their parent is fixed to.
  for (const { node, parent } of walk(model)) {
    if (node.name !== 'PhysicalOffsetFrame') continue;
    const joint = parent.name === 'frames' ? jointOwning(model, node) : undefined;
    const factors = baseBodyFactors(childText(node, 'socket_parent'), `frame "${node.attributes.name}"`, joint);
    if (factors) scaleElementwise(node, 'translation', factors);
  }
  const joints = isOpenSim4(model)
    ? objectsOf(model, 'JointSet').map((joint) => ({
        joint,
        parentFactors: baseBodyFactors(
          childText(joint, 'socket_parent_frame') ?? childText(joint, 'parent_frame'),
          `joint "${joint.attributes.name}"`,
          joint.attributes.name,
        ),
      }))
    : objectsOf(model, 'BodySet').flatMap((body) => {
        // OpenSim 3.3: the joint sits in its child body, its frames as locations in parent and child.
        const joint = childNamed(body, 'Joint')?.children[0];
        if (!joint) return [];
        const parentFactors = factorsOf(frames((childText(joint, 'parent_body') ?? '').trim(), 'joint').body);
        if (parentFactors) scaleElementwise(joint, 'location_in_parent', parentFactors);
        const childFactors = factorsOf(body.attributes.name ?? '');
        if (childFactors) scaleElementwise(joint, 'location', childFactors);
        return [{ joint, parentFactors }];
      });
  for (const { joint, parentFactors } of joints) {
    const transform = childNamed(joint, 'SpatialTransform');
    if (!transform || !parentFactors) continue;
    // SpatialTransform::scale: a translation axis's function by the parent's factors along that axis.
    for (const axis of transform.children.filter((child) => /^translation[123]$/.test(child.attributes.name ?? ''))) {
      const direction = numbers(axis, 'axis') ?? [0, 0, 0];
      const factor =
        direction[0] * parentFactors[0] + direction[1] * parentFactors[1] + direction[2] * parentFactors[2];
      const fn = functionElement(axis);
      if (fn) scaleFunctionInPlace(fn, factor, `axis ${axis.attributes.name} of joint "${joint.attributes.name}"`);
    }
  }
}

/** The joint whose <frames> hold this offset frame. */
function jointOwning(model: XmlNode, frame: XmlNode): string | undefined {
  return objectsOf(model, 'JointSet').find((joint) => childNamed(joint, 'frames')?.children.includes(frame))?.attributes
    .name;
}

const STATIONS = new Set(['Marker', 'PathPoint', 'ConditionalPathPoint', 'Station']);
const CONTACT_GEOMETRY = new Set(['ContactSphere', 'ContactEllipsoid', 'ContactCylinder', 'ContactHalfSpace']);

/** Markers, stations and path points by their frame's body; moving path points' functions; contact geometry. */
function scaleStations(
  model: XmlNode,
  baseBodyFactors: (path: string | undefined, owner: string) => Vec3 | undefined,
): void {
  for (const { node } of walk(model)) {
    const owner = `${node.name} "${node.attributes.name ?? ''}"`;
    if (STATIONS.has(node.name)) {
      const factors = baseBodyFactors(parentFramePath(node), owner);
      if (factors) scaleElementwise(node, 'location', factors);
    } else if (node.name === 'MovingPathPoint') {
      const factors = baseBodyFactors(parentFramePath(node), owner);
      if (!factors) continue;
      (['x', 'y', 'z'] as const).forEach((axis, i) => {
        const holder = childNamed(node, `${axis}_location`);
        const fn = holder && functionElement(holder);
        if (fn) scaleFunctionInPlace(fn, factors[i], `${owner}, ${axis}_location`);
      });
    } else if (CONTACT_GEOMETRY.has(node.name)) {
      const factors = baseBodyFactors(childText(node, 'socket_frame') ?? childText(node, 'body_name'), owner);
      if (!factors) continue;
      scaleElementwise(node, 'location', factors);
      const mean = (factors[0] + factors[1] + factors[2]) / 3;
      scaleScalar(node, 'radius', mean);
      scaleScalar(node, 'length', mean);
      scaleElementwise(node, 'radii', factors);
    }
  }
}

/** |column k of the wrap object's rotation ∘ factors|: the object's size change along its own axis k. */
function axisFactor(rotation: Float64Array, factors: Vec3, k: number): number {
  return Math.hypot(rotation[k] * factors[0], rotation[3 + k] * factors[1], rotation[6 + k] * factors[2]);
}

/** WrapObject and its shapes' extendScale: position by the body's factors, size along the object's own axes. */
function scaleWrapObjects(model: XmlNode, frames: FrameResolver, factorsOf: (body: string) => Vec3 | undefined): void {
  for (const { node, parent } of walk(model)) {
    if (node.name !== 'WrapObjectSet') continue;
    const factors = factorsOf(frames(parent.attributes.name ?? '', `wrap objects of "${parent.attributes.name}"`).body);
    if (!factors) continue;
    for (const wrap of childNamed(node, 'objects')?.children ?? []) {
      scaleElementwise(wrap, 'translation', factors);
      const rotation = bodyFixedXyzToMatrix(numbers(wrap, 'xyz_body_rotation') ?? [0, 0, 0]);
      const [fx, fy, fz] = [0, 1, 2].map((k) => axisFactor(rotation, factors, k));
      switch (wrap.name) {
        case 'WrapCylinder':
          scaleScalar(wrap, 'radius', (fx + fy) / 2);
          scaleScalar(wrap, 'length', fz);
          break;
        case 'WrapSphere':
          scaleScalar(wrap, 'radius', (factors[0] + factors[1] + factors[2]) / 3);
          break;
        case 'WrapEllipsoid':
          scaleElementwise(wrap, 'dimensions', [fx, fy, fz]);
          break;
        case 'WrapTorus':
          scaleScalar(wrap, 'inner_radius', (fx + fy) / 2);
          scaleScalar(wrap, 'outer_radius', (fx + fy) / 2);
          break;
      }
    }
  }
}

/** SimTK::isNumericallyEqual with the default tolerance (SignificantReal). */
function numericallyEqual(a: number, b: number): boolean {
  const tolerance = Number.EPSILON ** (7 / 8);
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return Math.abs(a - b) <= (scale <= 1 ? tolerance : tolerance * scale);
}

type Matrix3 = number[][];

/**
 * Body::scaleInertialProperties: equal factors scale the inertia by their square; otherwise the
 * body is taken as a cylinder along its axis of least inertia, its radius and length recovered
 * from the moments, scaled, and the moments recomputed; products scale by the two factors of their axes.
 */
export function scaleInertia(
  inertia: Matrix3,
  unscaledMassKg: number,
  massKg: number,
  factors: Vec3,
  scaleMass: boolean,
): Matrix3 {
  const I = inertia.map((row) => [...row]);
  const massFactor = Math.abs(factors[0] * factors[1] * factors[2]);
  if (massKg <= Number.EPSILON) return I.map((row) => row.map(() => 0));
  if (numericallyEqual(factors[0], factors[1]) && numericallyEqual(factors[1], factors[2])) {
    const factor = (scaleMass ? massFactor : 1) * factors[0] * factors[0];
    return I.map((row) => row.map((value) => value * factor));
  }
  const axis = I[0][0] <= I[1][1] ? (I[0][0] <= I[2][2] ? 0 : 2) : I[1][1] <= I[2][2] ? 1 : 2;
  const radiusTerm = (2 * I[axis][axis]) / unscaledMassKg;
  const radius = radiusTerm < 0 ? 0 : Math.sqrt(radiusTerm);
  const other = axis === 0 ? 1 : 0;
  const lengthTerm = (12 * (I[other][other] - 0.25 * unscaledMassKg * radius * radius)) / unscaledMassKg;
  const length = (lengthTerm < 0 ? 0 : Math.sqrt(lengthTerm)) * factors[axis];
  const [a, b] = [0, 1, 2].filter((k) => k !== axis);
  const radiusSquared = radius * factors[a] * radius * factors[b];
  for (let k = 0; k < 3; k++)
    I[k][k] = k === axis ? 0.5 * massKg * radiusSquared : massKg * ((length * length) / 12 + 0.25 * radiusSquared);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) if (i !== j) I[i][j] *= factors[i] * factors[j] * (scaleMass ? massFactor : 1);
  return I;
}

const INERTIA_3_3 = ['inertia_xx', 'inertia_yy', 'inertia_zz', 'inertia_xy', 'inertia_xz', 'inertia_yz'];

/** [Ixx Iyy Izz Ixy Ixz Iyz] of a body (OpenSim 4's <inertia>, or 3.3's six elements). */
function readInertia(body: XmlNode): number[] | undefined {
  const modern = numbers(body, 'inertia');
  if (modern && modern.length === 6) return modern;
  const old = INERTIA_3_3.map((name) => numbers(body, name)?.[0]);
  return old.every((value) => value !== undefined) ? (old as number[]) : undefined;
}

function writeInertia(body: XmlNode, values: number[]): void {
  if (childNamed(body, 'inertia')) setNumbers(body, 'inertia', values);
  else INERTIA_3_3.forEach((name, i) => setNumbers(body, name, [values[i]]));
}

const toMatrix = ([xx, yy, zz, xy, xz, yz]: number[]): Matrix3 => [
  [xx, xy, xz],
  [xy, yy, yz],
  [xz, yz, zz],
];
const fromMatrix = (I: Matrix3): number[] => [I[0][0], I[1][1], I[2][2], I[0][1], I[0][2], I[1][2]];

/** Mass centres, attached geometry, inertias and masses of the bodies (Body::extendScale, scaleInertialProperties, scaleMass). */
function scaleBodies(
  model: XmlNode,
  factorsOf: (body: string) => Vec3 | undefined,
  options: OsimScaleOptions,
): Map<string, number> {
  const preserve = options.preserveMassDistribution ?? true;
  const bodies = objectsOf(model, 'BodySet').filter((body) => numbers(body, 'mass') !== undefined);
  const masses = new Map<XmlNode, number>();
  for (const body of bodies) {
    const factors = factorsOf(body.attributes.name ?? '');
    const unscaledMassKg = numbers(body, 'mass')![0];
    let massKg = unscaledMassKg;
    if (factors) {
      scaleElementwise(body, 'mass_center', factors);
      for (const geometry of childNamed(body, 'attached_geometry')?.children ?? [])
        scaleElementwise(geometry, 'scale_factors', factors);
      const visible = childNamed(body, 'VisibleObject');
      if (visible) scaleElementwise(visible, 'scale_factors', factors);
      if (!preserve) massKg *= Math.abs(factors[0] * factors[1] * factors[2]);
      const inertia = readInertia(body);
      if (inertia)
        writeInertia(body, fromMatrix(scaleInertia(toMatrix(inertia), unscaledMassKg, massKg, factors, !preserve)));
      setNumbers(body, 'mass', [massKg]);
    }
    masses.set(body, massKg);
  }
  const totalKg = [...masses.values()].reduce((sum, mass) => sum + mass, 0);
  const massFactor = options.massKg !== undefined && options.massKg > 0 && totalKg > 0 ? options.massKg / totalKg : 1;
  const result = new Map<string, number>();
  for (const [body, massKg] of masses) {
    if (massFactor !== 1) {
      setNumbers(body, 'mass', [massKg * massFactor]);
      const inertia = readInertia(body);
      if (inertia)
        writeInertia(
          body,
          inertia.map((value) => value * massFactor),
        );
    }
    result.set(body.attributes.name ?? '', massKg * massFactor);
  }
  return result;
}
