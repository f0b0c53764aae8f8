import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readStorage } from '../../src/formats/mot.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { fitNeutral } from '../../src/model-fitting/fit-neutral.ts';
import { fitTrial } from '../../src/model-fitting/fit-trial.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { rangeDeg } from './coordinate-range.ts';

const DATA = 'marker_enhancer/test_data';
const TRIALS = ['squats', 'sit_to_stand', 'drop_vertical_jump'] as const;
// The session's subject is not recorded with the data; a typical adult. Scaling measures the segments anyway.
const SUBJECT = { heightM: 1.75, massKg: 70 };

const load = (name: string) => readTrc(readFileSync(referencePath(DATA, `${name}.trc`), 'utf8'));

describeWithData(
  'Default model (LaiUhlrich2022) on real OpenCap keypoint trials (same subject, 20 keypoints, 60 Hz)',
  TRIALS.map((t) => `${DATA}/${t}.trc`),
  () => {
    // The squats trial opens with the subject standing: its first second is the neutral trial.
    const neutral = fitNeutral({ neutral: load('squats'), subject: SUBJECT, timeRangeS: [0, 1] });

    it('scales the default model on the first still second of the squats trial', () => {
      const { scaled } = neutral;
      expect(neutral.keypointModel).toBe(true);
      expect(scaled.model.name).toBe('LaiUhlrich2022');
      expect(scaled.measurementWindow.chosenBy).toBe('time range');
      // LaiUhlrich2022's head is part of its torso: the face keypoints measure no body of their own.
      expect(scaled.measurements.map((m) => m.name)).not.toContain('head');
      for (const measurement of scaled.measurements) {
        expect(measurement.pairs.length).toBeGreaterThan(0);
        // Keypoints sit on joint centres, so limb factors stay near 1 for an adult; hip keypoints sit wider than the hip joints.
        expect(measurement.factor).toBeGreaterThan(0.7);
        expect(measurement.factor).toBeLessThan(1.7);
      }
      const placement = scaled.placement!;
      console.log(
        `neutral (squats 0–1 s): ${scaled.measurements.map((m) => `${m.name} ${m.factor.toFixed(3)}`).join(', ')}; ` +
          `static IK marker RMS ${(placement.rmsErrorM * 100).toFixed(2)} cm, max ${(placement.maxErrorM * 100).toFixed(2)} cm`,
      );
      expect(placement.rmsErrorM).toBeLessThan(0.05);
    });

    for (const name of TRIALS) {
      it(`runs IK on ${name} with joint angles in physiological ranges and small marker errors`, () => {
        const fit = fitTrial({
          trial: load(name),
          model: neutral.scaled.model,
          subject: SUBJECT,
          ikTasks: neutral.ikTasks,
          osim: neutral.scaled.osim,
          name,
        });
        const ranges = Object.fromEntries(
          [
            'hip_flexion_r',
            'hip_flexion_l',
            'knee_angle_r',
            'knee_angle_l',
            'ankle_angle_r',
            'ankle_angle_l',
            'lumbar_extension',
            'hip_adduction_r',
            'hip_adduction_l',
          ].map((c) => [c, rangeDeg(fit, c)]),
        );
        const maxFrameRms = Math.max(...fit.ik.errors.rmsM);
        console.log(
          `${name}: marker RMS ${(fit.rmsErrorM * 100).toFixed(2)} cm (worst frame ${(maxFrameRms * 100).toFixed(2)} cm); ` +
            Object.entries(ranges)
              .map(([c, [lo, hi]]) => `${c} ${lo.toFixed(0)}..${hi.toFixed(0)}`)
              .join(', '),
        );
        for (const side of ['r', 'l']) {
          const [kneeLo, kneeHi] = ranges[`knee_angle_${side}`];
          const [hipLo, hipHi] = ranges[`hip_flexion_${side}`];
          const [ankleLo, ankleHi] = ranges[`ankle_angle_${side}`];
          const [addLo, addHi] = ranges[`hip_adduction_${side}`];
          expect(kneeLo).toBeGreaterThanOrEqual(-0.01);
          expect(kneeHi).toBeLessThan(150);
          // Every one of these movements bends the knees and hips a lot.
          expect(kneeHi).toBeGreaterThan(70);
          expect(hipHi).toBeGreaterThan(60);
          expect(hipHi).toBeLessThan(130);
          expect(hipLo).toBeGreaterThan(-30);
          expect(ankleLo).toBeGreaterThan(-45);
          expect(ankleHi).toBeLessThan(45);
          expect(addLo).toBeGreaterThan(-30);
          expect(addHi).toBeLessThan(20);
        }
        expect(ranges.lumbar_extension[0]).toBeGreaterThan(-70);
        expect(ranges.lumbar_extension[1]).toBeLessThan(40);
        expect(fit.rmsErrorM).toBeLessThan(0.03);
        expect(maxFrameRms).toBeLessThan(0.06);

        // The outputs read back: .mot in degrees with every coordinate, the .osim with the same coordinates.
        const motion = readStorage(fit.files.mot);
        expect(motion.inDegrees).toBe(true);
        expect(motion.columnLabels).toEqual(fit.ik.trajectories.coordinateNames);
        expect(readOsim(fit.files.osim).coordinates.map((c) => c.name)).toEqual(fit.ik.trajectories.coordinateNames);
        expect(readTrc(fit.files.trc).markerNames).toEqual(fit.markers.markerNames);
        expect(Object.keys(JSON.parse(fit.files.visualizerJson).bodies)).toContain('pelvis');
      });
    }
  },
);
