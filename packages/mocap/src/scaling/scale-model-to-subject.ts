import type { ManualScale, Measurement, ScaleSetup, ScalingStep } from '../formats/scale-setup.ts';
import { ikTasksFromSetup } from '../ik/setup-tasks.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import type { MarkerTrajectories } from '../formats/trc.ts';
import type { OsimModel, Vec3 } from '../model/osim-model.ts';
import { segmentMassesKg } from '../default-model/segment-masses.ts';
import { applyScaleFactors } from './apply-scale-factors.ts';
import { type MarkerPlacementResult, placeMarkers } from './marker-placer.ts';
import { type MeasurementResult, measureScaleFactors } from './scale-factors.ts';
import { averageMarkerFrames, framesInTimeRange, StaticTrialError } from './static-pose.ts';
import { findStillestWindow } from './stillest-window.ts';

/**
 * OpenSim's ScaleTool as one stage: measure segment scale factors on the static trial, scale the
 * model, then place its markers on the static pose. Works from an OpenSim setup file
 * (`scaleSettingsFromSetup`) or from settings built in code (keypoint measurements for the default
 * model); when no time range is given, the stillest window of the trial is used.
 */
export interface SubjectBody {
  massKg: number;
  heightM?: number;
}

export interface ScaleSettings {
  measurements: Measurement[];
  manualScales?: ManualScale[];
  scalingOrder?: ScalingStep[];
  /** Frames averaged for the measurements; the stillest window of `stillWindowS` when omitted. */
  timeRangeS?: [number, number];
  stillWindowS?: number;
  /** Markers the stillest window is judged on (all of the trial's when omitted). */
  stillWindowMarkers?: readonly string[];
  /** Uniform factor for bodies no measurement reached (e.g. subject height / model height); 1 when omitted. */
  unmeasuredBodyFactor?: number;
  placer?: {
    apply: boolean;
    /** Frames averaged for the placer's IK; the measurement window when omitted. */
    timeRangeS?: [number, number];
    markerWeights?: ReadonlyMap<string, number>;
    coordinateTasks?: readonly { coordinate: string; weight: number; value: number }[];
    fixedMarkers?: ReadonlySet<string>;
  };
}

export interface ScaledModel {
  model: OsimModel;
  /** Body masses for the subject (de Leva 1996 proportions of the subject mass), for the .osim writer. */
  bodyMassesKg: Map<string, number>;
  scaleFactors: Map<string, Vec3>;
  measurements: MeasurementResult[];
  measurementWindow: {
    firstFrame: number;
    lastFrame: number;
    timeRangeS: [number, number];
    chosenBy: 'time range' | 'stillest window';
    meanExcursionM?: number;
  };
  placement?: MarkerPlacementResult;
}

export class ScalingError extends Error {
  override name = 'ScalingError';
}

/** Settings from an OpenSim Setup_Scale.xml; coordinate tasks with default_value take the model's defaults. */
export function scaleSettingsFromSetup(
  setup: ScaleSetup,
  model: OsimModel,
  fixedMarkers?: ReadonlySet<string>,
): ScaleSettings {
  const placerTasks = ikTasksFromSetup(new KinematicModel(model), setup.placer);
  return {
    measurements: setup.scaler.apply ? setup.scaler.measurements : [],
    manualScales: setup.scaler.apply ? setup.scaler.manualScales : [],
    scalingOrder: setup.scaler.scalingOrder,
    timeRangeS: setup.scaler.timeRangeS,
    placer: { apply: setup.placer.apply, timeRangeS: setup.placer.timeRangeS, ...placerTasks, fixedMarkers },
  };
}

export function scaleModelToSubject(
  model: OsimModel,
  staticTrial: MarkerTrajectories,
  subject: SubjectBody,
  settings: ScaleSettings,
  onProgress?: (done: number, total: number) => void,
): ScaledModel {
  if (staticTrial.timesS.length === 0) throw new StaticTrialError('The static trial has no frames.');
  if (!(subject.massKg > 0)) throw new ScalingError(`Scaling needs the subject's mass in kg (got ${subject.massKg}).`);
  const steps = settings.placer?.apply === false ? 2 : 3;

  let window: ScaledModel['measurementWindow'];
  if (settings.timeRangeS) {
    const [firstFrame, lastFrame] = framesInTimeRange(staticTrial.timesS, ...settings.timeRangeS);
    window = {
      firstFrame,
      lastFrame,
      timeRangeS: [staticTrial.timesS[firstFrame], staticTrial.timesS[lastFrame]],
      chosenBy: 'time range',
    };
  } else {
    const still = findStillestWindow(staticTrial, settings.stillWindowS ?? 1, settings.stillWindowMarkers);
    window = {
      firstFrame: still.firstFrame,
      lastFrame: still.lastFrame,
      timeRangeS: [staticTrial.timesS[still.firstFrame], staticTrial.timesS[still.lastFrame]],
      chosenBy: 'stillest window',
      meanExcursionM: still.meanExcursionM,
    };
  }
  const measurementPose = averageMarkerFrames(staticTrial, window.firstFrame, window.lastFrame);
  const { factors, measurements } = measureScaleFactors(model, measurementPose, settings);
  const unmeasured = settings.unmeasuredBodyFactor ?? 1;
  for (const body of model.bodies)
    if (!factors.has(body.name) && unmeasured !== 1) factors.set(body.name, [unmeasured, unmeasured, unmeasured]);
  const failed = measurements.filter((m) => Number.isNaN(m.factor)).map((m) => m.name);
  if (settings.measurements.length > 0 && failed.length === measurements.length) {
    throw new ScalingError(
      `No measurement could be made: the static trial and the model share none of the measurement marker pairs (${failed.join(', ')}). ` +
        'Check the marker names of the trial against the model, or pass a scale setup file.',
    );
  }
  onProgress?.(1, steps);
  let scaled = applyScaleFactors(model, factors);
  onProgress?.(2, steps);

  let placement: MarkerPlacementResult | undefined;
  if (settings.placer?.apply !== false) {
    const placerPose = settings.placer?.timeRangeS
      ? averageMarkerFrames(staticTrial, ...framesInTimeRange(staticTrial.timesS, ...settings.placer.timeRangeS))
      : measurementPose;
    placement = placeMarkers(scaled, placerPose, settings.placer ?? {});
    scaled = placement.model;
    onProgress?.(3, steps);
  }

  return {
    model: scaled,
    bodyMassesKg: segmentMassesKg(
      model.bodies.map((body) => body.name),
      subject.massKg,
    ),
    scaleFactors: factors,
    measurements,
    measurementWindow: window,
    placement,
  };
}
