import { coordinatesFromMotion, MotionMismatchError } from '../model/motion.ts';
import { AnalysisError } from './analysis-error.ts';
import type { AnalysisInput } from './analysis-input.ts';

/** Ground axes of OpenSim models: y is up. */
export const UP = 1;

/** A horizontal unit vector in ground [x, 0, z]. */
export type Horizontal = [number, number];

/**
 * The trial seen through its model: coordinate values per frame (rotational ones in degrees) and
 * every body's pose by forward kinematics, so analyses read heel, toe, pelvis and trunk positions
 * from any model with OpenSim's body names (OpenCap's models and our default keypoint model).
 */
export class TrialKinematics {
  readonly timesS: Float64Array;
  readonly frameCount: number;
  readonly sampleRateHz: number;
  private readonly coordinateIndex: Map<string, number>;
  private readonly coordinateValues: Float64Array;
  private readonly rotational: boolean[];
  private readonly bodyIndex: Map<string, number>;
  private readonly bodyCount: number;
  /** frames x bodies x 3 */
  private readonly positions: Float64Array;
  /** frames x bodies x 9 (row-major rotation in ground) */
  private readonly rotations: Float64Array;
  private readonly input: AnalysisInput;

  constructor(input: AnalysisInput) {
    this.input = input;
    const { model, motion } = input;
    let trajectories;
    try {
      trajectories = coordinatesFromMotion(model, motion);
    } catch (error) {
      if (error instanceof MotionMismatchError) throw new AnalysisError(error.message);
      throw error;
    }
    this.timesS = trajectories.timesS;
    this.frameCount = this.timesS.length;
    if (this.frameCount < 10)
      throw new AnalysisError(
        `The trial has ${this.frameCount} frames of joint angles: too short to analyse. Record the movement for at least a few seconds.`,
      );
    this.sampleRateHz = (this.frameCount - 1) / (this.timesS[this.frameCount - 1] - this.timesS[0]);
    this.coordinateIndex = new Map(trajectories.coordinateNames.map((name, i) => [name, i]));
    this.coordinateValues = trajectories.values;
    this.rotational = model.coordinates.map((c) => c.motionType === 'rotational');
    this.bodyIndex = new Map(model.bodyNames.map((name, i) => [name, i]));
    this.bodyCount = model.bodyCount;
    this.positions = new Float64Array(this.frameCount * this.bodyCount * 3);
    this.rotations = new Float64Array(this.frameCount * this.bodyCount * 9);
    const width = trajectories.coordinateNames.length;
    for (let f = 0; f < this.frameCount; f++) {
      model.setCoordinates(trajectories.values.subarray(f * width, (f + 1) * width));
      this.positions.set(model.bodyTranslation, f * this.bodyCount * 3);
      this.rotations.set(model.bodyRotation, f * this.bodyCount * 9);
    }
  }

  get heightM(): number | undefined {
    return this.input.heightM;
  }

  hasCoordinate(name: string): boolean {
    return this.coordinateIndex.has(name);
  }

  /** A coordinate over the frames; rotational ones in degrees. */
  coordinate(name: string): Float64Array {
    const c = this.coordinateIndex.get(name);
    if (c === undefined)
      throw new AnalysisError(
        `The model has no coordinate "${name}", which this analysis needs. Process the trial with a full-body model (OpenCap's or Kinetrace's default).`,
      );
    const width = this.coordinateIndex.size;
    const scale = this.rotational[c] ? 180 / Math.PI : 1;
    const out = new Float64Array(this.frameCount);
    for (let f = 0; f < this.frameCount; f++) out[f] = this.coordinateValues[f * width + c] * scale;
    return out;
  }

  private body(name: string): number {
    const b = this.bodyIndex.get(name);
    if (b === undefined)
      throw new AnalysisError(
        `The model has no body "${name}", which this analysis needs. Process the trial with a full-body model (OpenCap's or Kinetrace's default).`,
      );
    return b;
  }

