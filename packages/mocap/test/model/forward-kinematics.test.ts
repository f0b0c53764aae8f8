import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readStorage } from '../../src/formats/mot.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { coordinatesFromMotion, motionFromCoordinates } from '../../src/model/motion.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import {
  formatVisualizerJson,
  visualizerTransforms,
  type VisualizerTransforms,
} from '../../src/model/visualizer-json.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const viewer = 'opencap_viewer_fixture';
const hamner = 'opensim_gait/Pipelines/Hamner/outputReference';

function loadModel(path: string): KinematicModel {
  return new KinematicModel(readOsim(readFileSync(referencePath(path), 'utf8')));
}

describeWithData(
  'forward kinematics reproduces OpenCap visualizer transforms',
  [`${viewer}/LaiUhlrich2022.osim`, `${viewer}/DJ1_videoAndMocap.mot`, `${viewer}/visualizerTransforms.json`],
  () => {
    it('matches every body and frame within 1 mm and 0.5 degrees, with the same geometry and times', () => {
      const model = loadModel(`${viewer}/LaiUhlrich2022.osim`);
      const motion = readStorage(readFileSync(referencePath(`${viewer}/DJ1_videoAndMocap.mot`), 'utf8'));
      const reference = JSON.parse(
        readFileSync(referencePath(`${viewer}/visualizerTransforms.json`), 'utf8'),
      ) as VisualizerTransforms;
      const ours = JSON.parse(
        formatVisualizerJson(visualizerTransforms(model, coordinatesFromMotion(model, motion))),
      ) as VisualizerTransforms;

      expect(Object.keys(ours.bodies)).toEqual(Object.keys(reference.bodies));
      expect(ours.time).toEqual(reference.time);
      let worstTranslationM = 0;
      let worstRotationRad = 0;
      for (const [name, body] of Object.entries(reference.bodies)) {
        const mine = ours.bodies[name];
        expect(mine.attachedGeometries, name).toEqual(body.attachedGeometries);
        expect(mine.scaleFactors, name).toEqual(body.scaleFactors);
        expect(mine.translation).toHaveLength(body.translation.length);
        for (let frame = 0; frame < body.translation.length; frame++) {
          for (let k = 0; k < 3; k++) {
            worstTranslationM = Math.max(
              worstTranslationM,
              Math.abs(mine.translation[frame][k] - body.translation[frame][k]),
            );
            worstRotationRad = Math.max(worstRotationRad, Math.abs(mine.rotation[frame][k] - body.rotation[frame][k]));
          }
        }
      }
      console.log(
        `visualizer fixture: ${Object.keys(reference.bodies).length} bodies x ${reference.time.length} frames, worst translation ${(worstTranslationM * 1000).toExponential(2)} mm, worst rotation ${((worstRotationRad * 180) / Math.PI).toExponential(2)} deg`,
      );
      expect(worstTranslationM).toBeLessThan(0.001);
      expect((worstRotationRad * 180) / Math.PI).toBeLessThan(0.5);
    });

    it('keeps the patella coordinate in radians, as OpenSim does for coupled coordinates', () => {
      const model = loadModel(`${viewer}/LaiUhlrich2022.osim`);
      const beta = model.coordinates.find((c) => c.name === 'knee_angle_r_beta')!;
      expect(beta.motionType).toBe('coupled');
      expect(model.coordinates.find((c) => c.name === 'hip_adduction_l')!.motionType).toBe('rotational');
      expect(model.coordinates.find((c) => c.name === 'pelvis_tx')!.motionType).toBe('translational');
      const motion = readStorage(readFileSync(referencePath(`${viewer}/DJ1_videoAndMocap.mot`), 'utf8'));
      const written = motionFromCoordinates(model, coordinatesFromMotion(model, motion));
      const column = (table: typeof motion, name: string) => table.values[table.columnLabels.indexOf(name)];
      for (const name of ['knee_angle_r', 'knee_angle_r_beta', 'pelvis_ty', 'hip_adduction_l']) {
        expect(column(written, name), name).toBeCloseTo(column(motion, name), 8);
      }
    });
  },
);

describeWithData(
  'forward kinematics of the Hamner running model reproduces OpenSim marker locations',
  [
    `${hamner}/subject02_registered.osim`,
    `${hamner}/ResultsIK/subject02_running_ik.mot`,
    `${hamner}/ResultsIK/ik_model_marker_locations.sto`,
  ],
  () => {
    it('places every marker of every frame within 0.01 mm of OpenSim', () => {
      const model = loadModel(`${hamner}/subject02_registered.osim`);
      const trajectories = coordinatesFromMotion(
        model,
        readStorage(readFileSync(referencePath(`${hamner}/ResultsIK/subject02_running_ik.mot`), 'utf8')),
      );
      const locations = readStorage(
        readFileSync(referencePath(`${hamner}/ResultsIK/ik_model_marker_locations.sto`), 'utf8'),
      );
      const n = model.coordinateNames.length;
      const width = locations.columnLabels.length;
      const positions = new Float64Array(model.markerNames.length * 3);
      let worstM = 0;
      let compared = 0;
      for (let frame = 0; frame < trajectories.timesS.length; frame++) {
        model.setCoordinates(trajectories.values.subarray(frame * n, (frame + 1) * n));
        model.markerPositions(positions);
        model.markerNames.forEach((name, m) => {
          const column = locations.columnLabels.indexOf(`${name}_tx`);
          if (column < 0) return;
          const row = frame * width + column;
          const errorM = Math.hypot(
            positions[3 * m] - locations.values[row],
            positions[3 * m + 1] - locations.values[row + 1],
            positions[3 * m + 2] - locations.values[row + 2],
          );
          worstM = Math.max(worstM, errorM);
          compared++;
        });
      }
      console.log(`Hamner FK: ${compared} marker positions, worst difference ${(worstM * 1000).toExponential(2)} mm`);
      expect(compared).toBeGreaterThan(20_000);
      expect(worstM).toBeLessThan(1e-5);
    });
  },
);

