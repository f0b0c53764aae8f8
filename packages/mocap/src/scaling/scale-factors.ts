import type { ManualScale, Measurement, ScalingStep } from '../formats/scale-setup.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import type { OsimModel, Vec3 } from '../model/osim-model.ts';
import { type StaticPose, staticMarkerPair } from './static-pose.ts';

/**
 * Measurement-based scale factors, as OpenSim's ModelScaler computes them: for each measurement,
 * the mean over its marker pairs of (measured distance / model distance), the measured distance
 * taken between the static pose's averaged markers and the model distance between the model's
 * markers in its default pose; that factor is written to the listed axes of the listed bodies. A
 * pair is measured over the frames of the static pose where both its markers are seen, and skipped
 * when no frame shows both.
 * Manual scales replace a body's factors when their step comes later in the scaling order.
 */
export interface MarkerPairResult {
  markers: [string, string];
  modelDistanceM: number;
  measuredDistanceM: number;
}

export interface MeasurementResult {
  name: string;
  /** NaN when no pair had both markers in the model and the trial. */
  factor: number;
  pairs: MarkerPairResult[];
  /** Pairs skipped because a marker is missing from the model or the trial. */
  skippedPairs: Array<[string, string]>;
}

export interface ScaleFactorResult {
  /** Body name → per-axis scale factors; bodies not mentioned keep [1, 1, 1]. */
  factors: Map<string, Vec3>;
  measurements: MeasurementResult[];
}

export interface ScaleFactorSettings {
  measurements: Measurement[];
  manualScales?: ManualScale[];
  scalingOrder?: ScalingStep[];
}

function distance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Model marker positions in the default pose, by name. */
export function defaultPoseMarkers(model: OsimModel): Map<string, Vec3> {
  const kinematics = new KinematicModel(model);
  kinematics.setCoordinates(kinematics.defaultCoordinates());
  const out = new Float64Array(kinematics.markerNames.length * 3);
  kinematics.markerPositions(out);
  return new Map(kinematics.markerNames.map((name, i) => [name, [out[i * 3], out[i * 3 + 1], out[i * 3 + 2]] as Vec3]));
}

export function measureScaleFactors(
  model: OsimModel,
  pose: StaticPose,
  settings: ScaleFactorSettings,
): ScaleFactorResult {
  const modelMarkers = defaultPoseMarkers(model);
  const bodyNames = new Set(model.bodies.map((body) => body.name));
  const factors = new Map<string, Vec3>();
  const measurements: MeasurementResult[] = [];
  const order = settings.scalingOrder ?? ['measurements', 'manualScale'];

  for (const step of order) {
    if (step === 'measurements') {
      for (const measurement of settings.measurements) {
        if (!measurement.apply) continue;
        const pairs: MarkerPairResult[] = [];
        const skippedPairs: Array<[string, string]> = [];
        for (const [a, b] of measurement.markerPairs) {
          const modelA = modelMarkers.get(a);
          const modelB = modelMarkers.get(b);
          const measured = staticMarkerPair(pose, a, b);
          if (!modelA || !modelB || !measured) {
            skippedPairs.push([a, b]);
            continue;
          }
          pairs.push({
            markers: [a, b],
            modelDistanceM: distance(modelA, modelB),
            measuredDistanceM: distance(...measured),
          });
        }
        const factor =
          pairs.length > 0
            ? pairs.reduce((sum, pair) => sum + pair.measuredDistanceM / pair.modelDistanceM, 0) / pairs.length
            : Number.NaN;
        measurements.push({ name: measurement.name, factor, pairs, skippedPairs });
        if (Number.isNaN(factor)) continue;
        for (const { body, axes } of measurement.bodyScales) {
          if (!bodyNames.has(body)) continue;
          const bodyFactors: Vec3 = [...(factors.get(body) ?? [1, 1, 1])];
          for (const axis of axes) bodyFactors[axis] = factor;
          factors.set(body, bodyFactors);
        }
      }
    } else {
      for (const manual of settings.manualScales ?? []) {
        if (manual.apply && bodyNames.has(manual.body)) factors.set(manual.body, [...manual.factors]);
      }
    }
  }
  return { factors, measurements };
}