  /** Ground positions (frames x 3, m) of a point fixed on a body, given in the body frame (default its origin). */
  point(bodyName: string, local: readonly [number, number, number] = [0, 0, 0]): Float64Array {
    const b = this.body(bodyName);
    const out = new Float64Array(this.frameCount * 3);
    for (let f = 0; f < this.frameCount; f++) {
      const p = (f * this.bodyCount + b) * 3;
      const r = (f * this.bodyCount + b) * 9;
      for (let i = 0; i < 3; i++) {
        const R = this.rotations;
        out[3 * f + i] =
          this.positions[p + i] + R[r + 3 * i] * local[0] + R[r + 3 * i + 1] * local[1] + R[r + 3 * i + 2] * local[2];
      }
    }
    return out;
  }

  /** A body axis (0 x, 1 y, 2 z of the body frame) in ground over the frames (frames x 3). */
  axis(bodyName: string, axis: 0 | 1 | 2): Float64Array {
    const b = this.body(bodyName);
    const out = new Float64Array(this.frameCount * 3);
    for (let f = 0; f < this.frameCount; f++) {
      const r = (f * this.bodyCount + b) * 9;
      for (let i = 0; i < 3; i++) out[3 * f + i] = this.rotations[r + 3 * i + axis];
    }
    return out;
  }

  /**
   * Whole-body centre of mass (frames x 3, m): the mass-weighted mean of the bodies' mass centres,
   * from the model's own <mass> and <mass_center>.
   */
  centreOfMass(): Float64Array {
    const bodies = this.input.model.description.bodies.filter((body) => (body.massKg ?? 0) > 0);
    const total = bodies.reduce((sum, body) => sum + body.massKg!, 0);
    if (total === 0)
      throw new AnalysisError(
        'The scaled model has no body masses, so its centre of mass is unknown. Process the trial again to write a model with segment masses.',
      );
    const out = new Float64Array(this.frameCount * 3);
    for (const body of bodies) {
      const positions = this.point(body.name, body.massCenterM ?? [0, 0, 0]);
      const weight = body.massKg! / total;
      for (let i = 0; i < out.length; i++) out[i] += weight * positions[i];
    }
    return out;
  }

  /**
   * The horizontal direction the subject faces, averaged over frames [start, end): the pelvis's
   * forward (x) axis projected on the floor.
   */
  facing(start = 0, end = this.frameCount): Horizontal {
    const forward = this.axis('pelvis', 0);
    let x = 0;
    let z = 0;
    for (let f = start; f < end; f++) {
      x += forward[3 * f];
      z += forward[3 * f + 2];
    }
    return unitHorizontal(x, z);
  }
}

export function unitHorizontal(x: number, z: number): Horizontal {
  const length = Math.hypot(x, z);
  return length > 0 ? [x / length, z / length] : [1, 0];
}

/** Component of each frame's position along a horizontal direction (frames). */
export function along(positions: Float64Array, direction: Horizontal): Float64Array {
  const out = new Float64Array(positions.length / 3);
  for (let f = 0; f < out.length; f++) out[f] = positions[3 * f] * direction[0] + positions[3 * f + 2] * direction[1];
  return out;
}

/** Height (y) of each frame's position. */
export function heightOf(positions: Float64Array): Float64Array {
  const out = new Float64Array(positions.length / 3);
  for (let f = 0; f < out.length; f++) out[f] = positions[3 * f + UP];
  return out;
}

/**
 * Inclination of a unit body axis from vertical, in degrees per frame: forward (its angle from
 * vertical in the sagittal plane, positive leaning forward) and sideways (its angle out of the
 * sagittal plane, positive to the right) about the given facing direction.
 */
export function inclinationDeg(
  axis: Float64Array,
  facing: Horizontal,
): { forward: Float64Array; sideways: Float64Array } {
  const n = axis.length / 3;
  const forward = new Float64Array(n);
  const sideways = new Float64Array(n);
  // Right-hand side of a subject facing `facing` with y up: facing x up.
  const right: Horizontal = [-facing[1], facing[0]];
  for (let f = 0; f < n; f++) {
    const up = axis[3 * f + UP];
    const ahead = axis[3 * f] * facing[0] + axis[3 * f + 2] * facing[1];
    const side = axis[3 * f] * right[0] + axis[3 * f + 2] * right[1];
    forward[f] = (Math.atan2(ahead, up) * 180) / Math.PI;
    // Out of the sagittal plane (well defined even when the trunk is bent far forward).
    sideways[f] = (Math.asin(Math.max(-1, Math.min(1, side))) * 180) / Math.PI;
  }
  return { forward, sideways };
}
