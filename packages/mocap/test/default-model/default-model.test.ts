import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDefaultModel } from '../../src/default-model/default-model.ts';
import { segmentMassesKg } from '../../src/default-model/segment-masses.ts';
import { writeOsim } from '../../src/formats/osim-writer.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import type { OsimModel } from '../../src/model/osim-model.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const OPENSIM_COORDINATES = [
  'pelvis_tilt',
  'pelvis_list',
  'pelvis_rotation',
  'pelvis_tx',
  'pelvis_ty',
  'pelvis_tz',
  'hip_flexion_r',
  'hip_adduction_r',
  'hip_rotation_r',
  'knee_angle_r',
  'ankle_angle_r',
  'subtalar_angle_r',
  'mtp_angle_r',
  'hip_flexion_l',
  'hip_adduction_l',
  'hip_rotation_l',
  'knee_angle_l',
  'ankle_angle_l',
  'subtalar_angle_l',
  'mtp_angle_l',
  'lumbar_extension',
  'lumbar_bending',
  'lumbar_rotation',
  'arm_flex_r',
  'arm_add_r',
  'arm_rot_r',
  'elbow_flex_r',
  'pro_sup_r',
  'arm_flex_l',
  'arm_add_l',
  'arm_rot_l',
  'elbow_flex_l',
  'pro_sup_l',
];

function markerPositions(kinematics: KinematicModel, q: Float64Array): Map<string, [number, number, number]> {
  kinematics.setCoordinates(q);
  const out = new Float64Array(kinematics.markerNames.length * 3);
  kinematics.markerPositions(out);
  return new Map(kinematics.markerNames.map((name, i) => [name, [out[i * 3], out[i * 3 + 1], out[i * 3 + 2]]]));
}

function setCoordinate(kinematics: KinematicModel, q: Float64Array, name: string, valueDeg: number): void {
  q[kinematics.coordinateNames.indexOf(name)] = (valueDeg * Math.PI) / 180;
}

/** Random poses inside the coordinate ranges; the marker positions of two models must agree in all of them. */
function maxMarkerDifferenceM(a: OsimModel, b: OsimModel): number {
  const ka = new KinematicModel(a);
  const kb = new KinematicModel(b);
  expect(kb.coordinateNames).toEqual(ka.coordinateNames);
  expect(kb.markerNames).toEqual(ka.markerNames);
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  let max = 0;
  for (let pose = 0; pose < 25; pose++) {
    const q = ka.defaultCoordinates();
    ka.coordinates.forEach((coordinate, i) => {
      if (coordinate.motionType !== 'rotational') return;
      const lo = Math.max(coordinate.rangeMin, -Math.PI);
      const hi = Math.min(coordinate.rangeMax, Math.PI);
      q[i] = lo + random() * (hi - lo);
    });
    const pa = markerPositions(ka, q);
    const pb = markerPositions(kb, q);
    for (const [name, p] of pa)
      for (let axis = 0; axis < 3; axis++) max = Math.max(max, Math.abs(p[axis] - pb.get(name)![axis]));
  }
  return max;
}

