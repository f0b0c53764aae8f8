import type { OsimModel } from '../model/osim-model.ts';
import { defaultPoseMarkers } from './scale-factors.ts';

/**
 * A starting pose for IK on a trial recorded anywhere in the room, facing any way: the model's
 * default pose turned about the vertical and moved so that its markers best overlay the measured
 * ones (a least-squares rigid fit in the horizontal plane plus the centroid's height). Written
 * into a copy of the model as default values of pelvis_rotation and pelvis_tx/ty/tz (OpenSim's
 * free-joint names), so an IK solver that starts from the defaults starts there. Models without
 * those coordinates come back unchanged.
 */
export function withPelvisPlacedOnMarkers(
  model: OsimModel,
  markerNames: readonly string[],
  positionsM: Float64Array,
): { model: OsimModel; yawRad: number; translationM: [number, number, number] } {
  const byName = (name: string) => model.coordinates.find((coordinate) => coordinate.name === name);
  const rotation = byName('pelvis_rotation');
  const tx = byName('pelvis_tx');
  const ty = byName('pelvis_ty');
  const tz = byName('pelvis_tz');
  if (!rotation || !tx || !ty || !tz) return { model, yawRad: 0, translationM: [0, 0, 0] };

  const modelMarkers = defaultPoseMarkers(model);
  const pairs: Array<{ p: number[]; m: number[] }> = [];
  markerNames.forEach((name, i) => {
    const p = modelMarkers.get(name);
    const m = [positionsM[i * 3], positionsM[i * 3 + 1], positionsM[i * 3 + 2]];
    if (p && !m.some(Number.isNaN)) pairs.push({ p, m });
  });
  if (pairs.length < 2) return { model, yawRad: 0, translationM: [0, 0, 0] };

  const mean = (pick: (pair: { p: number[]; m: number[] }) => number) =>
    pairs.reduce((sum, pair) => sum + pick(pair), 0) / pairs.length;
  const pBar = [0, 1, 2].map((a) => mean((pair) => pair.p[a]));
  const mBar = [0, 1, 2].map((a) => mean((pair) => pair.m[a]));
  // Rotation about y: x' = x cos + z sin, z' = −x sin + z cos; maximise Σ m·R p over centred points.
  let cosine = 0;
  let sine = 0;
  for (const { p, m } of pairs) {
    const px = p[0] - pBar[0],
      pz = p[2] - pBar[2];
    const mx = m[0] - mBar[0],
      mz = m[2] - mBar[2];
    cosine += mx * px + mz * pz;
    sine += mx * pz - mz * px;
  }
  const yawRad = Math.atan2(sine, cosine);
  const c = Math.cos(yawRad);
  const s = Math.sin(yawRad);
  // The free joint turns the model about the pelvis origin o: x ↦ R (x − o) + o + t, so the
  // centroids coincide for t = m̄ − o − R (p̄ − o).
  const o = [tx.defaultValue, ty.defaultValue, tz.defaultValue];
  const dx = pBar[0] - o[0],
    dz = pBar[2] - o[2];
  const rotated = [o[0] + c * dx + s * dz, pBar[1], o[2] - s * dx + c * dz];
  const translationM: [number, number, number] = [mBar[0] - rotated[0], mBar[1] - rotated[1], mBar[2] - rotated[2]];

  const placed = new Map<string, number>([
    ['pelvis_rotation', rotation.defaultValue + yawRad],
    ['pelvis_tx', tx.defaultValue + translationM[0]],
    ['pelvis_ty', ty.defaultValue + translationM[1]],
    ['pelvis_tz', tz.defaultValue + translationM[2]],
  ]);
  return {
    model: {
      ...model,
      coordinates: model.coordinates.map((coordinate) =>
        placed.has(coordinate.name) ? { ...coordinate, defaultValue: placed.get(coordinate.name)! } : coordinate,
      ),
    },
    yawRad,
    translationM,
  };
}
