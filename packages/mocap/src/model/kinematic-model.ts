import { ConstantFunction, type KinematicFunction, LinearFunction } from './functions.ts';
import type { CoordinateDescription, OsimModel } from './osim-model.ts';
import { ModelFormatError, UnsupportedModelError } from './read-osim.ts';
import { bodyFixedXyzToMatrix, multiply, setAxisAngle } from './rotation.ts';

/**
 * An OpenSim model compiled for fast forward kinematics: bodies in tree order (index 0 is
 * ground), every joint as six transform axes with their functions, fixed frames as flat
 * matrices, and pose buffers that `setCoordinates` fills without allocating.
 *
 * Joint semantics (Simbody's FunctionBased mobilizer, used by OpenSim's CustomJoint): the child's
 * joint frame M moves in the parent's joint frame F by R_FM = R(a1, f1) R(a2, f2) R(a3, f3), each
 * rotation about its axis after the previous ones, and p_FM = sum f_k * t_k in F.
 */
export class KinematicModel {
  readonly description: OsimModel;
  /** Index 0 is "ground"; the others in tree order (every parent before its children). */
  readonly bodyNames: string[];
  readonly bodyParent: Int32Array;
  readonly coordinates: CoordinateDescription[];
  readonly coordinateNames: string[];
  readonly markerNames: string[];
  readonly markerBody: Int32Array;
  /** markers x 3, in the body frame, m. */
  readonly markerLocationM: Float64Array;
  /** Coupled (dependent) coordinate index -> independent coordinate index, -1 when independent. */
  readonly coupledTo: Int32Array;
  private readonly couplerFunction: (KinematicFunction | undefined)[];

  // Fixed joint geometry, per body.
  private readonly parentFrameRotation: Float64Array;
  private readonly parentFrameTranslation: Float64Array;
  private readonly childInMRotation: Float64Array;
  private readonly childInMTranslation: Float64Array;
  // Six transform axes per body (3 rotations then 3 translations).
  private readonly axisLocal: Float64Array;
  private readonly axisCoordinate: Int32Array;
  private readonly axisFunction: KinematicFunction[];
  private readonly axisIsIdentity: Uint8Array;

  // Pose buffers, valid after setCoordinates.
  /** Body rotation in ground (9 per body, row-major). */
  readonly bodyRotation: Float64Array;
  /** Body origin in ground (3 per body), m. */
  readonly bodyTranslation: Float64Array;
  /** Each transform axis direction in ground (3 per axis, 6 axes per body). */
  readonly axisWorld: Float64Array;
  /** d(axis value)/d(coordinate) at the current pose (6 per body). */
  readonly axisSlope: Float64Array;
  /** Origin of each joint's child frame M in ground: the point the rotation axes pass through. */
  readonly jointCenter: Float64Array;
  private readonly scratch = new Float64Array(9 * 4);

