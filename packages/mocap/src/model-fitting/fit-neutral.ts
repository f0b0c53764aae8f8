import { augmentMarkers, type MarkerAugmenter } from '../augmenter/marker-augmenter.ts';
import { DEFAULT_MODEL, namedModelDocument } from '../default-model/named-models.ts';
import {
  DEFAULT_KEYPOINT_WEIGHTS,
  KEYPOINT_IK_ROBUSTNESS,
  MOTION_PRIOR_TASKS,
  NEUTRAL_MAX_MARKER_MOVE_M,
  NEUTRAL_POSE_TASKS,
} from '../default-model/keypoint-ik-tasks.ts';
import { WINTER_2009 } from '../default-model/anthropometry.ts';
import type { ManualScale, ScalingStep } from '../formats/scale-setup.ts';
import type { IkSettings } from '../ik/ik-problem.ts';
import type { MarkerTrajectories } from '../formats/trc.ts';
import type { OsimModel } from '../model/osim-model.ts';
import { readOsimTree } from '../model/read-osim.ts';
import type { XmlDocument } from '../model/xml-tree.ts';
import { ProcessingError } from '../pipeline/processing-error.ts';
import {
  ESSENTIAL_KEYPOINT_MEASUREMENTS,
  KEYPOINT_MEASUREMENT_MARKERS,
  KEYPOINT_MEASUREMENTS,
} from '../scaling/keypoint-measurements.ts';
import { defaultPoseMarkers } from '../scaling/scale-factors.ts';
import { type ScaledModel, type ScaleSettings, scaleModelToSubject } from '../scaling/scale-model-to-subject.ts';
import { mergeMarkerTrajectories, withMidHip } from './merge-markers.ts';

/**
 * Model fitting, step 1: from the neutral (static) trial, the subject's scaled model. Without a
 * model, the default model (LaiUhlrich2022 with its keypoint markers, named-models.ts) scaled from
 * keypoint distances in the stillest second of the trial; with an OpenSim model and setup, OpenSim's
 * ScaleTool procedure. With an augmenter, its predicted anatomical markers join the keypoints (a
 * model with those marker names, such as OpenCap's, then uses them).
 */
export interface SubjectMeasures {
  heightM: number;
  massKg: number;
}

export interface NeutralFitInput {
  neutral: MarkerTrajectories;
  subject: SubjectMeasures;
  /** The generic model's .osim document, with the markers it is scaled with; the default model (DEFAULT_MODEL) when omitted. */
  model?: XmlDocument;
  /** OpenSim scale settings (scaleSettingsFromSetup); keypoint measurements when omitted. */
  settings?: ScaleSettings;
  augmenter?: MarkerAugmenter;
  /** The part of the trial where the subject stands still in the neutral pose; the stillest second when omitted. */
  timeRangeS?: [number, number];
  onProgress?: (done: number, total: number) => void;
}

export interface NeutralFit {
  scaled: ScaledModel;
  /** The markers scaling used: keypoints, plus augmented markers when an augmenter ran. */
  markers: MarkerTrajectories;
  /** The model's markers are all video keypoints (tracksKeypoints), so keypoint weights and priors drive its IK. */
  keypointModel: boolean;
  /** IK tasks for this model's dynamic trials (no tasks: every common marker at weight 1), with the robustness keypoints need. */
  ikTasks: IkSettings;
}

/** Only the tasks on coordinates the model has (LaiUhlrich2022_shoulder moves its arms with sh_* coordinates, not arm_*). */
const onModel = (model: OsimModel, tasks: readonly { coordinate: string; weight: number; value: number }[]) => {
  const names = new Set(model.coordinates.map((coordinate) => coordinate.name));
  return tasks.filter((task) => names.has(task.coordinate));
};

/**
 * Every body scaled by the subject's height over the model's, before the measurements (which then
 * replace the axes they measure): a body whose keypoints the neutral does not show keeps the model's
 * proportions at the subject's height. The model's height from its eye and ankle markers standing
 * (Winter 2009, Fig. 4.1: eyes at 0.936 H, ankles at 0.039 H); none without them.
 */
function heightScales(model: OsimModel, heightM: number): ManualScale[] {
  const markers = defaultPoseMarkers(model);
  const meanHeightM = (names: string[]) => {
    const heights = names.flatMap((name) => markers.get(name)?.[1] ?? []);
    return heights.length > 0 ? heights.reduce((sum, y) => sum + y, 0) / heights.length : Number.NaN;
  };
  const modelHeightM =
    (meanHeightM(['REye', 'LEye']) - meanHeightM(['RAnkle', 'LAnkle'])) /
    (WINTER_2009.eyeHeight - WINTER_2009.ankleHeight);
  if (!(modelHeightM > 0)) return [];
  const factor = heightM / modelHeightM;
  return model.bodies.map((body) => ({ body: body.name, factors: [factor, factor, factor], apply: true }));
}

