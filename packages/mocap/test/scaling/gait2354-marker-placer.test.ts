import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readStorage, storageColumn } from '../../src/formats/mot.ts';
import { readMarkerSet, readScaleSetup } from '../../src/formats/scale-setup.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { addMarkerSet } from '../../src/model/osim-markers.ts';
import { readOsim, readOsimTree } from '../../src/model/read-osim.ts';
import { parseXmlDocument, serializeXml } from '../../src/model/xml-tree.ts';
import { moveMarkersOntoPose } from '../../src/scaling/marker-placer.ts';
import { scaleModelToSubject, scaleSettingsFromSetup } from '../../src/scaling/scale-model-to-subject.ts';
import { averageMarkerFrames, framesInTimeRange } from '../../src/scaling/static-pose.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { compareScaledModels, elementCounts } from './osim-comparison.ts';

const MODEL = 'opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim';
const PIPELINE = 'opensim_gait/Pipelines/Gait2354_Simbody';

describeWithData(
  "OpenSim's whole ScaleTool (scaling, then marker placement) on gait2354 / subject01",
  [
    MODEL,
    `${PIPELINE}/OutputReference/subject01_simbody.osim`,
    `${PIPELINE}/OutputReference/subject01_static_output.mot`,
  ],
  () => {
    const setup = readScaleSetup(readFileSync(referencePath(PIPELINE, 'subject01_Setup_Scale.xml'), 'utf8'));
    const generic = parseXmlDocument(readFileSync(referencePath(MODEL), 'utf8'));
    addMarkerSet(generic, readMarkerSet(readFileSync(referencePath(PIPELINE, 'gait2354_Scale_MarkerSet.xml'), 'utf8')));
    const trial = readTrc(readFileSync(referencePath(PIPELINE, 'subject01_static.trc'), 'utf8'));
    const settings = scaleSettingsFromSetup(setup, readOsimTree(generic.root));
    const pose = averageMarkerFrames(trial, ...framesInTimeRange(trial.timesS, ...setup.placer.timeRangeS!));
    const referenceText = readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_simbody.osim'), 'utf8');
    const reference = readOsim(referenceText);
    const staticMotion = readStorage(
      readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_static_output.mot'), 'utf8'),
    );
    const markerWeights = settings.placer!.markerWeights!;
    const distanceM = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

    it('places the markers where OpenSim put them: each within 1 mm on OpenSim’s static pose, and the same pose but the trunk', () => {
      // The OpenSim run that made the reference left subtalar at 5°/15° although the setup asks for 0
      // with weight 1000: it did not apply the coordinate tasks, so neither does this comparison.
      const scaled = scaleModelToSubject(
        generic,
        trial,
        { massKg: setup.massKg! },
        { ...settings, placer: { ...settings.placer!, coordinateTasks: [] } },
      );
      const placement = scaled.placement!;
      const differences = compareScaledModels(scaled.osim, referenceText);
      expect(differences.worstMassPercent).toBeLessThan(0.1);
      expect(differences.worstMusclePercent).toBeLessThan(0.5);
      expect(differences.worstPathPointMm).toBeLessThan(0.5);
      expect(elementCounts(scaled.osim)).toEqual(elementCounts(serializeXml(generic)));

      // Placement itself: on OpenSim's own static pose, every marker lands within 1 mm of OpenSim's.
      const openSimPose = Float64Array.from(scaled.model.coordinates, (c) => storageColumn(staticMotion, c.name)![0]);
      const onTheirPose = moveMarkersOntoPose(scaled.model, pose, openSimPose, undefined).markers;
      const worstOnTheirPoseM = Math.max(
        ...onTheirPose.map((m) => distanceM(m.locationM, reference.markers.find((r) => r.name === m.name)!.locationM)),
      );
      expect(worstOnTheirPoseM).toBeLessThan(0.001);

      // Our static pose: pelvis and legs as OpenSim's (markers within 1 mm, angles within 1°).
      let worstLegM = 0;
      let worstTrunkM = 0;
      for (const marker of scaled.model.markers) {
        const d = distanceM(marker.locationM, reference.markers.find((m) => m.name === marker.name)!.locationM);
        if (marker.body === 'torso') worstTrunkM = Math.max(worstTrunkM, d);
        else worstLegM = Math.max(worstLegM, d);
      }
      let worstLegDeg = 0;
      scaled.model.coordinates.forEach((coordinate, i) => {
        if (coordinate.motionType !== 'rotational' || coordinate.name.startsWith('lumbar')) return;
        const differenceDeg = ((placement.staticCoordinates[i] - openSimPose[i]) * 180) / Math.PI;
        worstLegDeg = Math.max(worstLegDeg, Math.abs(differenceDeg));
      });
      // The trunk: four markers of weight 1 against the legs' 1000 set lumbar extension, and OpenSim's
      // IK stopped short of their optimum (-2.9°; ours -6.3°): our pose fits the weighted markers better.
      const beforePlacement = scaleModelToSubject(
        generic,
        trial,
        { massKg: setup.massKg! },
        { ...settings, placer: { apply: false } },
      );
      const kinematics = new KinematicModel(beforePlacement.model);
      const weightedCost = (q: Float64Array) => {
        kinematics.setCoordinates(q);
        const positions = new Float64Array(kinematics.markerNames.length * 3);
        kinematics.markerPositions(positions);
        return kinematics.markerNames.reduce((sum, name, m) => {
          const d = pose.markerNames.indexOf(name);
          const weight = markerWeights.get(name);
          if (d < 0 || weight === undefined) return sum;
          const p = pose.positionsM.subarray(3 * d, 3 * d + 3);
          return sum + weight * distanceM(Array.from(positions.subarray(3 * m, 3 * m + 3)), Array.from(p)) ** 2;
        }, 0);
      };
      const lumbar = scaled.model.coordinates.findIndex((c) => c.name === 'lumbar_extension');
      console.log(
        `marker placer vs OpenSim: static-pose IK RMS ${(placement.rmsErrorM * 1000).toFixed(1)} mm; on OpenSim's pose every marker ` +
          `within ${(worstOnTheirPoseM * 1000).toFixed(2)} mm; on ours pelvis/leg markers within ${(worstLegM * 1000).toFixed(2)} mm, ` +
          `angles within ${worstLegDeg.toFixed(2)}°, trunk markers ${(worstTrunkM * 1000).toFixed(1)} mm (lumbar extension ` +
          `${((placement.staticCoordinates[lumbar] * 180) / Math.PI).toFixed(1)}° against OpenSim's ` +
          `${((openSimPose[lumbar] * 180) / Math.PI).toFixed(1)}°; weighted marker cost ${weightedCost(placement.staticCoordinates).toFixed(4)} ` +
          `against ${weightedCost(openSimPose).toFixed(4)} m²)`,
      );
      expect(worstLegM).toBeLessThan(0.001);
      expect(worstLegDeg).toBeLessThan(1);
      expect(weightedCost(placement.staticCoordinates)).toBeLessThan(weightedCost(openSimPose));
      expect(placement.movedMarkers.length).toBe(
        scaled.model.markers.filter((m) => pose.markerNames.includes(m.name)).length,
      );
    });

    it('honours the placer coordinate tasks when applied (subtalar and lumbar held at 0 with weight 1000)', () => {
      const scaled = scaleModelToSubject(generic, trial, { massKg: setup.massKg! }, settings);
      for (const name of ['subtalar_angle_l', 'lumbar_extension']) {
        const i = scaled.model.coordinates.findIndex((c) => c.name === name);
        expect(Math.abs((scaled.placement!.staticCoordinates[i] * 180) / Math.PI)).toBeLessThan(0.5);
      }
    });
  },
);
