import type { KinematicModel } from './kinematic-model.ts';
import type { CoordinateTrajectories } from './motion.ts';
import { matrixToBodyFixedXyz } from './rotation.ts';

/**
 * OpenCap's visualizer JSON (opencap-core utilsOpenSim.generateVisualizerJson, read by the OpenCap
 * viewer): per body its mesh files, geometry scale factors, and per frame its origin in ground (m)
 * and its orientation in ground as body-fixed X-Y-Z angles (rad); plus the frame times.
 */
export interface VisualizerBody {
  attachedGeometries: string[];
  scaleFactors: number[];
  rotation: number[][];
  translation: number[][];
}

export interface VisualizerTransforms {
  time: number[];
  bodies: Record<string, VisualizerBody>;
}

/** Body poses for every frame; coordinate values are used as given (like OpenCap, which sets the state directly). */
export function visualizerTransforms(
  model: KinematicModel,
  trajectories: CoordinateTrajectories,
  onProgress?: (done: number, total: number) => void,
): VisualizerTransforms {
  const coordinateCount = model.coordinateNames.length;
  const frameCount = trajectories.timesS.length;
  const bodyIndex = new Map(model.bodyNames.map((name, i) => [name, i]));
  const bodies: Record<string, VisualizerBody> = {};
  for (const body of model.description.bodies) {
    bodies[body.name] = {
      scaleFactors: [...body.geometryScaleFactors],
      attachedGeometries: [...body.geometryFiles],
      rotation: [],
      translation: [],
    };
  }
  const q = new Float64Array(coordinateCount);
  for (let frame = 0; frame < frameCount; frame++) {
    q.set(trajectories.values.subarray(frame * coordinateCount, (frame + 1) * coordinateCount));
    model.setCoordinates(q);
    for (const body of model.description.bodies) {
      const b = bodyIndex.get(body.name)!;
      const angles = [0, 0, 0];
      matrixToBodyFixedXyz(model.bodyRotation, 9 * b, angles, 0);
      bodies[body.name].rotation.push(angles);
      bodies[body.name].translation.push(Array.from(model.bodyTranslation.subarray(3 * b, 3 * b + 3)));
    }
    onProgress?.(frame + 1, frameCount);
  }
  return { time: Array.from(trajectories.timesS), bodies };
}

/** Serialises like Python's json.dump (", " and ": " separators), as OpenCap writes the file. */
export function formatVisualizerJson(transforms: VisualizerTransforms): string {
  const format = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(format).join(', ')}]`;
    if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'NaN';
    if (value !== null && typeof value === 'object') {
      return `{${Object.entries(value)
        .map(([key, inner]) => `${JSON.stringify(key)}: ${format(inner)}`)
        .join(', ')}}`;
    }
    return JSON.stringify(value);
  };
  return format(transforms);
}
