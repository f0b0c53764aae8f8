import {
  ConstantFunction,
  CubicSpline,
  type KinematicFunction,
  LinearFunction,
  MultiplierFunction,
  NaturalOddSpline,
  PiecewiseLinearFunction,
  PolynomialFunction,
} from '../model/functions.ts';
import type { FrameOffset, JointDescription, OsimModel, TransformAxisDescription, Vec3 } from '../model/osim-model.ts';

/**
 * Writes a model as an OpenSim 4 .osim document (OpenSimDocument Version 40000): BodySet, JointSet
 * (a CustomJoint with its SpatialTransform for every joint that has coordinates, a WeldJoint for
 * the others, each with its two PhysicalOffsetFrames), CoordinateSet inside the joints, MarkerSet
 * and the CoordinateCouplerConstraints. The model description carries no inertial properties, so
 * each body gets the mass the caller gives (or 1 kg) and a small spherical inertia; the file is
 * meant for kinematics (IK, visualisation, scaling), as OpenCap's scaled models are used.
 */
export interface OsimWriteOptions {
  /** Body mass by body name, kg (1 kg when absent). */
  bodyMassesKg?: ReadonlyMap<string, number>;
  /** Text for <credits>. */
  credits?: string;
}

export class OsimWriteError extends Error {
  override name = 'OsimWriteError';
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Shortest text that reads back to the same double (JavaScript's round-trip formatting). */
function num(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return 'Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  return Object.is(value, -0) ? '0' : String(value);
}

function nums(values: ArrayLike<number>): string {
  return Array.from(values, num).join(' ');
}

/** A tiny indenting XML writer: each element on its own line, like OpenSim's own files. */
class XmlLines {
  readonly lines: string[] = [];
  private depth = 0;
  open(tag: string, name?: string): void {
    this.lines.push(`${'\t'.repeat(this.depth)}<${tag}${name === undefined ? '' : ` name="${escapeXml(name)}"`}>`);
    this.depth++;
  }
  close(tag: string): void {
    this.depth--;
    this.lines.push(`${'\t'.repeat(this.depth)}</${tag}>`);
  }
  leaf(tag: string, text: string): void {
    this.lines.push(`${'\t'.repeat(this.depth)}<${tag}>${escapeXml(text)}</${tag}>`);
  }
  empty(tag: string): void {
    this.lines.push(`${'\t'.repeat(this.depth)}<${tag} />`);
  }
}

/**
 * The spline classes keep their knots private; the values at the knots are exact (they interpolate),
 * so the knots are read through the classes' own fields and the y values re-evaluated.
 */
function knotsOf(fn: CubicSpline | PiecewiseLinearFunction | NaturalOddSpline): Float64Array {
  const fields = fn as unknown as { x?: Float64Array; knots?: Float64Array };
  const knots = fields.x ?? fields.knots;
  if (!knots) throw new OsimWriteError(`Cannot read the knots of a ${fn.kind}; it cannot be written.`);
  return knots;
}

function writeFunction(xml: XmlLines, fn: KinematicFunction, elementName = 'function'): void {
  if (fn instanceof ConstantFunction) {
    xml.open('Constant', elementName);
    xml.leaf('value', num(fn.constant));
    xml.close('Constant');
  } else if (fn instanceof LinearFunction) {
    xml.open('LinearFunction', elementName);
    xml.leaf('coefficients', nums([fn.slope, fn.intercept]));
    xml.close('LinearFunction');
  } else if (fn instanceof PolynomialFunction) {
    const coefficients = (fn as unknown as { coefficients: Float64Array }).coefficients;
    xml.open('PolynomialFunction', elementName);
    xml.leaf('coefficients', nums(coefficients));
    xml.close('PolynomialFunction');
  } else if (fn instanceof MultiplierFunction) {
    xml.open('MultiplierFunction', elementName);
    xml.open('function');
    writeFunction(xml, fn.inner);
    xml.close('function');
    xml.leaf('scale', num(fn.scale));
    xml.close('MultiplierFunction');
  } else if (fn instanceof CubicSpline || fn instanceof PiecewiseLinearFunction || fn instanceof NaturalOddSpline) {
    const x = knotsOf(fn);
    const y = Array.from(x, (knot) => fn.value(knot));
    const tag = fn.kind;
    xml.open(tag, elementName);
    xml.leaf('x', nums(x));
    xml.leaf('y', nums(y));
    if (fn instanceof NaturalOddSpline) xml.leaf('degree', String((fn as unknown as { power: number }).power));
    xml.close(tag);
  } else {
    throw new OsimWriteError(`Function type ${fn.kind} cannot be written to .osim.`);
  }
}

function frameName(body: string, joint: JointDescription): string {
  return `${body}_offset_${joint.name}`;
}

function framePath(body: string): string {
  return body === 'ground' ? '/ground' : `/bodyset/${body}`;
}

function writeOffsetFrame(xml: XmlLines, name: string, body: string, offset: FrameOffset): void {
  xml.open('PhysicalOffsetFrame', name);
  xml.leaf('socket_parent', framePath(body));
  xml.leaf('translation', nums(offset.translationM));
  xml.leaf('orientation', nums(offset.orientationXyzRad));
  xml.close('PhysicalOffsetFrame');
}

function isWeld(joint: JointDescription): boolean {
  const axes = [...joint.rotations, ...joint.translations];
  return axes.every(
    (axis) => axis.coordinate === undefined && axis.fn instanceof ConstantFunction && axis.fn.constant === 0,
  );
}

function writeTransformAxis(xml: XmlLines, name: string, axis: TransformAxisDescription): void {
  xml.open('TransformAxis', name);
  xml.leaf('coordinates', axis.coordinate ?? '');
  xml.leaf('axis', nums(axis.axis));
  writeFunction(xml, axis.fn);
  xml.close('TransformAxis');
}

function writeJoint(xml: XmlLines, model: OsimModel, joint: JointDescription): void {
  const weld = isWeld(joint);
  const tag = weld ? 'WeldJoint' : 'CustomJoint';
  const parentFrame = frameName(joint.parentBody, joint);
  const childFrame = frameName(joint.childBody, joint);
  xml.open(tag, joint.name);
  xml.leaf('socket_parent_frame', parentFrame);
  xml.leaf('socket_child_frame', childFrame);
  if (!weld) {
    const coordinates = model.coordinates.filter((coordinate) => coordinate.joint === joint.name);
    xml.open('coordinates');
    for (const coordinate of coordinates) {
      xml.open('Coordinate', coordinate.name);
      xml.leaf('default_value', num(coordinate.defaultValue));
      xml.leaf('default_speed_value', '0');
      xml.leaf('range', nums([coordinate.rangeMin, coordinate.rangeMax]));
      xml.leaf('clamped', String(coordinate.clamped));
      xml.leaf('locked', String(coordinate.locked));
      xml.leaf('prescribed', 'false');
      xml.leaf('is_free_to_satisfy_constraints', 'false');
      xml.close('Coordinate');
    }
    xml.close('coordinates');
  }
  xml.open('frames');
  writeOffsetFrame(xml, parentFrame, joint.parentBody, joint.parentOffset);
  writeOffsetFrame(xml, childFrame, joint.childBody, joint.childOffset);
  xml.close('frames');
  if (!weld) {
    xml.open('SpatialTransform');
    joint.rotations.forEach((axis, i) => writeTransformAxis(xml, `rotation${i + 1}`, axis));
    joint.translations.forEach((axis, i) => writeTransformAxis(xml, `translation${i + 1}`, axis));
    xml.close('SpatialTransform');
  }
  xml.close(tag);
}

/** Spherical inertia of a body of this mass with a 5 cm radius of gyration (kinematic use only). */
function placeholderInertia(massKg: number): Vec3 {
  const moment = massKg * 0.05 * 0.05;
  return [moment, moment, moment];
}

export function writeOsim(model: OsimModel, options: OsimWriteOptions = {}): string {
  const bodyNames = new Set(model.bodies.map((body) => body.name));
  for (const joint of model.joints) {
    for (const body of [joint.parentBody, joint.childBody]) {
      if (body !== 'ground' && !bodyNames.has(body))
        throw new OsimWriteError(`Joint ${joint.name} refers to body "${body}", which the model lacks.`);
    }
  }

  const xml = new XmlLines();
  xml.lines.push('<?xml version="1.0" encoding="UTF-8" ?>');
  xml.open('OpenSimDocument Version="40000"');
  xml.open('Model', model.name);
  xml.open('Ground', 'ground');
  xml.empty('attached_geometry');
  xml.close('Ground');
  xml.leaf('gravity', '0 -9.8066499999999994 0');
  xml.leaf('credits', options.credits ?? 'Written by Kinetrace');
  xml.leaf('length_units', 'meters');
  xml.leaf('force_units', 'N');

  xml.open('BodySet', 'bodyset');
  xml.open('objects');
  for (const body of model.bodies) {
    const massKg = options.bodyMassesKg?.get(body.name) ?? 1;
    xml.open('Body', body.name);
    if (body.geometryFiles.length === 0) {
      xml.empty('attached_geometry');
    } else {
      xml.open('attached_geometry');
      body.geometryFiles.forEach((file, i) => {
        xml.open('Mesh', `${body.name}_geom_${i + 1}`);
        xml.leaf('socket_frame', '..');
        xml.leaf('scale_factors', nums(body.geometryScaleFactors));
        xml.leaf('mesh_file', file);
        xml.close('Mesh');
      });
      xml.close('attached_geometry');
    }
    xml.leaf('mass', num(massKg));
    xml.leaf('mass_center', '0 0 0');
    xml.leaf('inertia', `${nums(placeholderInertia(massKg))} 0 0 0`);
    xml.close('Body');
  }
  xml.close('objects');
  xml.empty('groups');
  xml.close('BodySet');

  xml.open('JointSet', 'jointset');
  xml.open('objects');
  for (const joint of model.joints) writeJoint(xml, model, joint);
  xml.close('objects');
  xml.empty('groups');
  xml.close('JointSet');

  xml.open('ConstraintSet', 'constraintset');
  xml.open('objects');
  for (const coupler of model.couplers) {
    xml.open('CoordinateCouplerConstraint', coupler.name);
    xml.leaf('isEnforced', 'true');
    xml.open('coupled_coordinates_function');
    writeFunction(xml, coupler.fn);
    xml.close('coupled_coordinates_function');
    xml.leaf('independent_coordinate_names', coupler.independent);
    xml.leaf('dependent_coordinate_name', coupler.dependent);
    xml.leaf('scale_factor', '1');
    xml.close('CoordinateCouplerConstraint');
  }
  xml.close('objects');
  xml.empty('groups');
  xml.close('ConstraintSet');

  xml.open('MarkerSet', 'markerset');
  xml.open('objects');
  for (const marker of model.markers) {
    xml.open('Marker', marker.name);
    xml.leaf('socket_parent_frame', framePath(marker.body));
    xml.leaf('location', nums(marker.locationM));
    xml.leaf('fixed', 'false');
    xml.close('Marker');
  }
  xml.close('objects');
  xml.empty('groups');
  xml.close('MarkerSet');

  xml.close('Model');
  xml.close('OpenSimDocument');
  return `${xml.lines.join('\n')}\n`;
}
