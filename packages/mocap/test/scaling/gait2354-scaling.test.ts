import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readMarkerSet, readScaleSetup } from '../../src/formats/scale-setup.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { addMarkerSet } from '../../src/model/osim-markers.ts';
import type { Vec3 } from '../../src/model/osim-model.ts';
import { readOsim, readOsimTree } from '../../src/model/read-osim.ts';
import { parseXmlDocument, serializeXml } from '../../src/model/xml-tree.ts';
import { measureScaleFactors } from '../../src/scaling/scale-factors.ts';
import { scaleModelToSubject, scaleSettingsFromSetup } from '../../src/scaling/scale-model-to-subject.ts';
import { averageMarkerFrames, framesInTimeRange } from '../../src/scaling/static-pose.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { compareScaledModels, elementCounts, expectWithinOpenSimLimits } from './osim-comparison.ts';

const MODEL = 'opensim_gait/Models/Gait2354_Simbody/gait2354_simbody.osim';
const PIPELINE = 'opensim_gait/Pipelines/Gait2354_Simbody';

/** The setup, the generic model with the setup's marker set (GenericModelMaker), the static trial and its measured pose. */
function load() {
  const setup = readScaleSetup(readFileSync(referencePath(PIPELINE, 'subject01_Setup_Scale.xml'), 'utf8'));
  const document = parseXmlDocument(readFileSync(referencePath(MODEL), 'utf8'));
  addMarkerSet(document, readMarkerSet(readFileSync(referencePath(PIPELINE, 'gait2354_Scale_MarkerSet.xml'), 'utf8')));
  const model = readOsimTree(document.root);
  const trial = readTrc(readFileSync(referencePath(PIPELINE, 'subject01_static.trc'), 'utf8'));
  const [first, last] = framesInTimeRange(trial.timesS, ...setup.scaler.timeRangeS!);
  return { setup, document, model, trial, pose: averageMarkerFrames(trial, first, last) };
}

/** OpenSim's ScaleTool without its marker placer: what subject01_scaledOnly.osim holds. */
function scaleOnly() {
  const { setup, document, model, trial } = load();
  const settings = scaleSettingsFromSetup(setup, model);
  return {
    input: serializeXml(document),
    scaled: scaleModelToSubject(document, trial, { massKg: setup.massKg! }, { ...settings, placer: { apply: false } }),
  };
}

/** OpenSim's ScaleSet output: segment → scale factors. */
function readScaleSet(text: string): Map<string, Vec3> {
  const result = new Map<string, Vec3>();
  for (const match of text.matchAll(/<scales>([^<]+)<\/scales>\s*<segment>([^<]+)<\/segment>/g)) {
    const values = match[1].trim().split(/\s+/).map(Number);
    result.set(match[2].trim(), [values[0], values[1], values[2]]);
  }
  return result;
}

