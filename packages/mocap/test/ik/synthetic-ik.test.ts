import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { MarkerTrajectories } from '../../src/formats/trc.ts';
import { IkProblem, IkSetupError } from '../../src/ik/ik-problem.ts';
import { solveInverseKinematics } from '../../src/ik/inverse-kinematics.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const modelPath = 'opencap_outputs/opencap-processing@eb5fa1d90a/Examples/ExampleData/LaiUhlrich2022_scaled.osim';

function loadModel(): KinematicModel {
  return new KinematicModel(readOsim(readFileSync(referencePath(modelPath), 'utf8')));
}

/** A smooth motion through known coordinates (inside every range) and the markers it produces. */
function syntheticRecording(
  model: KinematicModel,
  frameCount: number,
): { truth: Float64Array; markers: MarkerTrajectories } {
  const n = model.coordinateNames.length;
  const truth = new Float64Array(frameCount * n);
  const positionsM = new Float64Array(frameCount * model.markerNames.length * 3);
  const q = model.defaultCoordinates();
  for (let f = 0; f < frameCount; f++) {
    model.coordinates.forEach((coordinate, c) => {
      const low = Math.max(coordinate.rangeMin, coordinate.motionType === 'translational' ? -1 : -1.2);
      const high = Math.min(coordinate.rangeMax, coordinate.motionType === 'translational' ? 1.5 : 1.2);
      const middle = (low + high) / 2;
      const amplitude = 0.3 * (high - low);
      q[c] = middle + amplitude * Math.sin(0.2 * f + c);
    });
    model.applyCouplers(q);
    truth.set(q, f * n);
    model.setCoordinates(q);
    model.markerPositions(positionsM.subarray(f * model.markerNames.length * 3));
  }
  return {
    truth,
    markers: {
      markerNames: model.markerNames,
      frameRateHz: 60,
      timesS: Float64Array.from({ length: frameCount }, (_, f) => f / 60),
      positionsM,
    },
  };
}

