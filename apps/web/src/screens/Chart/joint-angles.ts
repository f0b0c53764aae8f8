/** A trial's `IK-json` result: times and the joint angles (degrees; pelvis translations in metres) per coordinate. */
export interface JointAngles {
  time: number[];
  coordinates: Record<string, number[]>;
}

export function parseJointAngles(json: unknown): JointAngles {
  const { time, coordinates } = (json ?? {}) as Partial<JointAngles>;
  if (!Array.isArray(time) || typeof coordinates !== 'object' || coordinates === null) {
    throw new Error('The joint-angle result is not an IK-json file: it needs "time" and "coordinates".');
  }
  return { time, coordinates };
}

/** The values of quantity `name`: the time, or one coordinate. */
export const quantityOf = (angles: JointAngles, name: string): number[] =>
  name === 'time' ? angles.time : (angles.coordinates[name] ?? []);