describeWithData(
  'Scaling gait2354 to subject01 as OpenSim ScaleTool does',
  [
    MODEL,
    `${PIPELINE}/subject01_Setup_Scale.xml`,
    `${PIPELINE}/OutputReference/subject01_scaleSet_applied.xml`,
    `${PIPELINE}/OutputReference/subject01_scaledOnly.osim`,
  ],
  () => {
    it('reads the setup: 5 measurements, manual scales after them, the marker placer tasks and time ranges', () => {
      const { setup } = load();
      expect(setup.massKg).toBeCloseTo(72.6, 6);
      expect(setup.scaler.measurements.map((m) => m.name)).toEqual(['torso', 'pelvis', 'thigh', 'shank', 'foot']);
      expect(setup.scaler.scalingOrder).toEqual(['measurements', 'manualScale']);
      expect(setup.scaler.manualScales.map((s) => s.body)).toEqual(['femur_r', 'femur_l', 'tibia_r', 'tibia_l']);
      expect(setup.scaler.timeRangeS).toEqual([1, 2]);
      expect(setup.placer.timeRangeS).toEqual([1, 1.01]);
      expect(setup.placer.markerTasks.find((t) => t.name === 'R.ASIS')?.weight).toBe(1000);
      expect(setup.placer.coordinateTasks.find((t) => t.name === 'lumbar_extension')?.valueType).toBe('manual_value');
    });

    it('gives every segment scale factor within 2 % of OpenSim (subject01_scaleSet_applied.xml)', () => {
      const { setup, model, pose } = load();
      const { factors, measurements } = measureScaleFactors(model, pose, setup.scaler);
      const reference = readScaleSet(
        readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_scaleSet_applied.xml'), 'utf8'),
      );
      const lines: string[] = [];
      let worstPercent = 0;
      for (const [segment, expected] of reference) {
        if (segment === 'ground') continue;
        const ours = factors.get(segment) ?? [1, 1, 1];
        for (let axis = 0; axis < 3; axis++) {
          const percent = (100 * Math.abs(ours[axis] - expected[axis])) / expected[axis];
          worstPercent = Math.max(worstPercent, percent);
          expect(percent).toBeLessThan(2);
        }
        lines.push(`  ${segment.padEnd(8)} ours ${ours[0].toFixed(5)}  OpenSim ${expected[0].toFixed(5)}`);
      }
      console.log(
        `gait2354 → subject01 scale factors (worst difference ${worstPercent.toFixed(4)} %):\n${lines.join('\n')}`,
      );
      console.log(
        measurements
          .map((m) => `  measurement ${m.name}: ${m.factor.toFixed(5)} from ${m.pairs.length} pair(s)`)
          .join('\n'),
      );
    });

    it('scales masses, muscles, path points and markers as OpenSim did (subject01_scaledOnly.osim), keeping every element', () => {
      const { input, scaled } = scaleOnly();
      const reference = readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_scaledOnly.osim'), 'utf8');
      const differences = compareScaledModels(scaled.osim, reference);
      expect(differences).toMatchObject({ bodies: 12, muscles: 54, markers: 39 });
      expectWithinOpenSimLimits(differences, 'gait2354 → subject01 vs OpenSim');
      // Nothing dropped, nothing added: OpenSim's own output differs from its input only by the
      // MultiplierFunctions it wraps scaled joint functions in; ours scales those functions' values.
      const ourCounts = elementCounts(scaled.osim);
      expect(ourCounts).toEqual(elementCounts(input));
      const openSimCounts = elementCounts(reference);
      const wrapped = openSimCounts.get('MultiplierFunction')!;
      for (const [element, count] of openSimCounts) {
        const added = ['MultiplierFunction', 'function', 'scale'].includes(element) ? wrapped : 0;
        expect((ourCounts.get(element) ?? 0) + added, element).toBe(count);
      }
      expect([...scaled.bodyMassesKg.values()].reduce((sum, mass) => sum + mass, 0)).toBeCloseTo(72.6, 9);
    });

    it('moves joints with the scaled knee translation functions as OpenSim does, over the knee range', () => {
      const { scaled } = scaleOnly();
      const reference = readOsim(
        readFileSync(referencePath(PIPELINE, 'OutputReference/subject01_scaledOnly.osim'), 'utf8'),
      );
      const ours = new KinematicModel(scaled.model);
      const theirs = new KinematicModel(reference);
      const common = ours.markerNames.filter((name) => theirs.markerNames.includes(name));
      expect(common.length).toBeGreaterThan(30);
      let worstM = 0;
      for (const kneeDeg of [0, -30, -60, -90]) {
        // The same pose in both (the reference's generic model had another default pelvis height; that is not scaling).
        const q1 = ours.defaultCoordinates();
        for (const side of ['r', 'l'])
          q1[ours.coordinateNames.indexOf(`knee_angle_${side}`)] = (kneeDeg * Math.PI) / 180;
        const q2 = Float64Array.from(theirs.coordinateNames, (name) => q1[ours.coordinateNames.indexOf(name)]);
        ours.setCoordinates(q1);
        theirs.setCoordinates(q2);
        const p1 = new Float64Array(ours.markerNames.length * 3);
        const p2 = new Float64Array(theirs.markerNames.length * 3);
        ours.markerPositions(p1);
        theirs.markerPositions(p2);
        for (const name of common) {
          const i = ours.markerNames.indexOf(name);
          const j = theirs.markerNames.indexOf(name);
          worstM = Math.max(
            worstM,
            Math.hypot(p1[i * 3] - p2[j * 3], p1[i * 3 + 1] - p2[j * 3 + 1], p1[i * 3 + 2] - p2[j * 3 + 2]),
          );
        }
      }
      console.log(
        `scaled gait2354 vs OpenSim scaledOnly: worst marker difference ${(worstM * 1000).toFixed(4)} mm over knee angles 0..-90 deg`,
      );
      expect(worstM).toBeLessThan(1e-4);
    });
  },
);
