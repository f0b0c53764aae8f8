import type { StorageTable } from '../formats/mot.ts';
import type { KinematicModel } from './kinematic-model.ts';

/** Coordinate values over time in model units (rotational in rad, translational in m). */
export interface CoordinateTrajectories {
  coordinateNames: string[];
  timesS: Float64Array;
  /** frames x coordinates */
  values: Float64Array;
}

export class MotionMismatchError extends Error {
  override name = 'MotionMismatchError';
}

const DEGREES_PER_RADIAN = 180 / Math.PI;

/**
 * The model's coordinates over the motion's times: columns matched by coordinate name (a full
 * state path such as /jointset/hip_r/hip_flexion_r/value also matches), rotational values converted
 * from degrees when the file says inDegrees=yes, missing coordinates at their default value, and
 * coupled coordinates absent from the file computed from their independent coordinate.
 */
export function coordinatesFromMotion(model: KinematicModel, motion: StorageTable): CoordinateTrajectories {
  const columnOf = new Map<string, number>();
  motion.columnLabels.forEach((label, column) => {
    const name = label.startsWith('/') && label.endsWith('/value') ? label.split('/').slice(-2, -1)[0] : label;
    if (!columnOf.has(name)) columnOf.set(name, column);
  });
  const matched = model.coordinateNames.filter((name) => columnOf.has(name));
  if (matched.length === 0) {
    throw new MotionMismatchError(
      `The motion has no column named after a coordinate of model "${model.description.name}" (model: ${model.coordinateNames.slice(0, 5).join(', ')}...; motion: ${motion.columnLabels.slice(0, 5).join(', ')}...). Check that the motion was made with this model.`,
    );
  }
  const frameCount = motion.timesS.length;
  const coordinateCount = model.coordinateNames.length;
  const width = motion.columnLabels.length;
  const values = new Float64Array(frameCount * coordinateCount);
  const defaults = model.defaultCoordinates();
  const q = new Float64Array(coordinateCount);
  for (let frame = 0; frame < frameCount; frame++) {
    q.set(defaults);
    for (let c = 0; c < coordinateCount; c++) {
      const column = columnOf.get(model.coordinateNames[c]);
      if (column === undefined) continue;
      const raw = motion.values[frame * width + column];
      q[c] = motion.inDegrees && model.coordinates[c].motionType === 'rotational' ? raw / DEGREES_PER_RADIAN : raw;
    }
    for (let c = 0; c < coordinateCount; c++) {
      const independent = model.coupledTo[c];
      if (independent >= 0 && !columnOf.has(model.coordinateNames[c])) q[c] = model.couplerValue(c, q);
    }
    values.set(q, frame * coordinateCount);
  }
  return { coordinateNames: [...model.coordinateNames], timesS: Float64Array.from(motion.timesS), values };
}

/** An OpenSim "Coordinates" motion table of every model coordinate, rotational ones in degrees. */
export function motionFromCoordinates(model: KinematicModel, trajectories: CoordinateTrajectories): StorageTable {
  const values = Float64Array.from(trajectories.values);
  const width = model.coordinateNames.length;
  for (let c = 0; c < width; c++) {
    if (model.coordinates[c].motionType !== 'rotational') continue;
    for (let i = c; i < values.length; i += width) values[i] *= DEGREES_PER_RADIAN;
  }
  return {
    name: 'Coordinates',
    inDegrees: true,
    columnLabels: [...model.coordinateNames],
    timesS: Float64Array.from(trajectories.timesS),
    values,
  };
}
