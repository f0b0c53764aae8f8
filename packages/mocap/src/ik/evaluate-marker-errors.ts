import type { MarkerTrajectories } from '../formats/trc.ts';
import type { KinematicModel } from '../model/kinematic-model.ts';
import type { CoordinateTrajectories } from '../model/motion.ts';
import { IkProblem, type IkTaskWeights, type MarkerErrors } from './ik-problem.ts';

/**
 * Marker errors of a given motion (e.g. OpenSim's own IK result) against measured markers: each
 * motion frame is compared with the marker frame nearest in time, the model posed by our forward
 * kinematics. Couplers are applied, so dependent coordinates follow their independent one.
 */
export function evaluateMarkerErrors(
  model: KinematicModel,
  trajectories: CoordinateTrajectories,
  markers: MarkerTrajectories,
  tasks: IkTaskWeights = {},
): { trackedMarkerNames: string[]; frames: (MarkerErrors & { goal: number })[] } {
  const problem = new IkProblem(model, markers.markerNames, tasks);
  const coordinateCount = model.coordinateNames.length;
  const q = new Float64Array(coordinateCount);
  const residual = new Float64Array(problem.rowCount);
  const frames: (MarkerErrors & { goal: number })[] = [];
  let markerFrame = 0;
  for (let f = 0; f < trajectories.timesS.length; f++) {
    const t = trajectories.timesS[f];
    while (
      markerFrame + 1 < markers.timesS.length &&
      Math.abs(markers.timesS[markerFrame + 1] - t) <= Math.abs(markers.timesS[markerFrame] - t)
    )
      markerFrame++;
    problem.setFrame(markers, markerFrame);
    q.set(trajectories.values.subarray(f * coordinateCount, (f + 1) * coordinateCount));
    const goal = problem.residuals(q, residual);
    frames.push({ ...problem.markerErrors(), goal });
  }
  return { trackedMarkerNames: problem.trackedMarkerNames, frames };
}
