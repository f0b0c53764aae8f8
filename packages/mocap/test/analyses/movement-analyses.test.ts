import { readFileSync } from 'node:fs';
import { analysisResultSchema, type AnalysisKind, type AnalysisResult } from '@kinetrace/contracts';
import { beforeAll, expect, it } from 'vitest';
import { AnalysisError, analyseTrial, loadAnalysisInput } from '../../src/analyses/index.ts';
import { readStorage, storageColumn, writeStorage } from '../../src/formats/mot.ts';
import { type MarkerTrajectories, readTrc } from '../../src/formats/trc.ts';
import { fitNeutral } from '../../src/model-fitting/fit-neutral.ts';
import { fitTrial } from '../../src/model-fitting/fit-trial.ts';
import { KinematicModel } from '../../src/model/kinematic-model.ts';
import { coordinatesFromMotion } from '../../src/model/motion.ts';
import { readOsim } from '../../src/model/read-osim.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { median } from '../calibration/pose2sim-reference.ts';

const OPENCAP = 'opencap_outputs';
const SCALED = `${OPENCAP}/opencap-processing@eb5fa1d90a/Examples/ExampleData/LaiUhlrich2022_scaled.osim`;
const JUMP = `${OPENCAP}/opencap-processing@eb5fa1d90a/Examples/ExampleData/jump2.mot`;
const SQUATS = `${OPENCAP}/opencap-processing@dd0b30c2ee/Moco/exampleSquat/squats1_videoAndMocap.mot`;
const WALKING = `${OPENCAP}/opencap-processing@dd0b30c2ee/Moco/exampleWalking/walking1_videoAndMocap.mot`;
const KEYPOINT_DATA = 'marker_enhancer/test_data';

const read = (path: string) => readFileSync(referencePath(path), 'utf8');
const analyse = (kind: AnalysisKind, modelXml: string, motionText: string): AnalysisResult =>
  analysisResultSchema.parse(analyseTrial(kind, loadAnalysisInput({ modelXml, motionText })));

/**
 * Repetitions of a height signal written out for the tests: each time it goes from above `high`
 * to below `low` (dips) or from below `low` to above `high` (rises), with hysteresis between.
 */
function countCrossings(height: ArrayLike<number>, low: number, high: number, kind: 'dips' | 'rises'): number {
  let count = 0;
  let state: 'high' | 'low' | undefined;
  for (let f = 0; f < height.length; f++) {
    if (height[f] > high) {
      if (state === 'low' && kind === 'rises') count++;
      state = 'high';
    } else if (height[f] < low) {
      if (state === 'high' && kind === 'dips') count++;
      state = 'low';
    }
  }
  return count;
}

/** Whole-body centre-of-mass height per frame, from the model's body masses and mass centres, posed by forward kinematics. */
function comHeight(
  modelXml: string,
  motionText: string,
): { com: number[]; model: KinematicModel; kneeDeg: (frame: number) => number } {
  const description = readOsim(modelXml);
  const model = new KinematicModel(description);
  const trajectories = coordinatesFromMotion(model, readStorage(motionText));
  const width = model.coordinateNames.length;
  const bodies = description.bodies.map((body) => ({
    index: model.bodyNames.indexOf(body.name),
    mass: body.massKg ?? 0,
    centre: body.massCenterM ?? [0, 0, 0],
  }));
  const total = bodies.reduce((sum, b) => sum + b.mass, 0);
  expect(total).toBeGreaterThan(30);
  const com: number[] = [];
  for (let f = 0; f < trajectories.timesS.length; f++) {
    model.setCoordinates(trajectories.values.subarray(f * width, (f + 1) * width));
    let y = 0;
    for (const { index, mass, centre } of bodies) {
      const R = model.bodyRotation.subarray(9 * index, 9 * index + 9);
      y += mass * (model.bodyTranslation[3 * index + 1] + R[3] * centre[0] + R[4] * centre[1] + R[5] * centre[2]);
    }
    com.push(y / total);
  }
  const kneeR = model.coordinateNames.indexOf('knee_angle_r');
  const kneeL = model.coordinateNames.indexOf('knee_angle_l');
  const kneeDeg = (f: number) =>
    (Math.max(trajectories.values[f * width + kneeR], trajectories.values[f * width + kneeL]) * 180) / Math.PI;
  return { com, model, kneeDeg };
}

function markerHeights(trc: MarkerTrajectories, name: string): number[] {
  const m = trc.markerNames.indexOf(name);
  const width = trc.markerNames.length * 3;
  return Array.from(trc.timesS, (_, f) => trc.positionsM[f * width + 3 * m + 1]);
}