describeWithData('inverse kinematics on markers made by the model itself', [modelPath], () => {
  it('recovers known coordinates of a 35-coordinate model, with the patella following its coupler', () => {
    const model = loadModel();
    const { truth, markers } = syntheticRecording(model, 20);
    const result = solveInverseKinematics(model, markers);
    const n = model.coordinateNames.length;
    // A coordinate no marker depends on (the toes carry no OpenCap marker) cannot be recovered: it stays at its start.
    const problem = new IkProblem(model, markers.markerNames);
    problem.setFrame(markers, 0);
    const start = model.defaultCoordinates();
    const jacobian = new Float64Array(problem.rowCount * n);
    problem.residuals(Float64Array.from(start), new Float64Array(problem.rowCount));
    problem.jacobian(start, jacobian);
    const dependsOn = (c: number) => jacobian.some((value, i) => i % n === c && value !== 0);
    // Coupled coordinates have their Jacobian folded into their independent coordinate.
    const observable = model.coordinateNames.map((_, c) => dependsOn(model.coupledTo[c] >= 0 ? model.coupledTo[c] : c));
    expect(model.coordinateNames.filter((_, c) => !observable[c])).toEqual(['mtp_angle_r', 'mtp_angle_l']);
    let worstRad = 0;
    let worstM = 0;
    for (let i = 0; i < truth.length; i++) {
      const c = i % n;
      if (!observable[c]) {
        expect(result.trajectories.values[i]).toBe(start[c]);
        continue;
      }
      const error = Math.abs(result.trajectories.values[i] - truth[i]);
      if (model.coordinates[c].motionType === 'translational') worstM = Math.max(worstM, error);
      else worstRad = Math.max(worstRad, error);
    }
    console.log(
      `synthetic IK: worst rotation error ${((worstRad * 180) / Math.PI).toExponential(2)} deg, translation ${(worstM * 1000).toExponential(2)} mm`,
    );
    expect((worstRad * 180) / Math.PI).toBeLessThan(0.01);
    expect(worstM).toBeLessThan(1e-5);
    expect(Math.max(...result.errors.maxM)).toBeLessThan(1e-6);
    const knee = model.coordinateNames.indexOf('knee_angle_r');
    const beta = model.coordinateNames.indexOf('knee_angle_r_beta');
    for (let f = 0; f < 20; f++)
      expect(result.trajectories.values[f * n + beta]).toBeCloseTo(result.trajectories.values[f * n + knee], 12);
  });

  it('keeps locked coordinates at their default, clamped ones inside their range, and pulls task coordinates to their value', () => {
    const description = readOsim(readFileSync(referencePath(modelPath), 'utf8'));
    const model = new KinematicModel(description);
    const { markers } = syntheticRecording(model, 6);
    // Lock the right elbow at 0.3 rad, and narrow the left knee range below the true motion.
    const elbow = description.coordinates.find((c) => c.name === 'elbow_flex_r')!;
    elbow.locked = true;
    elbow.defaultValue = 0.3;
    const kneeL = description.coordinates.find((c) => c.name === 'knee_angle_l')!;
    kneeL.rangeMax = 0.2;
    kneeL.clamped = true;
    const constrained = new KinematicModel(description);
    const result = solveInverseKinematics(constrained, markers, {
      coordinateTasks: [{ coordinate: 'mtp_angle_r', weight: 1e6, value: 0.1 }],
    });
    const n = constrained.coordinateNames.length;
    for (let f = 0; f < 6; f++) {
      expect(result.trajectories.values[f * n + constrained.coordinateNames.indexOf('elbow_flex_r')]).toBe(0.3);
      expect(
        result.trajectories.values[f * n + constrained.coordinateNames.indexOf('knee_angle_l')],
      ).toBeLessThanOrEqual(0.2);
      expect(result.trajectories.values[f * n + constrained.coordinateNames.indexOf('mtp_angle_r')]).toBeCloseTo(
        0.1,
        3,
      );
    }
  });

  it('has an analytic Jacobian that matches finite differences, couplers included', () => {
    const model = loadModel();
    const { markers } = syntheticRecording(model, 3);
    const problem = new IkProblem(model, markers.markerNames, {
      coordinateTasks: [{ coordinate: 'pelvis_tilt', weight: 4, value: 0 }],
    });
    problem.setFrame(markers, 2);
    const n = model.coordinateNames.length;
    const q = model.defaultCoordinates();
    q.forEach((_, c) => (q[c] += 0.1 * Math.cos(3 * c)));
    const residual = new Float64Array(problem.rowCount);
    const plus = new Float64Array(problem.rowCount);
    const minus = new Float64Array(problem.rowCount);
    const jacobian = new Float64Array(problem.rowCount * n);
    problem.residuals(q, residual);
    problem.jacobian(q, jacobian);
    const stepSize = 1e-6;
    let worst = 0;
    for (const c of problem.freeCoordinates) {
      const shifted = Float64Array.from(q);
      shifted[c] += stepSize;
      problem.residuals(shifted, plus);
      shifted[c] -= 2 * stepSize;
      problem.residuals(shifted, minus);
      for (let row = 0; row < problem.rowCount; row++) {
        worst = Math.max(worst, Math.abs((plus[row] - minus[row]) / (2 * stepSize) - jacobian[row * n + c]));
      }
    }
    expect(worst).toBeLessThan(1e-6);
  });
});

it('reports a clear error when no marker is shared by model and data', () => {
  const model = new KinematicModel({
    name: 'empty',
    bodies: [],
    joints: [],
    coordinates: [],
    markers: [],
    couplers: [],
  });
  expect(() => new IkProblem(model, ['RHip'])).toThrow(IkSetupError);
  expect(() => new IkProblem(model, ['RHip'])).toThrow(/No marker is both in model "empty"/);
});