/**
 * Keypoint-based scale settings for a model carrying the keypoint markers: measurements from
 * keypoint pairs on the bodies the model has (LaiUhlrich2022's head is part of its torso, so the
 * face measures nothing there), with the subject's height for the bodies none of them can measure
 * (heightScales), stillest second, keypoint IK weights for placement.
 */
export function keypointScaleSettings(model: OsimModel, subjectHeightM?: number): ScaleSettings {
  const bodies = new Set(model.bodies.map((body) => body.name));
  return {
    measurements: KEYPOINT_MEASUREMENTS.filter((m) => m.bodyScales.some((scale) => bodies.has(scale.body))),
    ...(subjectHeightM !== undefined && {
      manualScales: heightScales(model, subjectHeightM),
      scalingOrder: ['manualScale', 'measurements'] as ScalingStep[],
    }),
    stillWindowS: 1,
    stillWindowMarkers: KEYPOINT_MEASUREMENT_MARKERS,
    essentialMeasurements: ESSENTIAL_KEYPOINT_MEASUREMENTS,
    placer: {
      apply: true,
      markerWeights: new Map(Object.entries(DEFAULT_KEYPOINT_WEIGHTS)),
      coordinateTasks: onModel(model, NEUTRAL_POSE_TASKS),
      maxMoveM: NEUTRAL_MAX_MARKER_MOVE_M,
    },
  };
}

/** IK of a trial's keypoints with a model carrying the keypoint markers: keypoint weights, motion priors and robustness. */
export function keypointIkSettings(model: OsimModel): IkSettings {
  return {
    markerWeights: new Map(Object.entries(DEFAULT_KEYPOINT_WEIGHTS)),
    coordinateTasks: onModel(model, MOTION_PRIOR_TASKS),
    ...KEYPOINT_IK_ROBUSTNESS,
  };
}

/**
 * A model whose markers are all video keypoints: Kinetrace's own (named-models.ts), or any other
 * given such a marker set. Its IK uses the keypoint weights and priors.
 */
export const tracksKeypoints = (model: OsimModel) =>
  model.markers.length > 0 && model.markers.every((marker) => Object.hasOwn(DEFAULT_KEYPOINT_WEIGHTS, marker.name));

/**
 * IK settings for a scaled model (fitNeutral's choice, which `kinetrace ik` and movement trials
 * repeat from the .osim): keypoint weights and priors for a model tracking keypoints, every common
 * marker at weight 1 for any other (anatomical markers of an augmenter); with the robustness video
 * keypoints need either way.
 */
export function ikSettingsForModel(model: OsimModel): IkSettings {
  return tracksKeypoints(model) ? keypointIkSettings(model) : { ...KEYPOINT_IK_ROBUSTNESS };
}

/** Keypoints (with a midHip where the keypoint set has none) plus the augmenter's markers when one is given. */
export function markersForModel(
  keypoints: MarkerTrajectories,
  subject: SubjectMeasures,
  augmenter?: MarkerAugmenter,
): MarkerTrajectories {
  const complete = withMidHip(keypoints);
  return augmenter ? mergeMarkerTrajectories(complete, augmentMarkers(complete, subject, augmenter)) : complete;
}

export function fitNeutral(input: NeutralFitInput): NeutralFit {
  const { subject } = input;
  if (!(subject.heightM > 0.5 && subject.heightM < 2.8))
    throw new ProcessingError(
      'SUBJECT_OUT_OF_RANGE',
      `The subject's height, ${subject.heightM} m, is outside what the model can be scaled to (0.5 to 2.8 m). ` +
        "Check the subject's height (in metres), then reprocess the neutral trial.",
    );
  const markers = markersForModel(input.neutral, subject, input.augmenter);
  const model = input.model ?? namedModelDocument(DEFAULT_MODEL, { heightM: subject.heightM });
  const generic = readOsimTree(model.root);
  const settings = input.settings ?? keypointScaleSettings(generic, subject.heightM);
  // Markers the still window is judged on must exist in the trial.
  const stillWindowMarkers = settings.stillWindowMarkers?.filter((name) => markers.markerNames.includes(name));
  const scaled = scaleModelToSubject(
    model,
    markers,
    subject,
    {
      ...settings,
      timeRangeS: input.timeRangeS ?? settings.timeRangeS,
      // A neutral window given for this trial also replaces the setup's marker-placer window.
      placer:
        settings.placer && input.timeRangeS ? { ...settings.placer, timeRangeS: input.timeRangeS } : settings.placer,
      stillWindowMarkers: stillWindowMarkers && stillWindowMarkers.length > 0 ? stillWindowMarkers : undefined,
    },
    input.onProgress,
  );
  return { scaled, markers, keypointModel: tracksKeypoints(generic), ikTasks: ikSettingsForModel(scaled.model) };
}
