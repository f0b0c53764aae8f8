import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { readOsim, UnsupportedModelError } from '../../src/model/read-osim.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const pose2sim =
  'pose2sim_demo/history_reference_outputs/df99cfcf2b9b9d73c062a8c0c2660428615b7f90/Pose2Sim/S00_Demo_BatchSession/S00_P00_SingleParticipant/S00_P00_OpenSim';

/** [path, bodies without ground, coordinates, markers, couplers] */
const models: [string, number, number, number, number][] = [
  ['opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim', 12, 23, 0, 0],
  ['opensim_gait/Pipelines/Gait2354_Simbody/OutputReference/subject01_simbody.osim', 12, 23, 39, 0],
  ['opensim_gait/Models/Gait2392_Simbody/gait2392_thelen2003muscle.osim', 12, 23, 0, 0],
  ['opensim_gait/Pipelines/Gait2392_Simbody/OutputReference/subject01_simbody.osim', 12, 23, 39, 0],
  ['opensim_gait/Models/Hamner/FullBodyModel_Hamner2010_v2_0.osim', 20, 37, 83, 0],
  ['opensim_gait/Pipelines/Hamner/outputReference/subject02_scaled.osim', 20, 37, 83, 0],
  ['opensim_gait/Pipelines/Hamner/outputReference/subject02_registered.osim', 20, 37, 46, 0],
  ['opencap_viewer_fixture/LaiUhlrich2022.osim', 22, 35, 43, 2],
  ['opencap_outputs/opencap-core@d5a5258954/opensimPipeline/Models/LaiUhlrich2022.osim', 22, 35, 0, 2],
  ['opencap_outputs/opencap-core@d5a5258954/opensimPipeline/Models/LaiUhlrich2022_shoulder.osim', 24, 41, 0, 2],
  ['opencap_outputs/opencap-processing@eb5fa1d90a/Examples/ExampleData/LaiUhlrich2022_scaled.osim', 22, 35, 43, 2],
  [
    'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8/OpenSimData/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim',
    24,
    41,
    43,
    2,
  ],
  ['pose2sim_demo/Pose2Sim/OpenSim_Setup/Model_Pose2Sim_simple.osim', 22, 40, 0, 0],
  ['pose2sim_demo/Pose2Sim/OpenSim_Setup/Model_Pose2Sim_muscles_flex.osim', 30, 62, 0, 20],
  [`${pose2sim}/Model_Pose2Sim_body25b_scaled.osim`, 30, 62, 21, 20],
  [`${pose2sim}/Model_Pose2Sim_LSTM_scaled.osim`, 32, 68, 43, 20],
];

describeWithData(
  'readOsim on the OpenSim, OpenCap and Pose2Sim models of the reference data',
  models.map(([path]) => path),
  () => {
    it.each(models)('reads %s', (path, bodies, coordinates, markers, couplers) => {
      const description = readOsim(readFileSync(referencePath(path), 'utf8'));
      expect(description.bodies).toHaveLength(bodies);
      expect(description.coordinates).toHaveLength(coordinates);
      expect(description.markers).toHaveLength(markers);
      expect(description.couplers).toHaveLength(couplers);
      const model = new KinematicModel(description);
      // The default pose is finite everywhere and the pelvis is the first body below ground.
      model.setCoordinates(model.defaultCoordinates());
      expect(model.bodyTranslation.every(Number.isFinite)).toBe(true);
      expect(model.bodyNames[1]).toBe('pelvis');
    });

    it('keeps coordinate ranges, clamps, locks and marker locations of gait2354', () => {
      const description = readOsim(readFileSync(referencePath(models[1][0]), 'utf8'));
      const knee = description.coordinates.find((c) => c.name === 'knee_angle_r')!;
      expect(knee.rangeMin).toBeCloseTo(-2.0943951, 6);
      expect(knee.rangeMax).toBeCloseTo(0.17453293, 6);
      expect(knee.motionType).toBe('rotational');
      expect(knee.clamped).toBe(false);
      // gait2354 leaves subtalar and mtp free and pins them through IK coordinate tasks instead.
      expect(description.coordinates.find((c) => c.name === 'mtp_angle_r')!.locked).toBe(false);
      const marker = description.markers.find((m) => m.name === 'Sternum')!;
      expect(marker.body).toBe('torso');
      expect(marker.locationM[1]).toBeCloseTo(0.312439, 6);
    });
  },
);

describe('readOsim refuses what it cannot model, naming it', () => {
  const model = (joint: string, constraints = '') => `<?xml version="1.0"?>
<OpenSimDocument Version="40000"><Model name="m">
  <BodySet><objects><Body name="b"><attached_geometry /></Body></objects></BodySet>
  <JointSet><objects>${joint}</objects></JointSet>
  <ConstraintSet><objects>${constraints}</objects></ConstraintSet>
</Model></OpenSimDocument>`;
  const pin =
    '<PinJoint name="pin"><socket_parent_frame>/ground</socket_parent_frame><socket_child_frame>/bodyset/b</socket_child_frame><coordinates><Coordinate name="q"/></coordinates></PinJoint>';

  it('names an unsupported joint type', () => {
    const ellipsoid =
      '<EllipsoidJoint name="scapula"><socket_parent_frame>/ground</socket_parent_frame><socket_child_frame>/bodyset/b</socket_child_frame></EllipsoidJoint>';
    expect(() => readOsim(model(ellipsoid))).toThrow(UnsupportedModelError);
    expect(() => readOsim(model(ellipsoid))).toThrow(/EllipsoidJoint \("scapula"\)/);
  });

  it('names an enforced constraint other than a coordinate coupler, and ignores a disabled one', () => {
    const weld = (enforced: boolean) =>
      `<WeldConstraint name="hand_weld"><isEnforced>${enforced}</isEnforced></WeldConstraint>`;
    expect(() => readOsim(model(pin, weld(true)))).toThrow(/WeldConstraint \("hand_weld"\)/);
    expect(readOsim(model(pin, weld(false))).coordinates.map((c) => c.name)).toEqual(['q']);
  });

  it('names an unsupported function', () => {
    const custom = `<CustomJoint name="cj"><socket_parent_frame>/ground</socket_parent_frame><socket_child_frame>/bodyset/b</socket_child_frame>
      <coordinates><Coordinate name="q"/></coordinates>
      <SpatialTransform><TransformAxis name="rotation1"><coordinates>q</coordinates><axis>0 0 1</axis><Sine name="function"><amplitude>1</amplitude></Sine></TransformAxis></SpatialTransform></CustomJoint>`;
    expect(() => readOsim(model(custom))).toThrow(/Sine \(used by axis rotation1 of joint "cj"\)/);
  });
});
