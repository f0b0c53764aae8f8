import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { projectPoint, type CameraModel } from '../../src/camera/camera.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { readTrc, type MarkerTrajectories } from '../../src/formats/trc.ts';
import { associatePerson } from '../../src/people/associate-person.ts';
import { reconstructTrial } from '../../src/pipeline/reconstruct-trial.ts';
import type { KeypointSeries } from '../../src/sync/keypoint-series.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const calibration = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/calibration/Calib.qca.txt';
const trc =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100_filt_butterworth.trc';
const CONFIDENCE = 0.9;

/**
 * Two people with known truth: the subject is Pose2Sim's 3D keypoints of the demo balancing trial
 * (a real person's motion, on the beam in the middle of the cameras), the other person the same body
 * moved aside to where the bystander of the multi-person demo stands (0.4 m, 1.2 m; or frozen in one
 * pose), both projected into the demo's four calibrated cameras.
 */
describeWithData(
  'telling the subject from another person across cameras (projected real motion)',
  [calibration, trc],
  () => {
    const cameras: CameraModel[] = readQualisysCalibration(readFileSync(referencePath(calibration), 'utf8'));
    const subject = readTrc(readFileSync(referencePath(trc), 'utf8'));
    const names = subject.markerNames;
    const frames = subject.timesS.length;
    const stride = names.length * 3;
    const aside = (motion: MarkerTrajectories, frozenFrame?: number): Float64Array => {
      const moved = new Float64Array(motion.positionsM.length);
      for (let frame = 0; frame < frames; frame++)
        for (let i = 0; i < stride; i += 3) {
          const from = (frozenFrame ?? frame) * stride + i;
          moved.set(
            [motion.positionsM[from] - 0.4, motion.positionsM[from + 1], motion.positionsM[from + 2] + 1.2],
            frame * stride + i,
          );
        }
      return moved;
    };
    const project = (camera: CameraModel, positionsM: Float64Array): Float32Array => {
      const data = new Float32Array(frames * stride);
      for (let i = 0; i < data.length; i += 3) {
        const pixel = projectPoint(camera, positionsM.subarray(i, i + 3));
        const inside =
          pixel &&
          pixel[0] >= 0 &&
          pixel[1] >= 0 &&
          pixel[0] < camera.imageSize.width &&
          pixel[1] < camera.imageSize.height;
        data.set(inside ? [pixel[0], pixel[1], CONFIDENCE] : [Number.NaN, Number.NaN, 0], i);
      }
      return data;
    };
    /**
     * Per camera, the projections of the subject (`subjectM`) and of the other person; `tracked`
     * picks, per camera and frame, whom the camera's tracker followed (in `data`, the other one in
     * `otherPeople`).
     */
    const scene = (
      otherM: Float64Array,
      tracked: (camera: number, frame: number) => 'subject' | 'other',
      subjectM: Float64Array = subject.positionsM,
    ) =>
      cameras.map((camera, c): KeypointSeries & { subject: Float32Array; other: Float32Array } => {
        const mine = project(camera, subjectM);
        const theirs = project(camera, otherM);
        const data = new Float32Array(mine.length);
        const others = new Float32Array(mine.length);
        for (let frame = 0; frame < frames; frame++) {
          const [first, second] = tracked(c, frame) === 'subject' ? [mine, theirs] : [theirs, mine];
          data.set(first.subarray(frame * stride, (frame + 1) * stride), frame * stride);
          others.set(second.subarray(frame * stride, (frame + 1) * stride), frame * stride);
        }
        return {
          keypointNames: names,
          frameCount: frames,
          fps: 60,
          timestampsS: Float64Array.from(subject.timesS),
          data,
          otherPeople: [others],
          subject: mine,
          other: theirs,
        };
      });
    const associate = (series: ReturnType<typeof scene>, neutral = false) =>
      associatePerson(
        cameras,
        series,
        series.map(() => 0),
        0,
        0.4,
        neutral,
      );
    /** Frames where camera c's associated keypoints are those of `expected` (every value equal, NaN included). */
    const framesMatching = (actual: Float32Array, expected: Float32Array) => {
      let count = 0;
      for (let frame = 0; frame < frames; frame++) {
        let same = true;
        for (let i = frame * stride; i < (frame + 1) * stride && same; i++)
          same = Object.is(actual[i], expected[i]) || actual[i] === expected[i];
        if (same) count++;
      }
      return count;
    };

    it('keeps the subject in every camera and frame while trackers follow the other person, and through a crossing', () => {
      // cam01 and cam02 follow the other person throughout; cam03 switches to them half way (a crossing).
      const series = scene(aside(subject), (c, frame) => (c < 2 || (c === 2 && frame >= 50) ? 'other' : 'subject'));
      const result = associate(series);
      result.series.forEach((s, c) => expect(framesMatching(s.data, series[c].subject)).toBe(frames));
      expect(result.framesReassigned).toEqual([frames, frames, frames - 50, 0]);
      expect(result.peopleFound).toBe(2);
      expect(result.subjectNotToldApart).toEqual([]);
    });

    it('takes a camera whose left and right are the wrong way round as the same person', () => {
      const series = scene(aside(subject), (c) => (c === 1 ? 'other' : 'subject'));
      const swapped = new Float32Array(series[1].subject);
      const opposite = names.map((name) => names.indexOf(name.replace(/^[LR]/, (side) => (side === 'L' ? 'R' : 'L'))));
      for (let frame = 0; frame < frames; frame++)
        opposite.forEach((other, k) => {
          if (other >= 0)
            swapped.set(
              series[1].subject.subarray(frame * stride + other * 3, frame * stride + other * 3 + 3),
              frame * stride + k * 3,
            );
        });
      series[1] = { ...series[1], otherPeople: [swapped], subject: swapped };
      const result = associate(series);
      expect(framesMatching(result.series[1].data, swapped)).toBe(frames);
    });

    it('in the neutral takes the person standing still, otherwise the one nearest the middle of the cameras', () => {
      // The subject stands still in their first pose, aside; the other person walks across the
      // middle of the cameras (the subject's motion carried 1.5 m along z over the trial).
      const still = aside(subject, 0);
      const walking = Float64Array.from(subject.positionsM, (value, i) =>
        i % 3 === 2 ? value - 0.5 + (1.5 * Math.floor(i / stride)) / frames : value,
      );
      const series = scene(walking, () => 'other', still);
      const movement = associate(series);
      const neutral = associate(series, true);
      movement.series.forEach((s, c) => expect(framesMatching(s.data, series[c].other)).toBe(frames));
      neutral.series.forEach((s, c) => expect(framesMatching(s.data, series[c].subject)).toBe(frames));
    });

    it('leaves frames where the subject cannot be found empty, never someone else, and reports the long stretch', () => {
      // Frames 20-27 and 50-79: only cam04 still holds the subject; every camera holds the other person.
      const series = scene(aside(subject), () => 'subject').map((s, c) => {
        if (c === 3) return s;
        const data = new Float32Array(s.data);
        for (const [from, to] of [
          [20, 28],
          [50, 80],
        ])
          for (let i = from * stride; i < to * stride; i += 3) data.set([Number.NaN, Number.NaN, 0], i);
        return { ...s, data };
      });
      const result = reconstructTrial(cameras, series, { trialName: 'balancing', synchronise: false });
      expect(result.report.people.found).toBe(2);
      expect(result.report.people.subjectNotToldApart.map((stretch) => stretch.frames)).toEqual([8, 30]);
      expect(result.report.warnings.some((warning) => warning.startsWith('The subject could not be told apart'))).toBe(
        true,
      );
      const positions = result.keypoints.positionsM;
      const rHip = names.indexOf('RHip');
      const offM = (frame: number) => {
        const at = (frame * names.length + rHip) * 3;
        return Math.hypot(...[0, 1, 2].map((axis) => positions[at + axis] - subject.positionsM[at + axis]));
      };
      // The short stretch is filled close to the subject; the long one stays empty; elsewhere the subject.
      for (let frame = 0; frame < frames; frame++) {
        if (frame >= 50 && frame < 80) expect(Number.isNaN(positions[(frame * names.length + rHip) * 3])).toBe(true);
        else expect(offM(frame)).toBeLessThan(0.05);
      }
    });
  },
);
