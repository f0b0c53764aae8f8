import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoordinateComparison } from '../../src/ik/compare-motions.ts';
import { describeWithData } from '../reference-data.ts';
import {
  type ChainResult,
  DEMO_FILES,
  formatComparison,
  runDemoChain,
  runOnTheirKeypoints,
} from './pose2sim-demo-chain.ts';

/**
 * Limits of issue 10 for the balancing trial: at 60 Hz no flexion angle may change by 10 degrees from
 * one frame to the next, and against Pose2Sim's OpenSim IK of the same videos the RMS difference stays
 * under 5 degrees for hip and knee flexion and under 8 for ankle flexion. The two models do not share a
 * zero (ours is the subject's static pose, Pose2Sim's the generic model's default pose; its static .trc
 * is its own model's markers in that pose), so the RMS difference is taken with the constant offset
 * removed, and the offset is printed.
 *
 * The RMS limits are asserted where IK and scaling alone decide them: our model on Pose2Sim's own
 * keypoints. Through our triangulation the keypoints themselves differ from Pose2Sim's (its left
 * knee keypoint sits on the thigh in frames 36-64, where its left shank grows from 35-39 to 42-45 cm;
 * docs/kinematics.md), so there the table is printed, the jumps and the right knee's and right
 * ankle's limits asserted, and that our IK follows our own keypoints' knee and ankle angles; for
 * the hips, that the thighs agree within the limit and the rest is the pelvis, whose heading
 * Pose2Sim's hip keypoints turn 30° off its own feet while the subject stands on both.
 */
const LARGEST_JUMP_DEG = 10;
const rmsLimitDeg = (coordinate: string) => (coordinate.startsWith('ankle') ? 8 : 5);

function expectNoJumps(comparisons: CoordinateComparison[]): void {
  expect(comparisons).toHaveLength(6);
  for (const c of comparisons) {
    expect(c.frames, c.coordinate).toBeGreaterThan(90);
    expect(c.largestJumpDeg, c.coordinate).toBeLessThan(LARGEST_JUMP_DEG);
  }
}

describeWithData(
  'joint angles of the Pose2Sim demo balancing trial beside Pose2Sim’s own OpenSim IK',
  Object.values(DEMO_FILES),
  () => {
    const root = mkdtempSync(join(tmpdir(), 'kinetrace-joint-angles-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('on Pose2Sim’s own keypoints, our scaling and IK give its flexion angles without jumps', () => {
      const result = runOnTheirKeypoints();
      console.log(formatComparison('our model on Pose2Sim’s .trc', result));
      expect(result.scaling.rmsM).toBeLessThan(0.04);
      expectNoJumps(result.comparisons);
      for (const c of result.comparisons)
        expect(c.rmsDifferenceWithoutOffsetDeg, c.coordinate).toBeLessThan(rmsLimitDeg(c.coordinate));
    });

    describe('through the whole chain (kinetrace process, scale, ik)', () => {
      let chain: ChainResult;
      beforeAll(async () => {
        chain = await runDemoChain(root);
        console.log(formatComparison('kinetrace process → scale → ik', chain));
      }, 900_000);

      it('scales with a static-pose marker error in line with the keypoints’ own noise', () => {
        // Keypoints jitter by about 2 cm while the subject stands still; the scaled model fits the static pose as closely.
        expect(chain.scaling.rmsM).toBeLessThan(0.03);
        expect(chain.scaling.maxM).toBeLessThan(0.06);
      });

      it('gives flexion angles without jumps', () => {
        expectNoJumps(chain.comparisons);
      });

      it('follows its own keypoints’ knee and ankle angles, so where they part from Pose2Sim’s the keypoints do', () => {
        const geometry = chain.geometry!;
        const rms = (coordinate: string) =>
          chain.comparisons.find((c) => c.coordinate === coordinate)!.rmsDifferenceWithoutOffsetDeg;
        for (const coordinate of ['knee_angle_r', 'ankle_angle_r'])
          expect(rms(coordinate), coordinate).toBeLessThan(rmsLimitDeg(coordinate));
        for (const side of ['r', 'l']) {
          const knee = geometry.angles.find((g) => g.coordinate === `knee_angle_${side}`)!;
          expect(knee.ourIkToOurKeypointsDeg, knee.coordinate).toBeLessThan(4);
          // The foot's three keypoints pin the ankle once the subtalar joint is held near neutral
          // (keypoint-ik-tasks.ts); it was 8.4° from the keypoints' own right ankle angle without.
          const ankle = geometry.angles.find((g) => g.coordinate === `ankle_angle_${side}`)!;
          expect(ankle.ourIkToOurKeypointsDeg, ankle.coordinate).toBeLessThan(5);
        }
        // Left knee, frames 36-64: Pose2Sim's keypoints put the knee on the thigh (its shank 42-45 cm
        // long there, 35-39 cm at the start); ours keep the shank under 40 cm (docs/kinematics.md).
        const leftKnee = geometry.angles.find((g) => g.coordinate === 'knee_angle_l')!;
        expect(rms('knee_angle_l')).toBeLessThan(leftKnee.keypointsDeg);
        expect(geometry.leftShankM.ours[1]).toBeLessThan(0.4);
        // In those frames Pose2Sim's left hip and knee flexion step away from ours by 10° and more
        // (its thigh turned forward, its shank back) while the right side's stay within 5°.
        const step = (coordinate: string) => geometry.offsetStepDeg.find((o) => o.coordinate === coordinate)!.stepDeg;
        for (const coordinate of ['hip_flexion_l', 'knee_angle_l'])
          expect(step(coordinate), coordinate).toBeLessThan(-8);
        for (const coordinate of ['hip_flexion_r', 'knee_angle_r'])
          expect(Math.abs(step(coordinate)), coordinate).toBeLessThan(5);
      });

      it('puts its thighs where Pose2Sim does; the hip flexion difference is in the pelvis, whose heading its hip keypoints set off the feet', () => {
        const geometry = chain.geometry!;
        // Our thigh in Pose2Sim's pelvis is within the hip limit of Pose2Sim's angle on both sides; the
        // rest of the difference comes from the two pelvises, which the keypoints do not fix alone
        // (three pelvis keypoints on one line; docs/kinematics.md).
        for (const part of geometry.hipFlexionParts) {
          expect(part.thighDeg, part.side).toBeLessThan(rmsLimitDeg('hip_flexion'));
          expect(part.pelvisDeg, part.side).toBeGreaterThan(part.thighDeg);
        }
        // Standing on both feet at the start, our hip line lies across the feet; Pose2Sim's is turned 30°
        // and more from its own feet (both tools' feet agree in heading within 4° there).
        expect(Math.abs(geometry.hipLineToFeetDeg.ours)).toBeLessThan(15);
        expect(Math.abs(geometry.hipLineToFeetDeg.theirs)).toBeGreaterThan(25);
      });
    });
  },
);
