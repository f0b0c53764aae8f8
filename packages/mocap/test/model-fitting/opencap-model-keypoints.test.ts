import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { loadMarkerAugmenter } from '../../src/augmenter/load-augmenter.ts';
import { readIkSetup } from '../../src/formats/ik-setup.ts';
import { readMarkerSet, readScaleSetup } from '../../src/formats/scale-setup.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { ikTasksFromSetup } from '../../src/ik/setup-tasks.ts';
import { fitNeutral } from '../../src/model-fitting/fit-neutral.ts';
import { fitTrial } from '../../src/model-fitting/fit-trial.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { addMarkerSet } from '../../src/model/osim-markers.ts';
import { readOsimTree } from '../../src/model/read-osim.ts';
import { parseXmlDocument, type XmlDocument } from '../../src/model/xml-tree.ts';
import { scaleSettingsFromSetup } from '../../src/scaling/scale-model-to-subject.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { rangeDeg } from './coordinate-range.ts';

const PIPELINE = 'opencap_outputs/opencap-core@d5a5258954/opensimPipeline';
const SQUATS = 'marker_enhancer/test_data/squats.trc';
const SUBJECT = { heightM: 1.75, massKg: 70 };
const LSTM = 'marker_enhancer/reference_models/lstm';

function loadModel(markerSetFile: string): XmlDocument {
  const model = parseXmlDocument(readFileSync(referencePath(PIPELINE, 'Models/LaiUhlrich2022.osim'), 'utf8'));
  addMarkerSet(model, readMarkerSet(readFileSync(referencePath(PIPELINE, 'Models', markerSetFile), 'utf8')));
  return model;
}