describeWithData(
  "Analyses of OpenCap's own outputs (LaiUhlrich2022 scaled model, OpenCap IK)",
  [SCALED, JUMP, SQUATS, WALKING],
  () => {
    it('counts the five squats of squats1 that the pelvis height shows', () => {
      const motionText = read(SQUATS);
      // Independently: pelvis_ty straight from the .mot, standing level the trial's 95th percentile.
      const pelvisY = Array.from(storageColumn(readStorage(motionText), 'pelvis_ty')!);
      const standing = [...pelvisY].sort((a, b) => a - b)[Math.floor(0.95 * pelvisY.length)];
      const expected = countCrossings(pelvisY, standing - 0.2, standing - 0.05, 'dips');
      expect(expected).toBe(5);
      const result = analyse('squat', read(SCALED), motionText);
      console.log(
        `squats1: ${result.info_text} depth ${result.metrics.squat_depth.value} m, knee ${result.metrics.peak_knee_flexion.value}°`,
      );
      expect(result.metrics.repetitions.value).toBe(expected);
      expect(result.info_text).toMatch(/^Double-leg squat/);
      // The pelvis drops by the same amount the .mot's pelvis_ty does, within 3 cm.
      expect(Math.abs(result.metrics.squat_depth.value - (standing - Math.min(...pelvisY)))).toBeLessThan(
        0.03 + result.metrics.squat_depth.std,
      );
      expect(result.metrics.peak_knee_flexion.value).toBeGreaterThan(60);
    });

    it("reads a squat on one leg when the other foot is held up, with the standing leg's angles", () => {
      // squats1 with the left leg held bent and off the floor throughout (hip 45°, knee 90°).
      const motion = readStorage(read(SQUATS));
      const width = motion.columnLabels.length;
      for (const [label, degrees] of [
        ['hip_flexion_l', 45],
        ['knee_angle_l', 90],
      ] as const) {
        const c = motion.columnLabels.indexOf(label);
        for (let f = 0; f < motion.timesS.length; f++) motion.values[f * width + c] = degrees;
      }
      const result = analyse('squat', read(SCALED), writeStorage(motion));
      const rightKnee = storageColumn(motion, 'knee_angle_r')!;
      expect(result.info_text).toMatch(/^Single-leg squat on the right leg: 5 repetitions/);
      // The left knee sits at 90° all along; the figure is the right knee's peak (about 80° in these squats).
      expect(result.metrics.peak_knee_flexion.value).toBeLessThan(Math.max(...rightKnee) + 0.5);
      expect(result.metrics.peak_knee_flexion.value).toBeGreaterThan(70);
    });

    it("measures jump2's jump height within 2 cm of the centre of mass's rise above standing, computed here from the model's masses", () => {
      const modelXml = read(SCALED);
      const motionText = read(JUMP);
      const { com, kneeDeg } = comHeight(modelXml, motionText);
      const rate = 240;
      const apex = com.indexOf(Math.max(...com));
      // Standing: knees straight and the centre of mass still, well before the jump.
      const still = com.flatMap((y, f) =>
        f > 0 && f < apex - rate / 2 && kneeDeg(f) < 20 && Math.abs(com[f + 1] - com[f - 1]) * (rate / 2) < 0.05
          ? [y]
          : [],
      );
      expect(still.length).toBeGreaterThan(rate / 10);
      const expected = com[apex] - median(still);
      const result = analyse('drop-jump', modelXml, motionText);
      const { jump_height, flight_time, contacts } = result.metrics;
      console.log(
        `jump2: ${result.info_text} height ${jump_height.value} m (COM here ${expected.toFixed(3)} m), flight ${flight_time.value} s (g t²/8 = ${((9.81 * flight_time.value ** 2) / 8).toFixed(3)} m)`,
      );
      expect(Math.abs(jump_height.value - expected)).toBeLessThan(0.02);
      expect(contacts.value).toBe(1);
      expect(result.metrics.contact_time).toBeUndefined();
      expect(result.info_text).toMatch(/^Jump from the floor/);
    });

    it('says what to record when a walking trial has no complete gait cycle (walking1 holds one stride; no scaled model of its own ships, so LaiUhlrich2022_scaled stands in)', () => {
      expect(() =>
        analyseTrial('gait', loadAnalysisInput({ modelXml: read(SCALED), motionText: read(WALKING) })),
      ).toThrow(AnalysisError);
      expect(() =>
        analyseTrial('gait', loadAnalysisInput({ modelXml: read(SCALED), motionText: read(WALKING) })),
      ).toThrow('No complete gait cycle found: record at least two steps of each foot');
    });

    it('says when the motion does not belong to the model, and when the trial is not that movement', () => {
      expect(() => loadAnalysisInput({ modelXml: read(SCALED), motionText: 'not a motion' })).toThrow(
        /joint angles could not be read/,
      );
      expect(() =>
        analyseTrial('sit-to-stand', loadAnalysisInput({ modelXml: read(SCALED), motionText: read(WALKING) })),
      ).toThrow(/No rise from sitting found/);
      expect(() =>
        analyseTrial('drop-jump', loadAnalysisInput({ modelXml: read(SCALED), motionText: read(SQUATS) })),
      ).toThrow(/No jump found/);
    });
  },
);

