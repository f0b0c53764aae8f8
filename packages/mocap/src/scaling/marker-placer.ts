import type { MarkerTrajectories } from '../formats/trc.ts';
import { solveInverseKinematics } from '../ik/inverse-kinematics.ts';
import { KinematicModel } from '../model/kinematic-model.ts';
import type { MarkerDescription, OsimModel, Vec3 } from '../model/osim-model.ts';
import { withPelvisPlacedOnMarkers } from './initial-placement.ts';
import { type StaticPose, staticMarker } from './static-pose.ts';

/**
 * OpenSim's MarkerPlacer: solve IK for the (scaled) model on the static pose, then move every
 * model marker that is not fixed onto its measured position, re-expressed in its body's frame,
 * so that the model's markers sit where this subject's markers (or keypoints) really are.
 */
export interface MarkerPlacementOptions {
  /** IK marker weights (markers not listed are not tracked); every common marker at weight 1 when omitted. */
  markerWeights?: ReadonlyMap<string, number>;
  /** Coordinate tasks of the placer's IK (rad or m). */
  coordinateTasks?: readonly { coordinate: string; weight: number; value: number }[];
  /** Markers that keep their model location (OpenSim's <fixed>true</fixed>). */
  fixedMarkers?: ReadonlySet<string>;
  /**
   * A measured marker farther than this from its model marker after the placer's IK (m) keeps its
   * model location instead of moving onto the measurement: no body in the static pose could have put
   * it there. Every measured marker moves when omitted (OpenSim's MarkerPlacer).
   */
  maxMoveM?: number;
}

export interface MarkerPlacementError {
  name: string;
  /** Distance between the model marker (after IK, before moving) and the measured one, m. */
  errorM: number;
  weight: number;
}

export interface MarkerPlacementResult {
  model: OsimModel;
  /** The static pose's coordinates (rad, m), in the model's coordinate order. */
  staticCoordinates: Float64Array;
  /** IK marker errors in the static pose, before the markers were moved. */
  markerErrors: MarkerPlacementError[];
  rmsErrorM: number;
  maxErrorM: number;
  movedMarkers: string[];
  /** Measured markers left at their model location because they were farther than `maxMoveM` from it. */
  implausibleMarkers: string[];
}

function poseAsTrajectories(pose: StaticPose): MarkerTrajectories {
  const [startS] = pose.timeRangeS;
  return {
    markerNames: pose.markerNames,
    frameRateHz: 1,
    timesS: Float64Array.of(startS),
    positionsM: pose.positionsM,
  };
}

export function placeMarkers(
  model: OsimModel,
  pose: StaticPose,
  options: MarkerPlacementOptions = {},
): MarkerPlacementResult {
  const start = withPelvisPlacedOnMarkers(model, pose.markerNames, pose.positionsM);
  const solved = solveInverseKinematics(new KinematicModel(start.model), poseAsTrajectories(pose), {
    markerWeights: options.markerWeights,
    coordinateTasks: options.coordinateTasks,
    maxIterations: 100,
  });
  const staticCoordinates = solved.trajectories.values.slice(0, model.coordinates.length);
  const trackedWeights = new Map(
    solved.trackedMarkerNames.map((name) => [name, options.markerWeights?.get(name) ?? 1]),
  );
  const { markers, movedMarkers, errorsM, implausibleMarkers } = moveMarkersOntoPose(
    model,
    pose,
    staticCoordinates,
    options.fixedMarkers,
    options.maxMoveM,
  );
  const markerErrors: MarkerPlacementError[] = [...errorsM]
    .filter(([name]) => trackedWeights.has(name))
    .map(([name, errorM]) => ({ name, errorM, weight: trackedWeights.get(name)! }));
  const rmsErrorM =
    markerErrors.length > 0
      ? Math.sqrt(markerErrors.reduce((sum, e) => sum + e.errorM * e.errorM, 0) / markerErrors.length)
      : Number.NaN;
  const maxErrorM = markerErrors.reduce((max, e) => Math.max(max, e.errorM), 0);
  return {
    model: { ...model, markers },
    staticCoordinates,
    markerErrors,
    rmsErrorM,
    maxErrorM,
    movedMarkers,
    implausibleMarkers,
  };
}

/**
 * MarkerPlacer::moveModelMarkersToPose: with the model at coordinates q, every marker that is not
 * fixed (nor on ground) and was measured moves onto its measured position, in its body's frame,
 * unless it lies farther than `maxMoveM` from it. Also each measured marker's distance from the
 * measurement before moving.
 */
export function moveMarkersOntoPose(
  model: OsimModel,
  pose: StaticPose,
  q: Float64Array,
  fixedMarkers?: ReadonlySet<string>,
  maxMoveM = Number.POSITIVE_INFINITY,
): {
  markers: MarkerDescription[];
  movedMarkers: string[];
  errorsM: Map<string, number>;
  implausibleMarkers: string[];
} {
  const kinematics = new KinematicModel(model);
  const coordinates = Float64Array.from(q);
  kinematics.applyCouplers(coordinates);
  kinematics.setCoordinates(coordinates);
  const modelPositions = new Float64Array(kinematics.markerNames.length * 3);
  kinematics.markerPositions(modelPositions);
  const errorsM = new Map<string, number>();
  const movedMarkers: string[] = [];
  const implausibleMarkers: string[] = [];
  const markers = model.markers.map((marker, m) => {
    const measured = staticMarker(pose, marker.name);
    if (!measured) return { ...marker };
    const errorM = Math.hypot(
      modelPositions[m * 3] - measured[0],
      modelPositions[m * 3 + 1] - measured[1],
      modelPositions[m * 3 + 2] - measured[2],
    );
    errorsM.set(marker.name, errorM);
    if (fixedMarkers?.has(marker.name) || marker.body === 'ground') return { ...marker };
    if (errorM > maxMoveM) {
      implausibleMarkers.push(marker.name);
      return { ...marker };
    }
    // location in body = Rᵀ (measured − body origin), R row-major body-to-ground.
    const b = kinematics.bodyNames.indexOf(marker.body);
    const R = kinematics.bodyRotation.subarray(b * 9, b * 9 + 9);
    const v = [0, 1, 2].map((a) => measured[a] - kinematics.bodyTranslation[b * 3 + a]);
    const locationM: Vec3 = [
      R[0] * v[0] + R[3] * v[1] + R[6] * v[2],
      R[1] * v[0] + R[4] * v[1] + R[7] * v[2],
      R[2] * v[0] + R[5] * v[1] + R[8] * v[2],
    ];
    movedMarkers.push(marker.name);
    return { ...marker, locationM };
  });
  return { markers, movedMarkers, errorsM, implausibleMarkers };
}