describe('forward kinematics on synthetic models with known poses', () => {
  const openSim3Model = `<?xml version="1.0" encoding="UTF-8"?>
<OpenSimDocument Version="30000">
  <Model name="two_links">
    <BodySet><objects>
      <Body name="ground"><VisibleObject><geometry_files /></VisibleObject></Body>
      <Body name="upper">
        <Joint><PinJoint name="shoulder">
          <parent_body>ground</parent_body>
          <location_in_parent>0 1 0</location_in_parent>
          <orientation_in_parent>0 0 0</orientation_in_parent>
          <location>0 0.5 0</location>
          <orientation>0 0 0</orientation>
          <CoordinateSet><objects><Coordinate name="shoulder_angle"><default_value>0</default_value><range>-3 3</range></Coordinate></objects></CoordinateSet>
        </PinJoint></Joint>
        <VisibleObject><geometry_files>arm.vtp</geometry_files><scale_factors>2 2 2</scale_factors></VisibleObject>
      </Body>
      <Body name="lower">
        <Joint><CustomJoint name="elbow">
          <parent_body>upper</parent_body>
          <location_in_parent>0 -0.5 0</location_in_parent>
          <orientation_in_parent>0 0 0</orientation_in_parent>
          <location>0 0 0</location>
          <orientation>0 0 0</orientation>
          <CoordinateSet><objects><Coordinate name="elbow_angle"><default_value>0</default_value></Coordinate></objects></CoordinateSet>
          <SpatialTransform>
            <TransformAxis name="rotation1"><coordinates>elbow_angle</coordinates><axis>0 0 1</axis><function><LinearFunction><coefficients>1 0</coefficients></LinearFunction></function></TransformAxis>
            <TransformAxis name="rotation2"><coordinates></coordinates><axis>1 0 0</axis><function><Constant><value>0</value></Constant></function></TransformAxis>
            <TransformAxis name="rotation3"><coordinates></coordinates><axis>0 1 0</axis><function><Constant><value>0</value></Constant></function></TransformAxis>
            <TransformAxis name="translation1"><coordinates>elbow_angle</coordinates><axis>1 0 0</axis><function><LinearFunction><coefficients>0.1 0</coefficients></LinearFunction></function></TransformAxis>
            <TransformAxis name="translation2"><coordinates></coordinates><axis>0 1 0</axis><function><Constant><value>0</value></Constant></function></TransformAxis>
            <TransformAxis name="translation3"><coordinates></coordinates><axis>0 0 1</axis><function><Constant><value>0</value></Constant></function></TransformAxis>
          </SpatialTransform>
        </CustomJoint></Joint>
      </Body>
    </objects></BodySet>
    <MarkerSet><objects><Marker name="wrist"><body>lower</body><location>0 -0.4 0</location></Marker></objects></MarkerSet>
  </Model>
</OpenSimDocument>`;

  it('reads an OpenSim 3.3 model and poses a two-link arm as computed by hand', () => {
    const description = readOsim(openSim3Model);
    expect(description.bodies.map((b) => b.name)).toEqual(['upper', 'lower']);
    expect(description.bodies[0].geometryFiles).toEqual(['arm.vtp']);
    expect(description.bodies[0].geometryScaleFactors).toEqual([2, 2, 2]);
    const model = new KinematicModel(description);
    const shoulder = Math.PI / 2;
    const elbow = -Math.PI / 2;
    model.setCoordinates(Float64Array.of(shoulder, elbow));
    const wrist = new Float64Array(3);
    model.markerPositions(wrist);
    // Shoulder joint frame at ground (0, 1, 0); +90 degrees about z maps body x to ground y and body y to ground -x.
    // The upper body's joint frame sits 0.5 m up its y axis, so its origin is at (0.5, 1); the elbow frame
    // 0.5 m down its y axis is at (1, 1). The elbow slides 0.1 * elbow along upper x (ground y) and turns
    // back by -90 degrees, so the forearm is upright again and the wrist is 0.4 m below the elbow.
    expect(wrist[0]).toBeCloseTo(1, 12);
    expect(wrist[1]).toBeCloseTo(1 + 0.1 * elbow - 0.4, 12);
    expect(wrist[2]).toBeCloseTo(0, 12);
  });
});
