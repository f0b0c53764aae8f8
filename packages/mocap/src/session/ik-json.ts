import type { StorageTable } from '../formats/mot.ts';
import type { OsimModel } from '../model/osim-model.ts';

/**
 * `IK-json`: the joint angles of the .mot as JSON for charts (documented in docs/process.md):
 *
 *   { "format": "kinetrace-ik", "version": 1, "units": "degrees", "translationUnits": "m",
 *     "time": [s, ...], "coordinates": { "knee_angle_r": [deg, ...], ... },
 *     "translationalCoordinates": ["pelvis_tx", "pelvis_ty", "pelvis_tz"] }
 *
 * Rotational coordinates are in degrees, translational ones (listed) in metres; one value per time.
 */
export interface IkJson {
  format: 'kinetrace-ik';
  version: 1;
  units: 'degrees';
  translationUnits: 'm';
  time: number[];
  coordinates: Record<string, number[]>;
  translationalCoordinates: string[];
}

/** `motion` is the .mot table (degrees for rotational coordinates); `model` says which coordinates translate. */
export function ikJson(motion: StorageTable, model: OsimModel): IkJson {
  const columns = motion.columnLabels.length;
  const round = (value: number) => (Number.isFinite(value) ? Math.round(value * 1e4) / 1e4 : null);
  const coordinates: Record<string, number[]> = {};
  motion.columnLabels.forEach((label, column) => {
    coordinates[label] = Array.from(
      { length: motion.timesS.length },
      (_, row) => round(motion.values[row * columns + column]) as number,
    );
  });
  const translational = new Set(model.coordinates.filter((c) => c.motionType === 'translational').map((c) => c.name));
  return {
    format: 'kinetrace-ik',
    version: 1,
    units: 'degrees',
    translationUnits: 'm',
    time: Array.from(motion.timesS, (t) => Math.round(t * 1e6) / 1e6),
    coordinates,
    translationalCoordinates: motion.columnLabels.filter((label) => translational.has(label)),
  };
}
