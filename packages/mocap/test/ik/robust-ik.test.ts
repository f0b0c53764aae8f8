import { describe, expect, it } from 'vitest';
import { createDefaultModel } from '../../src/default-model/default-model.ts';
import {
  DEFAULT_KEYPOINT_WEIGHTS,
  KEYPOINT_IK_ROBUSTNESS,
  MOTION_PRIOR_TASKS,
} from '../../src/default-model/keypoint-ik-tasks.ts';
import type { MarkerTrajectories } from '../../src/formats/trc.ts';
import type { IkSettings } from '../../src/ik/ik-problem.ts';
import { findEulerJoints, preferBranch } from '../../src/ik/euler-branches.ts';
import { solveInverseKinematics } from '../../src/ik/inverse-kinematics.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';

const DEG = Math.PI / 180;
const FRAMES = 40;
const model = new KinematicModel(createDefaultModel({ heightM: 1.75 }));
const n = model.coordinateNames.length;
const index = (name: string) => model.coordinateNames.indexOf(name);
const marker = (name: string) => model.markerNames.indexOf(name);

const keypointIk: IkSettings = {
  markerWeights: new Map(Object.entries(DEFAULT_KEYPOINT_WEIGHTS)),
  coordinateTasks: MOTION_PRIOR_TASKS,
};
const robustKeypointIk: IkSettings = { ...keypointIk, ...KEYPOINT_IK_ROBUSTNESS };

/**
 * A squat with an arm swing, 60 Hz, made by the model itself, with 5 mm of deterministic
 * keypoint noise; `pose(f, q)` may override coordinates (degrees are converted by the caller).
 */
function recording(pose: (f: number, q: Float64Array) => void = () => {}): {
  truth: Float64Array;
  markers: MarkerTrajectories;
} {
  const truth = new Float64Array(FRAMES * n);
  const markerCount = model.markerNames.length;
  const positionsM = new Float64Array(FRAMES * markerCount * 3);
  let seed = 11;
  const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.01;
  for (let f = 0; f < FRAMES; f++) {
    const q = model.defaultCoordinates();
    const depth = Math.sin((Math.PI * f) / FRAMES);
    for (const side of ['r', 'l']) {
      q[index(`hip_flexion_${side}`)] = 70 * depth * DEG;
      q[index(`knee_angle_${side}`)] = 90 * depth * DEG;
      q[index(`ankle_angle_${side}`)] = 20 * depth * DEG;
      q[index(`arm_flex_${side}`)] = 60 * depth * DEG;
      q[index(`elbow_flex_${side}`)] = 30 * DEG;
    }
    q[index('pelvis_ty')] -= 0.3 * depth;
    pose(f, q);
    truth.set(q, f * n);
    model.setCoordinates(q);
    const frame = positionsM.subarray(f * markerCount * 3, (f + 1) * markerCount * 3);
    model.markerPositions(frame);
    for (let i = 0; i < frame.length; i++) frame[i] += noise();
  }
  return {
    truth,
    markers: {
      markerNames: [...model.markerNames],
      frameRateHz: 60,
      timesS: Float64Array.from({ length: FRAMES }, (_, f) => f / 60),
      positionsM,
    },
  };
}

function moveMarker(
  markers: MarkerTrajectories,
  name: string,
  frames: number[],
  offsetM: [number, number, number],
): void {
  const m = marker(name);
  for (const f of frames)
    for (let a = 0; a < 3; a++) markers.positionsM[(f * markers.markerNames.length + m) * 3 + a] += offsetM[a];
}

const errorDeg = (values: Float64Array, truth: Float64Array, f: number, name: string) =>
  Math.abs(values[f * n + index(name)] - truth[f * n + index(name)]) / DEG;

