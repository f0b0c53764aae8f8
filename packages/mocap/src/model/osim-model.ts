import type { KinematicFunction } from './functions.ts';

/**
 * The kinematic content of an OpenSim model (.osim), in OpenSim's own terms. Masses, forces and
 * wrap objects are left out; geometry file names and scale factors are kept for the visualizer.
 */
export type Vec3 = [number, number, number];

/** A fixed frame on a body: origin and body-fixed X-Y-Z orientation (rad) in the body frame. */
export interface FrameOffset {
  translationM: Vec3;
  orientationXyzRad: Vec3;
}

export interface BodyDescription {
  name: string;
  /** Mesh file names of attached geometry (e.g. "femur_r.vtp"), in file order. */
  geometryFiles: string[];
  /** Scale factors of the (last) attached geometry, [1, 1, 1] when there is none. */
  geometryScaleFactors: Vec3;
  /** <mass>, kg, when the file gives one (centre-of-mass computations). */
  massKg?: number;
  /** <mass_center> in the body frame, m, when the file gives one. */
  massCenterM?: Vec3;
}

/** One of the six axes of a spatial transform: motion along/about `axis` by `fn(coordinate)`. */
export interface TransformAxisDescription {
  /** Coordinate driving this axis; undefined when the axis is a constant offset. */
  coordinate?: string;
  axis: Vec3;
  fn: KinematicFunction;
}

export type JointType =
  | 'CustomJoint'
  | 'PinJoint'
  | 'UniversalJoint'
  | 'BallJoint'
  | 'GimbalJoint'
  | 'FreeJoint'
  | 'WeldJoint'
  | 'SliderJoint'
  | 'PlanarJoint';

/**
 * Every supported joint, expressed as a CustomJoint: the child frame M moves in the parent frame F
 * by three successive rotations (each about its axis after the previous rotations, i.e. body-fixed)
 * and a translation sum(value_i * axis_i) expressed in F, as Simbody's FunctionBased mobilizer.
 */
export interface JointDescription {
  name: string;
  type: JointType;
  /** "ground" or a body name. */
  parentBody: string;
  childBody: string;
  /** Joint frame F in the parent body. */
  parentOffset: FrameOffset;
  /** Joint frame M in the child body. */
  childOffset: FrameOffset;
  rotations: [TransformAxisDescription, TransformAxisDescription, TransformAxisDescription];
  translations: [TransformAxisDescription, TransformAxisDescription, TransformAxisDescription];
}

/** As OpenSim's Coordinate::MotionType; only rotational values are converted to/from degrees in .mot files. */
export type MotionType = 'rotational' | 'translational' | 'coupled';

export interface CoordinateDescription {
  name: string;
  joint: string;
  motionType: MotionType;
  /** rad or m */
  defaultValue: number;
  rangeMin: number;
  rangeMax: number;
  clamped: boolean;
  locked: boolean;
}

export interface MarkerDescription {
  name: string;
  /** "ground" or a body name (markers on offset frames are re-expressed in their body). */
  body: string;
  /** In the body frame, m. */
  locationM: Vec3;
}

/** CoordinateCouplerConstraint: dependent = fn(independent) (scale factor folded into fn). */
export interface CouplerDescription {
  name: string;
  independent: string;
  dependent: string;
  fn: KinematicFunction;
}

export interface OsimModel {
  name: string;
  /** Bodies other than ground, in file order. */
  bodies: BodyDescription[];
  joints: JointDescription[];
  /** In OpenSim's order (joint order, then each joint's coordinate order). */
  coordinates: CoordinateDescription[];
  markers: MarkerDescription[];
  couplers: CouplerDescription[];
}
