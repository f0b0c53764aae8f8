import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readStorage } from '../../src/formats/mot.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { IkProblem } from '../../src/ik/ik-problem.ts';
import { FrameSolver, solveInverseKinematics } from '../../src/ik/inverse-kinematics.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { coordinatesFromMotion } from '../../src/model/motion.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const history = 'pose2sim_demo/history_reference_outputs';
const openSimDir = `${history}/df99cfcf2b9b9d73c062a8c0c2660428615b7f90/Pose2Sim/S00_Demo_BatchSession/S00_P00_SingleParticipant/S00_P00_OpenSim`;
const modelPath = `${openSimDir}/Model_Pose2Sim_body25b_scaled.osim`;
const motionPath = `${openSimDir}/S00_P00_T01_BalancingTrial_filt_butterworth_0-100_body25b.mot`;
const markersPath = `${history}/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100_filt_butterworth.trc`;

describeWithData(
  'inverse kinematics starts the first frame in the anatomical basin',
  [modelPath, motionPath, markersPath],
  () => {
    it('reaches, on a Pose2Sim trial turned 90 degrees from the default pose, the minima found by polishing Pose2Sim own IK result', () => {
      // Pose2Sim's model leaves elbows and arm rotations unclamped: started naively from the default
      // pose, the right arm turns half a turn with the elbow bent backwards, a minimum three times worse.
      const model = new KinematicModel(readOsim(readFileSync(referencePath(modelPath), 'utf8')));
      const markers = readTrc(readFileSync(referencePath(markersPath), 'utf8'));
      const ours = solveInverseKinematics(model, markers);
      const reference = coordinatesFromMotion(model, readStorage(readFileSync(referencePath(motionPath), 'utf8')));
      const problem = new IkProblem(model, markers.markerNames);
      const polisher = new FrameSolver(problem);
      const n = model.coordinateNames.length;
      const residual = new Float64Array(problem.rowCount);
      let ourGoal = 0;
      let polishedGoal = 0;
      let framesAsGood = 0;
      for (let frame = 0; frame < reference.timesS.length; frame++) {
        problem.setFrame(markers, frame);
        const goal = problem.residuals(ours.trajectories.values.slice(frame * n, (frame + 1) * n), residual);
        const polished = reference.values.slice(frame * n, (frame + 1) * n);
        polisher.solve(polished, 200, 1e-10);
        const best = problem.residuals(polished, residual);
        ourGoal += goal;
        polishedGoal += best;
        if (goal <= best * 1.001) framesAsGood++;
      }
      const pelvisRotation = model.coordinateNames.indexOf('pelvis_rotation');
      console.log(
        `Pose2Sim balancing trial: our summed squared marker error ${ourGoal.toFixed(4)} m^2, Pose2Sim's result polished by our solver ${polishedGoal.toFixed(4)} m^2; ${framesAsGood} of ${reference.timesS.length} frames as good; pelvis rotation ${((ours.trajectories.values[pelvisRotation] * 180) / Math.PI).toFixed(1)} deg`,
      );
      expect(framesAsGood / reference.timesS.length).toBeGreaterThan(0.95);
      expect(ourGoal).toBeLessThan(polishedGoal * 1.01);
    });
  },
);
