import type { MarkerAugmenter } from '../augmenter/marker-augmenter.ts';
import { writeStorage, type StorageTable } from '../formats/mot.ts';
import { type MarkerTrajectories, writeTrc } from '../formats/trc.ts';
import type { IkSettings } from '../ik/ik-problem.ts';
import {
  type InverseKinematicsOptions,
  type InverseKinematicsResult,
  solveInverseKinematics,
} from '../ik/inverse-kinematics.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import { motionFromCoordinates } from '../model/motion.ts';
import type { OsimModel } from '../model/osim-model.ts';
import { formatVisualizerJson, visualizerTransforms, type VisualizerTransforms } from '../model/visualizer-json.ts';
import { withPelvisPlacedOnMarkers } from '../scaling/initial-placement.ts';
import { markersForModel, type SubjectMeasures } from './fit-neutral.ts';

/**
 * Model fitting, step 2: a dynamic trial through the scaled model: (augmented) markers → IK →
 * the motion (.mot, degrees), the markers used (.trc), the scaled model (.osim) and the
 * visualizer JSON. IK starts from the model turned and moved onto the first frame's markers.
 */
export interface TrialFitInput {
  trial: MarkerTrajectories;
  /** The scaled model (NeutralFit.scaled.model) and its .osim file (NeutralFit.scaled.osim), written with the trial's results. */
  model: OsimModel;
  osim: string;
  subject: SubjectMeasures;
  augmenter?: MarkerAugmenter;
  /** IK marker weights, coordinate tasks and robustness (NeutralFit.ikTasks). */
  ikTasks?: IkSettings;
  timeRangeS?: [number, number];
  /** Trial name used inside the output files. */
  name?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface TrialFit {
  ik: InverseKinematicsResult;
  markers: MarkerTrajectories;
  motion: StorageTable;
  visualizer: VisualizerTransforms;
  /** Marker RMS error over all frames (root of the mean squared per-frame RMS), m. */
  rmsErrorM: number;
  files: { mot: string; trc: string; osim: string; visualizerJson: string };
}

function firstCompleteFrame(markers: MarkerTrajectories): Float64Array {
  const width = markers.markerNames.length * 3;
  for (let f = 0; f < markers.timesS.length; f++) {
    const frame = markers.positionsM.subarray(f * width, (f + 1) * width);
    if (frame.filter((value) => !Number.isNaN(value)).length >= width / 2) return frame;
  }
  return markers.positionsM.subarray(0, width);
}

/** IK of a trial starting from the model turned and moved onto the first frame's markers. */
export function solveTrialIk(
  model: OsimModel,
  markers: MarkerTrajectories,
  options: InverseKinematicsOptions = {},
): InverseKinematicsResult {
  const placed = withPelvisPlacedOnMarkers(model, markers.markerNames, firstCompleteFrame(markers)).model;
  return solveInverseKinematics(new KinematicModel(placed), markers, options);
}

export function fitTrial(input: TrialFitInput): TrialFit {
  const markers = markersForModel(input.trial, input.subject, input.augmenter);
  const ik = solveTrialIk(input.model, markers, {
    ...input.ikTasks,
    timeRangeS: input.timeRangeS,
    onProgress: input.onProgress,
  });
  const kinematics = new KinematicModel(input.model);
  const motion = { ...motionFromCoordinates(kinematics, ik.trajectories), name: input.name ?? 'Coordinates' };
  const visualizer = visualizerTransforms(kinematics, ik.trajectories);
  let sumSquares = 0;
  for (const rms of ik.errors.rmsM) sumSquares += rms * rms;
  const rmsErrorM = Math.sqrt(sumSquares / Math.max(1, ik.errors.rmsM.length));
  return {
    ik,
    markers,
    motion,
    visualizer,
    rmsErrorM,
    files: {
      mot: writeStorage(motion),
      trc: writeTrc(markers, `${input.name ?? 'markers'}.trc`),
      osim: input.osim,
      visualizerJson: formatVisualizerJson(visualizer),
    },
  };
}