describeWithData(
  'Analyses of keypoint trials through our own chain (default model, 20 keypoints, 60 Hz)',
  ['squats', 'sit_to_stand', 'drop_vertical_jump'].map((t) => `${KEYPOINT_DATA}/${t}.trc`),
  () => {
    const SUBJECT = { heightM: 1.75, massKg: 70 };
    const trials = Object.fromEntries(
      ['squats', 'sit_to_stand', 'drop_vertical_jump'].map((name) => [
        name,
        readTrc(read(`${KEYPOINT_DATA}/${name}.trc`)),
      ]),
    );
    const files: Record<string, { osim: string; mot: string }> = {};
    beforeAll(() => {
      // The squats trial opens with the subject standing: its first second scales the model.
      const neutral = fitNeutral({ neutral: trials.squats, subject: SUBJECT, timeRangeS: [0, 1] });
      for (const [name, trial] of Object.entries(trials)) {
        files[name] = fitTrial({
          trial,
          model: neutral.scaled.model,
          subject: SUBJECT,
          ikTasks: neutral.ikTasks,
          osim: neutral.scaled.osim,
          name,
        }).files;
      }
    });

    it('counts the squats the midHip keypoint shows', () => {
      const hip = markerHeights(trials.squats, 'midHip');
      const standing = median(hip.slice(0, 60));
      const expected = countCrossings(hip, standing - 0.2, standing - 0.05, 'dips');
      const result = analyse('squat', files.squats.osim, files.squats.mot);
      console.log(`squats.trc: ${result.info_text} (midHip dips: ${expected})`);
      expect(expected).toBeGreaterThanOrEqual(4);
      expect(result.metrics.repetitions.value).toBe(expected);
    });

    it('counts the rises from the chair the midHip keypoint shows', () => {
      const hip = markerHeights(trials.sit_to_stand, 'midHip');
      const seated = Math.min(...hip);
      const standingHip = Math.max(...hip);
      const expected = countCrossings(hip, seated + 0.1, standingHip - 0.1, 'rises');
      const result = analyse('sit-to-stand', files.sit_to_stand.osim, files.sit_to_stand.mot);
      console.log(
        `sit_to_stand.trc: ${result.info_text} time per repetition ${result.metrics.time_per_repetition.value} s, trunk ${result.metrics.peak_trunk_flexion.value}° (midHip rises: ${expected})`,
      );
      expect(expected).toBeGreaterThanOrEqual(4);
      expect(result.metrics.repetitions.value).toBe(expected);
      expect(result.metrics.peak_trunk_flexion.value).toBeGreaterThan(15);
    });

    it("measures the drop jump's height within 2 cm of the centre of mass's rise above standing, and counts both landings", () => {
      const { osim, mot } = files.drop_vertical_jump;
      const { com } = comHeight(osim, mot);
      // The subject stands still on the floor for the last second.
      const expected = Math.max(...com.slice(Math.round(1.95 * 60))) - median(com.slice(-60));
      // Landings, from the big toes: both toes back on the floor after both were off it.
      const trc = trials.drop_vertical_jump;
      const toes = markerHeights(trc, 'RBigToe').map((h, f) => Math.max(h, markerHeights(trc, 'LBigToe')[f]));
      const floor = Math.min(...toes);
      const landings = countCrossings(toes, floor + 0.05, floor + 0.15, 'dips');
      const result = analyse('drop-jump', osim, mot);
      const { jump_height, contacts, contact_time, flight_time } = result.metrics;
      console.log(
        `drop_vertical_jump.trc: ${result.info_text} height ${jump_height.value} m (COM here ${expected.toFixed(3)} m), contact ${contact_time?.value} s, flight ${flight_time.value} s`,
      );
      expect(landings).toBe(2);
      expect(contacts.value).toBe(landings);
      expect(Math.abs(jump_height.value - expected)).toBeLessThan(0.02);
      expect(result.info_text).toMatch(/^Drop jump from a box/);
      expect(contact_time!.value).toBeGreaterThan(0.1);
      expect(contact_time!.value).toBeLessThan(1);
    });
  },
);
