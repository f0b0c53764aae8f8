import type { Vec3 } from '../osim-model.ts';

/** WrapObject::WrapAction: what wrapping one path segment over an object came to. */
export const WrapAction = { noWrap: 0, insideRadius: 1, wrapped: 2, mandatoryWrap: 3 } as const;
export type WrapAction = (typeof WrapAction)[keyof typeof WrapAction];

/**
 * A wrap object's quadrant (OpenSim's <quadrant>: "all", "x", "-y", …): the side of the object
 * a path must pass on, as the axis and sign of WrapObject::_wrapAxis/_wrapSign (sign 0: any side).
 */
export interface Quadrant {
  axis: 0 | 1 | 2;
  sign: -1 | 0 | 1;
}

/** The outcome of wrapping one segment, in the wrap object's frame: tangent points and the length over the surface. */
export interface WrapLineResult {
  action: WrapAction;
  r1: Vec3;
  r2: Vec3;
  lengthM: number;
}
