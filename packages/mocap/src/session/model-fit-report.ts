import type { NeutralFit } from '../model-fitting/fit-neutral.ts';
import type { TrialFit } from '../model-fitting/fit-trial.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import type { OsimModel } from '../model/osim-model.ts';
import type { QualityReport } from '../report/quality-report.ts';
import { missingKeypoints } from '../scaling/keypoint-presence.ts';

/**
 * The model-fit part of a trial's quality report (`quality_report`, next to the reconstruction's
 * calibration, sync, reprojection and missing-person figures): how well the scaled model fits the
 * markers, in millimetres, per marker where a user can act on it (a badly seen joint).
 */
export interface ScalingFigures {
  /** Trial seconds the segments were measured over, and how that window was chosen. */
  windowS: [number, number];
  windowChosenBy: string;
  /** Marker error of the static-pose IK before the markers were placed, mm. */
  markerErrorRmsMm: number | null;
  markerErrorMaxMm: number | null;
  markerErrorsMm: Record<string, number>;
  scaleFactors: Record<string, [number, number, number]>;
  /** Keypoints not seen in any frame of the window: left out, their markers keep the model's places. */
  keypointsNotSeen: string[];
  /** Measurements no keypoint pair could make: their bodies keep the model's proportions at the subject's height. */
  measurementsNotMade: string[];
  /** Keypoint pairs no frame of the window showed both ends of (a measurement made from its other pairs, or not at all). */
  pairsNotMeasured: [string, string][];
  /** Keypoints too far from the model standing in the neutral pose to be a body's: their markers keep the model's places. */
  markersNotPlaced: string[];
}

export interface InverseKinematicsFigures {
  /** Root of the mean squared per-frame marker RMS, mm. */
  markerErrorRmsMm: number;
  /** Largest marker error of any frame, mm. */
  markerErrorMaxMm: number;
  /** Per tracked marker: RMS over the frames it was present, mm. */
  markerErrorRmsPerMarkerMm: Record<string, number>;
}

export type ReportWithModelFit = QualityReport & {
  modelFit: { scaling?: ScalingFigures; inverseKinematics?: InverseKinematicsFigures };
};

const mm = (m: number) => Math.round(m * 10000) / 10;

export function scalingFigures(fit: NeutralFit): ScalingFigures {
  const { scaled } = fit;
  const placement = scaled.placement;
  return {
    windowS: scaled.measurementWindow.timeRangeS,
    windowChosenBy: scaled.measurementWindow.chosenBy,
    markerErrorRmsMm: placement ? mm(placement.rmsErrorM) : null,
    markerErrorMaxMm: placement ? mm(placement.maxErrorM) : null,
    markerErrorsMm: Object.fromEntries((placement?.markerErrors ?? []).map((error) => [error.name, mm(error.errorM)])),
    keypointsNotSeen: keypointsNotSeen(fit),
    measurementsNotMade: scaled.measurements.filter((m) => Number.isNaN(m.factor)).map((m) => m.name),
    pairsNotMeasured: scaled.measurements.flatMap((m) => m.skippedPairs),
    markersNotPlaced: placement?.implausibleMarkers ?? [],
    scaleFactors: Object.fromEntries(
      [...scaled.scaleFactors].map(([body, factors]) => [
        body,
        factors.map((f) => Math.round(f * 10000) / 10000) as [number, number, number],
      ]),
    ),
  };
}

/** The neutral's keypoints missing in every frame of the window the model was measured on. */
export function keypointsNotSeen(fit: NeutralFit): string[] {
  const { firstFrame, lastFrame } = fit.scaled.measurementWindow;
  return missingKeypoints(fit.markers, fit.markers.markerNames, firstFrame, lastFrame)
    .filter((keypoint) => keypoint.framesSeen === 0)
    .map((keypoint) => keypoint.name);
}

/** IK marker errors per marker: the model posed at each solved frame against that frame's markers. */
export function inverseKinematicsFigures(fit: TrialFit, model: OsimModel): InverseKinematicsFigures {
  const kinematics = new KinematicModel(model);
  const { trajectories, trackedMarkerNames } = fit.ik;
  const { markers } = fit;
  const coordinateCount = kinematics.coordinateNames.length;
  const modelPositions = new Float64Array(kinematics.markerNames.length * 3);
  const q = new Float64Array(coordinateCount);
  const pairs = trackedMarkerNames.map((name) => ({
    name,
    model: kinematics.markerNames.indexOf(name),
    data: markers.markerNames.indexOf(name),
    sumSquares: 0,
    count: 0,
  }));
  let markerFrame = 0;
  for (let f = 0; f < trajectories.timesS.length; f++) {
    const t = trajectories.timesS[f];
    while (
      markerFrame + 1 < markers.timesS.length &&
      Math.abs(markers.timesS[markerFrame + 1] - t) <= Math.abs(markers.timesS[markerFrame] - t)
    )
      markerFrame++;
    q.set(trajectories.values.subarray(f * coordinateCount, (f + 1) * coordinateCount));
    kinematics.applyCouplers(q);
    kinematics.setCoordinates(q);
    kinematics.markerPositions(modelPositions);
    for (const pair of pairs) {
      if (pair.model < 0 || pair.data < 0) continue;
      const d = (markerFrame * markers.markerNames.length + pair.data) * 3;
      const distance = Math.hypot(
        modelPositions[pair.model * 3] - markers.positionsM[d],
        modelPositions[pair.model * 3 + 1] - markers.positionsM[d + 1],
        modelPositions[pair.model * 3 + 2] - markers.positionsM[d + 2],
      );
      if (Number.isNaN(distance)) continue;
      pair.sumSquares += distance * distance;
      pair.count++;
    }
  }
  let maxM = 0;
  for (const value of fit.ik.errors.maxM) if (value > maxM) maxM = value;
  return {
    markerErrorRmsMm: mm(fit.rmsErrorM),
    markerErrorMaxMm: mm(maxM),
    markerErrorRmsPerMarkerMm: Object.fromEntries(
      pairs.filter((pair) => pair.count > 0).map((pair) => [pair.name, mm(Math.sqrt(pair.sumSquares / pair.count))]),
    ),
  };
}