describeWithData(
  "OpenCap's LaiUhlrich2022 model with its own keypoint (openpose) scaling and IK setups",
  [
    `${PIPELINE}/Models/LaiUhlrich2022.osim`,
    `${PIPELINE}/Models/LaiUhlrich2022_markers_openpose.xml`,
    `${PIPELINE}/Models/LaiUhlrich2022_markers_augmenter.xml`,
    `${PIPELINE}/Scaling/Setup_scaling_LaiUhlrich2022_openpose.xml`,
    `${PIPELINE}/Scaling/Setup_scaling_LaiUhlrich2022.xml`,
    `${PIPELINE}/IK/Setup_IK_openpose.xml`,
    `${PIPELINE}/IK/Setup_IK.xml`,
    `${LSTM}/body/weights.h5`,
    SQUATS,
  ],
  () => {
    it('scales on the neutral second of the squats and runs IK with knee flexion in range', () => {
      const model = loadModel('LaiUhlrich2022_markers_openpose.xml');
      const setup = readScaleSetup(
        readFileSync(referencePath(PIPELINE, 'Scaling/Setup_scaling_LaiUhlrich2022_openpose.xml'), 'utf8'),
      );
      expect(setup.placer.coordinateTasks.find((task) => task.name === 'ankle_angle_r')?.value).toBeCloseTo(
        (5 * Math.PI) / 180,
        9,
      );

      const squats = readTrc(readFileSync(referencePath(SQUATS), 'utf8'));
      const neutral = fitNeutral({
        neutral: squats,
        subject: SUBJECT,
        model,
        settings: scaleSettingsFromSetup(setup, readOsimTree(model.root)),
        timeRangeS: [0, 1],
      });
      expect(neutral.scaled.model.name).toBe('LaiUhlrich2022');
      expect(neutral.scaled.measurements.every((m) => m.pairs.length > 0)).toBe(true);
      const placement = neutral.scaled.placement!;

      const ikSetup = readIkSetup(readFileSync(referencePath(PIPELINE, 'IK/Setup_IK_openpose.xml'), 'utf8'));
      const ikTasks = ikTasksFromSetup(new KinematicModel(neutral.scaled.model), ikSetup);
      const fit = fitTrial({
        trial: squats,
        model: neutral.scaled.model,
        osim: neutral.scaled.osim,
        subject: SUBJECT,
        ikTasks,
      });
      const [kneeMinDeg, kneeMaxDeg] = rangeDeg(fit, 'knee_angle_r');
      console.log(
        `LaiUhlrich2022 + OpenCap openpose setups on squats: placement RMS ${(placement.rmsErrorM * 100).toFixed(2)} cm; ` +
          `IK marker RMS ${(fit.rmsErrorM * 100).toFixed(2)} cm; knee_angle_r ${kneeMinDeg.toFixed(0)}..${kneeMaxDeg.toFixed(0)} deg`,
      );
      expect(placement.rmsErrorM).toBeLessThan(0.05);
      expect(fit.rmsErrorM).toBeLessThan(0.04);
      expect(kneeMinDeg).toBeGreaterThan(-5);
      expect(kneeMaxDeg).toBeGreaterThan(70);
      expect(kneeMaxDeg).toBeLessThan(150);
    });

    it('runs the whole OpenCap flow with the LSTM augmenter: 43 augmented markers scale the model and drive IK', async () => {
      const model = loadModel('LaiUhlrich2022_markers_augmenter.xml');
      const setup = readScaleSetup(
        readFileSync(referencePath(PIPELINE, 'Scaling/Setup_scaling_LaiUhlrich2022.xml'), 'utf8'),
      );
      const augmenter = await loadMarkerAugmenter(referencePath(LSTM));
      const squats = readTrc(readFileSync(referencePath(SQUATS), 'utf8'));
      const neutral = fitNeutral({
        neutral: squats,
        subject: SUBJECT,
        model,
        settings: scaleSettingsFromSetup(setup, readOsimTree(model.root)),
        augmenter,
        timeRangeS: [0, 1],
      });
      expect(neutral.markers.markerNames).toContain('r_knee_study');
      expect(neutral.scaled.measurements.every((m) => m.pairs.length > 0)).toBe(true);

      const ikSetup = readIkSetup(readFileSync(referencePath(PIPELINE, 'IK/Setup_IK.xml'), 'utf8'));
      const fit = fitTrial({
        trial: squats,
        model: neutral.scaled.model,
        osim: neutral.scaled.osim,
        subject: SUBJECT,
        augmenter,
        ikTasks: ikTasksFromSetup(new KinematicModel(neutral.scaled.model), ikSetup),
      });
      const [kneeMinDeg, kneeMaxDeg] = rangeDeg(fit, 'knee_angle_r');
      const [hipMinDeg, hipMaxDeg] = rangeDeg(fit, 'hip_flexion_r');
      console.log(
        `LaiUhlrich2022 + LSTM augmenter on squats: placement RMS ${(neutral.scaled.placement!.rmsErrorM * 100).toFixed(2)} cm; IK marker RMS ` +
          `${(fit.rmsErrorM * 100).toFixed(2)} cm over ${fit.ik.trackedMarkerNames.length} markers; knee_angle_r ${kneeMinDeg.toFixed(0)}..${kneeMaxDeg.toFixed(0)}, ` +
          `hip_flexion_r ${hipMinDeg.toFixed(0)}..${hipMaxDeg.toFixed(0)} deg`,
      );
      expect(fit.ik.trackedMarkerNames.filter((name) => name.endsWith('_study'))).toHaveLength(43);
      expect(neutral.scaled.placement!.rmsErrorM).toBeLessThan(0.03);
      expect(fit.rmsErrorM).toBeLessThan(0.03);
      expect(kneeMinDeg).toBeGreaterThan(-5);
      expect(kneeMaxDeg).toBeGreaterThan(70);
      expect(kneeMaxDeg).toBeLessThan(150);
      expect(hipMaxDeg).toBeGreaterThan(60);
      expect(hipMaxDeg).toBeLessThan(130);
    });
  },
);