describe('Kinetrace default full-body model', () => {
  const model = createDefaultModel({ heightM: 1.8 });
  const kinematics = new KinematicModel(model);

  it('has the OpenSim full-body coordinate set with OpenSim names, in joint order', () => {
    expect(kinematics.coordinateNames).toEqual(OPENSIM_COORDINATES);
  });

  it('carries a marker for every video keypoint, plus the small toes', () => {
    expect(kinematics.markerNames).toEqual([...VIDEO_KEYPOINTS, 'RSmallToe', 'LSmallToe']);
  });

  it('stands upright with the proportions of the subject height in the default pose', () => {
    const at = markerPositions(kinematics, kinematics.defaultCoordinates());
    // Winter (2009): shoulder 0.818 H, hip 0.530 H, knee 0.285 H, ankle 0.039 H.
    expect(at.get('RShoulder')![1]).toBeCloseTo(0.818 * 1.8, 3);
    expect(at.get('RHip')![1]).toBeCloseTo(0.53 * 1.8, 3);
    expect(at.get('RKnee')![1]).toBeCloseTo(0.285 * 1.8, 3);
    expect(at.get('RAnkle')![1]).toBeCloseTo(0.039 * 1.8, 3);
    // Right side is +z, the toes point forward (+x), the face is above the shoulders.
    expect(at.get('RHip')![2]).toBeGreaterThan(0.05);
    expect(at.get('LHip')![2]).toBeLessThan(-0.05);
    expect(at.get('RBigToe')![0]).toBeGreaterThan(at.get('RHeel')![0] + 0.2);
    expect(at.get('Nose')![1]).toBeGreaterThan(at.get('Neck')![1] + 0.1);
    // Nothing below the floor; the heel and toe keypoints lie on the sole.
    for (const [, p] of at) expect(p[1]).toBeGreaterThanOrEqual(-1e-12);
    expect(at.get('RHeel')![1]).toBeCloseTo(0, 9);
  });

  it('moves the way OpenSim coordinates mean: knee and hip flexion, ankle dorsiflexion, abduction, elbow flexion', () => {
    const rest = markerPositions(kinematics, kinematics.defaultCoordinates());
    const q = kinematics.defaultCoordinates();
    setCoordinate(kinematics, q, 'knee_angle_r', 90);
    setCoordinate(kinematics, q, 'hip_flexion_l', 90);
    setCoordinate(kinematics, q, 'ankle_angle_l', 20);
    setCoordinate(kinematics, q, 'hip_adduction_r', -30);
    setCoordinate(kinematics, q, 'elbow_flex_r', 90);
    setCoordinate(kinematics, q, 'elbow_flex_l', 90);
    const moved = markerPositions(kinematics, q);
    // Knee flexion swings the right ankle behind the knee.
    expect(moved.get('RAnkle')![0]).toBeLessThan(moved.get('RKnee')![0] - 0.3);
    // Hip flexion lifts the left knee forward to hip height.
    expect(moved.get('LKnee')![0]).toBeGreaterThan(rest.get('LKnee')![0] + 0.3);
    expect(moved.get('LKnee')![1]).toBeCloseTo(moved.get('LHip')![1], 1);
    // Abduction (negative adduction) moves the right foot laterally (+z).
    expect(moved.get('RAnkle')![2]).toBeGreaterThan(rest.get('RAnkle')![2] + 0.1);
    // Elbow flexion brings both wrists forward.
    expect(moved.get('RWrist')![0]).toBeGreaterThan(rest.get('RWrist')![0] + 0.2);
    expect(moved.get('LWrist')![0]).toBeGreaterThan(rest.get('LWrist')![0] + 0.2);
    // Dorsiflexion lifts the toes relative to the heel... of the left foot, which now hangs in the air after hip flexion.
    const dorsi = kinematics.defaultCoordinates();
    setCoordinate(kinematics, dorsi, 'ankle_angle_l', 20);
    expect(markerPositions(kinematics, dorsi).get('LBigToe')![1]).toBeGreaterThan(rest.get('LBigToe')![1] + 0.04);
  });

  it('gives body masses that add up to the subject mass (de Leva 1996)', () => {
    const masses = segmentMassesKg(
      model.bodies.map((body) => body.name),
      80,
    );
    const total = [...masses.values()].reduce((sum, m) => sum + m, 0);
    expect(total).toBeCloseTo(80, 6);
    expect(masses.get('femur_r')).toBeCloseTo(0.1416 * 80, 9);
  });

  it('writes a .osim that reads back to the same forward kinematics', () => {
    const text = writeOsim(model, {
      bodyMassesKg: segmentMassesKg(
        model.bodies.map((body) => body.name),
        75,
      ),
    });
    expect(text).toContain('<OpenSimDocument Version="40000">');
    expect(text).toContain('<CustomJoint name="hip_r">');
    expect(text).toContain('<WeldJoint name="radius_hand_r">');
    expect(maxMarkerDifferenceM(model, readOsim(text))).toBeLessThan(1e-12);
  });
});

describeWithData(
  '.osim writer round trip on OpenSim models',
  ['opencap_viewer_fixture/LaiUhlrich2022.osim', 'opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim'],
  () => {
    it('keeps the kinematics of LaiUhlrich2022 (splines, polynomials, couplers) and gait2354', () => {
      for (const path of [
        'opencap_viewer_fixture/LaiUhlrich2022.osim',
        'opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim',
      ]) {
        const original = readOsim(readFileSync(referencePath(path), 'utf8'));
        const roundTripped = readOsim(writeOsim(original));
        expect(roundTripped.couplers.map((c) => c.dependent)).toEqual(original.couplers.map((c) => c.dependent));
        expect(maxMarkerDifferenceM(original, roundTripped)).toBeLessThan(1e-12);
      }
    });
  },
);
