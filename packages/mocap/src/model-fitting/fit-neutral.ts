import { augmentMarkers, type MarkerAugmenter } from '../augmenter/marker-augmenter.ts';
import { defaultModelDocument } from '../default-model/default-model.ts';
import {
  DEFAULT_KEYPOINT_WEIGHTS,
  KEYPOINT_IK_ROBUSTNESS,
  MOTION_PRIOR_TASKS,
  NEUTRAL_MAX_MARKER_MOVE_M,
  NEUTRAL_POSE_TASKS,
} from '../default-model/keypoint-ik-tasks.ts';
import type { IkSettings } from '../ik/ik-problem.ts';
import type { MarkerTrajectories } from '../formats/trc.ts';
import type { XmlDocument } from '../model/xml-tree.ts';
import { ProcessingError } from '../pipeline/processing-error.ts';
import {
  ESSENTIAL_KEYPOINT_MEASUREMENTS,
  KEYPOINT_MEASUREMENT_MARKERS,
  KEYPOINT_MEASUREMENTS,
} from '../scaling/keypoint-measurements.ts';
import { type ScaledModel, type ScaleSettings, scaleModelToSubject } from '../scaling/scale-model-to-subject.ts';
import { mergeMarkerTrajectories, withMidHip } from './merge-markers.ts';

/**
 * Model fitting, step 1: from the neutral (static) trial, the subject's scaled model. Without a
 * model, Kinetrace's default model laid out at the subject's height and scaled from keypoint
 * distances in the stillest second of the trial; with an OpenSim model and setup, OpenSim's
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
  /** The generic model's .osim document, with the markers it is scaled with; Kinetrace's default model when omitted. */
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
  usedDefaultModel: boolean;
  /** IK tasks for this model's dynamic trials (no tasks: every common marker at weight 1), with the robustness keypoints need. */
  ikTasks: IkSettings;
}

/** Keypoint-based scale settings: measurements from keypoint pairs, stillest second, keypoint IK weights for placement. */
export function keypointScaleSettings(): ScaleSettings {
  return {
    measurements: KEYPOINT_MEASUREMENTS,
    stillWindowS: 1,
    stillWindowMarkers: KEYPOINT_MEASUREMENT_MARKERS,
    essentialMeasurements: ESSENTIAL_KEYPOINT_MEASUREMENTS,
    placer: {
      apply: true,
      markerWeights: new Map(Object.entries(DEFAULT_KEYPOINT_WEIGHTS)),
      coordinateTasks: NEUTRAL_POSE_TASKS,
      maxMoveM: NEUTRAL_MAX_MARKER_MOVE_M,
    },
  };
}

/** IK of a trial's keypoints with the default model: keypoint weights, motion priors and robustness. */
export function defaultModelIkSettings(): IkSettings {
  return {
    markerWeights: new Map(Object.entries(DEFAULT_KEYPOINT_WEIGHTS)),
    coordinateTasks: MOTION_PRIOR_TASKS,
    ...KEYPOINT_IK_ROBUSTNESS,
  };
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
  const usedDefaultModel = input.model === undefined;
  const model = input.model ?? defaultModelDocument({ heightM: subject.heightM });
  const settings = input.settings ?? keypointScaleSettings();
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
  const ikTasks: IkSettings = usedDefaultModel ? defaultModelIkSettings() : { ...KEYPOINT_IK_ROBUSTNESS };
  return { scaled, markers, usedDefaultModel, ikTasks };
}