describe('inverse kinematics on video keypoints that go wrong', () => {
  it('is not thrown by one keypoint 30 cm off: the robust loss leaves it out and reports it', () => {
    const { truth, markers } = recording();
    const badFrames = [15, 16, 17];
    moveMarker(markers, 'RKnee', badFrames, [0.3, 0, 0.05]);
    // The best any solver can do: the same frames with that keypoint missing.
    const missing = recording().markers;
    const width = missing.markerNames.length * 3;
    for (const f of badFrames)
      missing.positionsM.fill(Number.NaN, f * width + marker('RKnee') * 3, f * width + marker('RKnee') * 3 + 3);
    const plain = solveInverseKinematics(model, markers, keypointIk);
    const robust = solveInverseKinematics(model, markers, robustKeypointIk);
    const withoutIt = solveInverseKinematics(model, missing, robustKeypointIk);
    const worst = (values: Float64Array) =>
      Math.max(
        ...badFrames.flatMap((f) =>
          ['hip_flexion_r', 'knee_angle_r', 'ankle_angle_r'].map((c) => errorDeg(values, truth, f, c)),
        ),
      );
    console.log(
      `one keypoint 30 cm off: worst right-leg angle error ${worst(plain.trajectories.values).toFixed(1)} deg by least squares, ` +
        `${worst(robust.trajectories.values).toFixed(1)} deg robust, ${worst(withoutIt.trajectories.values).toFixed(1)} deg with the keypoint missing`,
    );
    expect(worst(plain.trajectories.values)).toBeGreaterThan(10);
    expect(worst(robust.trajectories.values)).toBeLessThan(worst(withoutIt.trajectories.values) + 0.5);
    const knee = robust.markerErrors.find((e) => e.name === 'RKnee')!;
    expect(knee.framesDownweighted).toBe(badFrames.length);
    expect(knee.maxM).toBeGreaterThan(0.25);
    expect(knee.framesPresent).toBe(FRAMES);
    // Every other keypoint keeps its full weight and fits to the noise.
    for (const e of robust.markerErrors.filter((e) => e.name !== 'RKnee')) expect(e.framesDownweighted).toBe(0);
  });

  it('starts the frame after a wrecked one from the last good frame, not from the wreck', () => {
    const { truth, markers } = recording();
    // Frame 20: every left-side keypoint swapped with its right-side twin (a whole camera set mislabelled).
    const width = markers.markerNames.length * 3;
    const frame = markers.positionsM.subarray(20 * width, 21 * width);
    for (const name of model.markerNames.filter((name) => name.startsWith('L'))) {
      const l = marker(name) * 3;
      const r = marker(`R${name.slice(1)}`) * 3;
      for (let a = 0; a < 3; a++) [frame[l + a], frame[r + a]] = [frame[r + a], frame[l + a]];
    }
    const result = solveInverseKinematics(model, markers, robustKeypointIk);
    expect(result.errors.poorFit[20]).toBe(1);
    expect([...result.errors.poorFit].reduce((a, b) => a + b, 0)).toBe(1);
    for (const f of [19, 21, 22]) {
      for (const c of ['hip_flexion_r', 'hip_flexion_l', 'knee_angle_r', 'knee_angle_l'])
        expect(errorDeg(result.trajectories.values, truth, f, c)).toBeLessThan(3);
    }
  });

  it('keeps the largest frame-to-frame change of every joint angle near the true one on noisy keypoints', () => {
    const { truth, markers } = recording();
    const result = solveInverseKinematics(model, markers, robustKeypointIk);
    for (const c of ['hip_flexion_r', 'knee_angle_r', 'ankle_angle_r', 'hip_rotation_r', 'arm_flex_r', 'arm_rot_r']) {
      let jump = 0;
      let trueJump = 0;
      for (let f = 1; f < FRAMES; f++) {
        jump = Math.max(
          jump,
          Math.abs(result.trajectories.values[f * n + index(c)] - result.trajectories.values[(f - 1) * n + index(c)]) /
            DEG,
        );
        trueJump = Math.max(trueJump, Math.abs(truth[f * n + index(c)] - truth[(f - 1) * n + index(c)]) / DEG);
      }
      expect(jump, c).toBeLessThan(trueJump + 3);
    }
  });

  it('brings an arm held in its mirror angles back to the angles the priors prefer, the pose unchanged', () => {
    // From a drop-jump trial: the right arm at flexion 178, adduction -157, rotation 171 degrees is the
    // same arm as (-2, -23, -9), and a continuity term would hold those mirror angles frame after frame.
    const q = model.defaultCoordinates();
    q[index('arm_flex_r')] = 178 * DEG;
    q[index('arm_add_r')] = -157 * DEG;
    q[index('arm_rot_r')] = 171 * DEG;
    const positions = (pose: Float64Array) => {
      model.setCoordinates(pose);
      const out = new Float64Array(model.markerNames.length * 3);
      model.markerPositions(out);
      return out;
    };
    const before = positions(q);
    const joints = findEulerJoints(model);
    expect(joints.map((joint) => joint.coordinates.map((c) => model.coordinateNames[c]))).toContainEqual([
      'arm_flex_r',
      'arm_add_r',
      'arm_rot_r',
    ]);
    const lower = Float64Array.from(model.coordinates, (c) => c.rangeMin);
    const upper = Float64Array.from(model.coordinates, (c) => c.rangeMax);
    const armRotationPrior = (pose: Float64Array) => pose[index('arm_rot_r')] ** 2;
    preferBranch(joints, q, lower, upper, armRotationPrior);
    expect(q[index('arm_flex_r')] / DEG).toBeCloseTo(-2, 6);
    expect(q[index('arm_add_r')] / DEG).toBeCloseTo(-23, 6);
    expect(q[index('arm_rot_r')] / DEG).toBeCloseTo(-9, 6);
    const after = positions(q);
    for (let i = 0; i < before.length; i++) expect(after[i]).toBeCloseTo(before[i], 9);
  });
});
