import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readScaleSetup } from '../../src/formats/scale-setup.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { readOsim, readOsimTree } from '../../src/model/read-osim.ts';
import { parseXmlDocument, serializeXml } from '../../src/model/xml-tree.ts';
import { measureScaleFactors } from '../../src/scaling/scale-factors.ts';
import { scaleModelToSubject, scaleSettingsFromSetup } from '../../src/scaling/scale-model-to-subject.ts';
import { averageMarkerFrames, framesInTimeRange } from '../../src/scaling/static-pose.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { compareScaledModels, elementCounts, expectWithinOpenSimLimits } from './osim-comparison.ts';

const HAMNER = 'opensim_gait/Pipelines/Hamner';

describeWithData(
  'Scaling the Hamner 2010 full-body model (with arms) to subject02',
  [
    `${HAMNER}/FullBodyModel_Hamner2010_v2_0.osim`,
    `${HAMNER}/Setup_Scale.xml`,
    `${HAMNER}/subject02_static.trc`,
    `${HAMNER}/outputReference/subject02_scaled.osim`,
  ],
  () => {
    it('matches the scale factors OpenSim applied (read from the geometry scale factors of subject02_scaled.osim) within 2 %', () => {
      const setup = readScaleSetup(readFileSync(referencePath(HAMNER, 'Setup_Scale.xml'), 'utf8'));
      const generic = readOsim(readFileSync(referencePath(HAMNER, 'FullBodyModel_Hamner2010_v2_0.osim'), 'utf8'));
      const trial = readTrc(readFileSync(referencePath(HAMNER, 'subject02_static.trc'), 'utf8'));
      const pose = averageMarkerFrames(trial, ...framesInTimeRange(trial.timesS, ...setup.scaler.timeRangeS!));
      const { factors } = measureScaleFactors(generic, pose, setup.scaler);
      const scaled = readOsim(readFileSync(referencePath(HAMNER, 'outputReference/subject02_scaled.osim'), 'utf8'));

      let worstPercent = 0;
      for (const body of generic.bodies) {
        const reference = scaled.bodies.find((b) => b.name === body.name)!;
        const ours = factors.get(body.name) ?? [1, 1, 1];
        for (let axis = 0; axis < 3; axis++) {
          const expected = reference.geometryScaleFactors[axis] / body.geometryScaleFactors[axis];
          worstPercent = Math.max(worstPercent, (100 * Math.abs(ours[axis] - expected)) / expected);
        }
      }
      console.log(
        `Hamner → subject02: ${generic.bodies.length} bodies, worst scale factor difference ${worstPercent.toFixed(4)} %`,
      );
      expect(worstPercent).toBeLessThan(2);
      expect(factors.get('humerus_r')?.[0]).not.toBe(1);
    });

    it('scales masses, muscles, path points and markers as OpenSim did (subject02_scaled.osim), keeping every element', () => {
      const setup = readScaleSetup(readFileSync(referencePath(HAMNER, 'Setup_Scale.xml'), 'utf8'));
      const generic = parseXmlDocument(
        readFileSync(referencePath(HAMNER, 'FullBodyModel_Hamner2010_v2_0.osim'), 'utf8'),
      );
      const trial = readTrc(readFileSync(referencePath(HAMNER, 'subject02_static.trc'), 'utf8'));
      const settings = scaleSettingsFromSetup(setup, readOsimTree(generic.root));
      // subject02_scaled.osim is the ModelScaler's output, before the marker placer (subject02_registered.osim).
      const scaled = scaleModelToSubject(
        generic,
        trial,
        { massKg: setup.massKg! },
        { ...settings, placer: { apply: false } },
      );
      const differences = compareScaledModels(
        scaled.osim,
        readFileSync(referencePath(HAMNER, 'outputReference/subject02_scaled.osim'), 'utf8'),
      );
      expect(differences).toMatchObject({ bodies: 20, muscles: 92, markers: 83 });
      expectWithinOpenSimLimits(differences, 'Hamner → subject02 vs OpenSim');
      // Every element of the input is kept, the <defaults> templates (which OpenSim 4 drops) among them.
      expect(elementCounts(scaled.osim)).toEqual(elementCounts(serializeXml(generic)));
      expect([...scaled.bodyMassesKg.values()].reduce((sum, mass) => sum + mass, 0)).toBeCloseTo(65.9, 9);
    });
  },
);
