import type { ManualScale, Measurement, ScaleSetup, ScalingStep } from '../formats/scale-setup.ts';
import { ikTasksFromSetup } from '../ik/setup-tasks.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import type { MarkerTrajectories } from '../formats/trc.ts';
import { fixedMarkerNames, setMarkerLocations } from '../model/osim-markers.ts';
import type { OsimModel, Vec3 } from '../model/osim-model.ts';
import { readOsimTree } from '../model/read-osim.ts';
import { cloneXmlDocument, serializeXml, type XmlDocument } from '../model/xml-tree.ts';
import { type MarkerPlacementResult, placeMarkers } from './marker-placer.ts';
import { type MeasurementResult, measureScaleFactors } from './scale-factors.ts';
import { averageMarkerFrames, framesInTimeRange, StaticTrialError } from './static-pose.ts';
import { scaleOsimDocument } from './scale-osim.ts';
import { findStillestWindow } from './stillest-window.ts';
import { KeypointsMissingError } from '../pipeline/processing-error.ts';
import { missingKeypoints, missingKeypointsText } from './keypoint-presence.ts';

/**
 * OpenSim's ScaleTool as one stage: measure segment scale factors on the static trial, scale the
 * model's .osim document (scale-osim.ts: masses to the subject's, preserving their distribution,
 * and every muscle with it), then place its markers on the static pose. Works from an OpenSim
 * setup file (`scaleSettingsFromSetup`) or from settings built in code (keypoint measurements for
 * the default model); when no time range is given, the stillest window of the trial is used.
 */
export interface SubjectBody {
  massKg: number;
  heightM?: number;
}

export interface ScaleSettings {
  measurements: Measurement[];
  manualScales?: ManualScale[];
  scalingOrder?: ScalingStep[];
  /** ScaleTool's <preserve_mass_distribution>: true (the default) keeps the generic model's mass proportions. */
  preserveMassDistribution?: boolean;
  /** Frames averaged for the measurements; the stillest window of `stillWindowS` when omitted. */
  timeRangeS?: [number, number];
  stillWindowS?: number;
  /** Markers the stillest window is judged on (all of the trial's when omitted). */
  stillWindowMarkers?: readonly string[];
  /**
   * Measurements without which the model is not the subject's: scaling stops with a
   * KeypointsMissingError naming their keypoints when one cannot be measured at all. Any other
   * measurement that cannot be made leaves its bodies as they are (listed in `measurements`).
   */
  essentialMeasurements?: readonly string[];
  placer?: {
    apply: boolean;
    /** Frames averaged for the placer's IK; the measurement window when omitted. */
    timeRangeS?: [number, number];
    markerWeights?: ReadonlyMap<string, number>;
    coordinateTasks?: readonly { coordinate: string; weight: number; value: number }[];
    /** Measured markers farther than this from the model in the static pose keep the model's places (placeMarkers). */
    maxMoveM?: number;
  };
}

export interface ScaledModel {
  /** The scaled model's kinematics, read back from `osim`. */
  model: OsimModel;
  /** The scaled .osim file: the generic model's document with its values scaled and its markers placed. */
  osim: string;
  /** Body masses after scaling, kg: the generic model's proportions of the subject's mass. */
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

/**
 * An essential measurement that no frame of the measurement window could make: a user error naming
 * the keypoints of its pairs that were missing there, and how often each was seen.
 */
function essentialNotMeasured(
  measurements: readonly MeasurementResult[],
  staticTrial: MarkerTrajectories,
  window: ScaledModel['measurementWindow'],
): KeypointsMissingError {
  const names = [...new Set(measurements.flatMap((m) => m.skippedPairs.flat()))];
  const missing = missingKeypoints(staticTrial, names, window.firstFrame, window.lastFrame);
  const frames = window.lastFrame - window.firstFrame + 1;
  return new KeypointsMissingError(
    `The ${measurements.map((m) => m.name).join(' and ')} cannot be measured: no frame of the still stretch the model is scaled on ` +
      `(${frames} frames) shows both ends of ${measurements.length > 1 ? 'them' : 'it'}. Missing: ${missingKeypointsText(missing, frames)}.`,
    missing,
    frames,
  );
}

export class ScalingError extends Error {
  override name = 'ScalingError';
}

/** Settings from an OpenSim Setup_Scale.xml; coordinate tasks with default_value take the model's defaults. */
export function scaleSettingsFromSetup(setup: ScaleSetup, model: OsimModel): ScaleSettings {
  const placerTasks = ikTasksFromSetup(new KinematicModel(model), setup.placer);
  return {
    measurements: setup.scaler.apply ? setup.scaler.measurements : [],
    manualScales: setup.scaler.apply ? setup.scaler.manualScales : [],
    scalingOrder: setup.scaler.scalingOrder,
    timeRangeS: setup.scaler.timeRangeS,
    preserveMassDistribution: setup.scaler.preserveMassDistribution,
    placer: { apply: setup.placer.apply, timeRangeS: setup.placer.timeRangeS, ...placerTasks },
  };
}

/**
 * Scales a generic model (its .osim document, with the marker set it is scaled with; left as it
 * is) to the subject on a static trial.
 */
export function scaleModelToSubject(
  generic: XmlDocument,
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
  const document = cloneXmlDocument(generic);
  const model = readOsimTree(document.root);
  const { factors, measurements } = measureScaleFactors(model, measurementPose, settings);
  const failed = measurements.filter((m) => Number.isNaN(m.factor)).map((m) => m.name);
  const essentialFailed = measurements.filter(
    (m) => Number.isNaN(m.factor) && settings.essentialMeasurements?.includes(m.name),
  );
  if (essentialFailed.length > 0) throw essentialNotMeasured(essentialFailed, staticTrial, window);
  if (settings.measurements.length > 0 && failed.length === measurements.length) {
    throw new ScalingError(
      `No measurement could be made: the static trial and the model share none of the measurement marker pairs (${failed.join(', ')}). ` +
        'Check the marker names of the trial against the model, or pass a scale setup file.',
    );
  }
  onProgress?.(1, steps);
  const { bodyMassesKg } = scaleOsimDocument(document, {
    factors,
    massKg: subject.massKg,
    preserveMassDistribution: settings.preserveMassDistribution ?? true,
  });
  let scaled = readOsimTree(document.root);
  onProgress?.(2, steps);

  let placement: MarkerPlacementResult | undefined;
  if (settings.placer?.apply !== false) {
    const placerPose = settings.placer?.timeRangeS
      ? averageMarkerFrames(staticTrial, ...framesInTimeRange(staticTrial.timesS, ...settings.placer.timeRangeS))
      : measurementPose;
    placement = placeMarkers(scaled, placerPose, { ...settings.placer, fixedMarkers: fixedMarkerNames(document) });
    const moved = new Set(placement.movedMarkers);
    setMarkerLocations(
      document,
      new Map(placement.model.markers.filter((marker) => moved.has(marker.name)).map((m) => [m.name, m.locationM])),
    );
    scaled = placement.model;
    onProgress?.(3, steps);
  }

  return {
    model: scaled,
    osim: serializeXml(document),
    bodyMassesKg,
    scaleFactors: factors,
    measurements,
    measurementWindow: window,
    placement,
  };
}