  constructor(model: OsimModel) {
    this.description = model;
    const jointByChild = new Map(model.joints.map((joint) => [joint.childBody, joint]));
    const childrenOf = new Map<string, string[]>();
    for (const joint of model.joints)
      childrenOf.set(joint.parentBody, [...(childrenOf.get(joint.parentBody) ?? []), joint.childBody]);
    const order = ['ground'];
    for (let i = 0; i < order.length; i++) order.push(...(childrenOf.get(order[i]) ?? []));
    const unreachable = model.joints.filter((joint) => !order.includes(joint.childBody));
    if (unreachable.length > 0) {
      throw new UnsupportedModelError(
        `Bodies not connected to ground: ${unreachable.map((joint) => joint.childBody).join(', ')}.`,
      );
    }
    this.bodyNames = order;
    const bodyIndex = new Map(order.map((name, i) => [name, i]));
    const bodyCount = order.length;

    this.coordinates = model.coordinates;
    this.coordinateNames = model.coordinates.map((c) => c.name);
    const coordinateIndex = new Map(this.coordinateNames.map((name, i) => [name, i]));

    this.bodyParent = new Int32Array(bodyCount).fill(-1);
    this.parentFrameRotation = new Float64Array(9 * bodyCount);
    this.parentFrameTranslation = new Float64Array(3 * bodyCount);
    this.childInMRotation = new Float64Array(9 * bodyCount);
    this.childInMTranslation = new Float64Array(3 * bodyCount);
    this.axisLocal = new Float64Array(18 * bodyCount);
    this.axisCoordinate = new Int32Array(6 * bodyCount).fill(-1);
    this.axisFunction = new Array<KinematicFunction>(6 * bodyCount).fill(new ConstantFunction(0));
    this.axisIsIdentity = new Uint8Array(6 * bodyCount);

    for (let b = 1; b < bodyCount; b++) {
      const joint = jointByChild.get(order[b])!;
      this.bodyParent[b] = bodyIndex.get(joint.parentBody)!;
      this.parentFrameRotation.set(bodyFixedXyzToMatrix(joint.parentOffset.orientationXyzRad), 9 * b);
      this.parentFrameTranslation.set(joint.parentOffset.translationM, 3 * b);
      // X_MB = inverse(X_BM): R_MB = R_BM^T, p_MB = -R_BM^T p_BM.
      const rBM = bodyFixedXyzToMatrix(joint.childOffset.orientationXyzRad);
      const pBM = joint.childOffset.translationM;
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) this.childInMRotation[9 * b + 3 * i + j] = rBM[3 * j + i];
        this.childInMTranslation[3 * b + i] = -(rBM[i] * pBM[0] + rBM[3 + i] * pBM[1] + rBM[6 + i] * pBM[2]);
      }
      [...joint.rotations, ...joint.translations].forEach((axis, k) => {
        const a = 6 * b + k;
        this.axisLocal.set(axis.axis, 3 * a);
        this.axisFunction[a] = axis.fn;
        if (axis.coordinate !== undefined) {
          const c = coordinateIndex.get(axis.coordinate);
          if (c === undefined)
            throw new ModelFormatError(`Joint "${joint.name}" uses unknown coordinate "${axis.coordinate}".`);
          this.axisCoordinate[a] = c;
          this.axisIsIdentity[a] =
            axis.fn instanceof LinearFunction && axis.fn.slope === 1 && axis.fn.intercept === 0 ? 1 : 0;
        }
      });
    }

    this.coupledTo = new Int32Array(this.coordinateNames.length).fill(-1);
    this.couplerFunction = new Array(this.coordinateNames.length).fill(undefined);
    for (const coupler of model.couplers) {
      const dependent = coordinateIndex.get(coupler.dependent);
      const independent = coordinateIndex.get(coupler.independent);
      if (dependent === undefined || independent === undefined) {
        throw new ModelFormatError(
          `CoordinateCouplerConstraint "${coupler.name}" couples unknown coordinates (${coupler.independent} -> ${coupler.dependent}).`,
        );
      }
      this.coupledTo[dependent] = independent;
      this.couplerFunction[dependent] = coupler.fn;
    }
    for (let c = 0; c < this.coupledTo.length; c++) {
      if (this.coupledTo[c] >= 0 && this.coupledTo[this.coupledTo[c]] >= 0) {
        throw new UnsupportedModelError(
          `Coordinate "${this.coordinateNames[c]}" is coupled to another coupled coordinate; chained couplers are not supported.`,
        );
      }
    }

    this.markerNames = model.markers.map((m) => m.name);
    this.markerBody = Int32Array.from(model.markers.map((m) => bodyIndex.get(m.body) ?? -1));
    const orphan = model.markers.find((_, i) => this.markerBody[i] < 0);
    if (orphan) throw new ModelFormatError(`Marker "${orphan.name}" is on unknown body "${orphan.body}".`);
    this.markerLocationM = Float64Array.from(model.markers.flatMap((m) => m.locationM));

    this.bodyRotation = new Float64Array(9 * bodyCount);
    this.bodyRotation.set([1, 0, 0, 0, 1, 0, 0, 0, 1], 0);
    this.bodyTranslation = new Float64Array(3 * bodyCount);
    this.axisWorld = new Float64Array(18 * bodyCount);
    this.axisSlope = new Float64Array(6 * bodyCount);
    this.jointCenter = new Float64Array(3 * bodyCount);
  }

  get bodyCount(): number {
    return this.bodyNames.length;
  }

  /** Default coordinate values (rad, m) with couplers applied. */
  defaultCoordinates(): Float64Array {
    const q = Float64Array.from(this.coordinates.map((c) => c.defaultValue));
    this.applyCouplers(q);
    return q;
  }

  /** Sets every coupled (dependent) coordinate from its independent one. */
  applyCouplers(q: Float64Array): void {
    for (let c = 0; c < q.length; c++) {
      const independent = this.coupledTo[c];
      if (independent >= 0) q[c] = this.couplerValue(c, q);
    }
  }

  /** Value of coupled coordinate c from its independent coordinate in q. */
  couplerValue(c: number, q: Float64Array): number {
    return this.couplerFunction[c]!.value(q[this.coupledTo[c]]);
  }

  /** d(dependent)/d(independent) of coordinate c's coupler at the current values. */
  couplerSlope(c: number, q: Float64Array): number {
    return this.couplerFunction[c]!.derivative(q[this.coupledTo[c]]);
  }

  /** Poses every body for coordinate values q (rad, m), taken as given (no clamping, no couplers). */
  setCoordinates(q: Float64Array): void {
    const { bodyRotation: R, bodyTranslation: p, scratch } = this;
    const bodyCount = this.bodyNames.length;
    for (let b = 1; b < bodyCount; b++) {
      const parent = this.bodyParent[b];
      // Ground pose of the joint's parent frame F: scratch[0..8] = R_GF, pF = p_GF.
      multiply(scratch, 0, R, 9 * parent, this.parentFrameRotation, 9 * b);
      const pp = 3 * parent;
      const t = 3 * b;
      const ox = this.parentFrameTranslation[t];
      const oy = this.parentFrameTranslation[t + 1];
      const oz = this.parentFrameTranslation[t + 2];
      const pr = 9 * parent;
      const fx = p[pp] + R[pr] * ox + R[pr + 1] * oy + R[pr + 2] * oz;
      const fy = p[pp + 1] + R[pr + 3] * ox + R[pr + 4] * oy + R[pr + 5] * oz;
      const fz = p[pp + 2] + R[pr + 6] * ox + R[pr + 7] * oy + R[pr + 8] * oz;

      // Translations along the axes of F.
      let mx = fx;
      let my = fy;
      let mz = fz;
      for (let k = 3; k < 6; k++) {
        const a = 6 * b + k;
        const value = this.axisValue(a, q);
        const l = 3 * a;
        const wx =
          scratch[0] * this.axisLocal[l] + scratch[1] * this.axisLocal[l + 1] + scratch[2] * this.axisLocal[l + 2];
        const wy =
          scratch[3] * this.axisLocal[l] + scratch[4] * this.axisLocal[l + 1] + scratch[5] * this.axisLocal[l + 2];
        const wz =
          scratch[6] * this.axisLocal[l] + scratch[7] * this.axisLocal[l + 1] + scratch[8] * this.axisLocal[l + 2];
        this.axisWorld[l] = wx;
        this.axisWorld[l + 1] = wy;
        this.axisWorld[l + 2] = wz;
        mx += value * wx;
        my += value * wy;
        mz += value * wz;
      }
      this.jointCenter[t] = mx;
      this.jointCenter[t + 1] = my;
      this.jointCenter[t + 2] = mz;

      // Successive rotations: scratch[0..8] accumulates R_G(current), scratch[9..17] one axis rotation.
      for (let k = 0; k < 3; k++) {
        const a = 6 * b + k;
        const value = this.axisValue(a, q);
        const l = 3 * a;
        const ax = this.axisLocal[l];
        const ay = this.axisLocal[l + 1];
        const az = this.axisLocal[l + 2];
        this.axisWorld[l] = scratch[0] * ax + scratch[1] * ay + scratch[2] * az;
        this.axisWorld[l + 1] = scratch[3] * ax + scratch[4] * ay + scratch[5] * az;
        this.axisWorld[l + 2] = scratch[6] * ax + scratch[7] * ay + scratch[8] * az;
        if (value !== 0) {
          setAxisAngle(scratch, 9, ax, ay, az, value);
          multiply(scratch, 18, scratch, 0, scratch, 9);
          scratch.copyWithin(0, 18, 27);
        }
      }

      // Body frame: X_GB = X_GM * X_MB.
      multiply(R, 9 * b, scratch, 0, this.childInMRotation, 9 * b);
      const cx = this.childInMTranslation[t];
      const cy = this.childInMTranslation[t + 1];
      const cz = this.childInMTranslation[t + 2];
      p[t] = mx + scratch[0] * cx + scratch[1] * cy + scratch[2] * cz;
      p[t + 1] = my + scratch[3] * cx + scratch[4] * cy + scratch[5] * cz;
      p[t + 2] = mz + scratch[6] * cx + scratch[7] * cy + scratch[8] * cz;
    }
  }

  private axisValue(a: number, q: Float64Array): number {
    const c = this.axisCoordinate[a];
    if (c < 0) {
      this.axisSlope[a] = 0;
      return this.axisFunction[a].value(0);
    }
    if (this.axisIsIdentity[a] === 1) {
      this.axisSlope[a] = 1;
      return q[c];
    }
    const fn = this.axisFunction[a];
    this.axisSlope[a] = fn.derivative(q[c]);
    return fn.value(q[c]);
  }

  /** Ground positions of every model marker at the current pose: out is markers x 3, m. */
  markerPositions(out: Float64Array): void {
    for (let m = 0; m < this.markerNames.length; m++) this.markerPosition(m, out, 3 * m);
  }

  markerPosition(m: number, out: Float64Array, o: number): void {
    const b = this.markerBody[m];
    const r = 9 * b;
    const R = this.bodyRotation;
    const p = this.bodyTranslation;
    const x = this.markerLocationM[3 * m];
    const y = this.markerLocationM[3 * m + 1];
    const z = this.markerLocationM[3 * m + 2];
    out[o] = p[3 * b] + R[r] * x + R[r + 1] * y + R[r + 2] * z;
    out[o + 1] = p[3 * b + 1] + R[r + 3] * x + R[r + 4] * y + R[r + 5] * z;
    out[o + 2] = p[3 * b + 2] + R[r + 6] * x + R[r + 7] * y + R[r + 8] * z;
  }

  /**
   * Adds d(point)/d(q) for a point fixed on body `body` at ground position (x, y, z) to the
   * 3 rows of a row-major Jacobian (`columns` wide, one column per coordinate), at the current pose.
   * Rotation axes contribute slope * (axis x (point - joint centre)), translation axes slope * axis.
   */
  addPointJacobian(
    body: number,
    x: number,
    y: number,
    z: number,
    jacobian: Float64Array,
    rowOffset: number,
    columns: number,
  ): void {
    for (let b = body; b > 0; b = this.bodyParent[b]) {
      const cx = x - this.jointCenter[3 * b];
      const cy = y - this.jointCenter[3 * b + 1];
      const cz = z - this.jointCenter[3 * b + 2];
      for (let k = 0; k < 6; k++) {
        const a = 6 * b + k;
        const c = this.axisCoordinate[a];
        if (c < 0) continue;
        const slope = this.axisSlope[a];
        if (slope === 0) continue;
        const wx = this.axisWorld[3 * a];
        const wy = this.axisWorld[3 * a + 1];
        const wz = this.axisWorld[3 * a + 2];
        const o = rowOffset + c;
        if (k < 3) {
          jacobian[o] += slope * (wy * cz - wz * cy);
          jacobian[o + columns] += slope * (wz * cx - wx * cz);
          jacobian[o + 2 * columns] += slope * (wx * cy - wy * cx);
        } else {
          jacobian[o] += slope * wx;
          jacobian[o + columns] += slope * wy;
          jacobian[o + 2 * columns] += slope * wz;
        }
      }
    }
  }
}
