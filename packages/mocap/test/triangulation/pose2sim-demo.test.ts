import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { summariseReprojectionErrors } from '../../src/triangulation/reprojection-summary.ts';
import { triangulate } from '../../src/triangulation/triangulate.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { readOpenPoseFolder } from './openpose-body25b.ts';

const calibration = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/calibration/Calib.qca.txt';
const trial =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial';
const referenceTrc = `${trial}/pose-3d/S00_P00_T01_BalancingTrial_0-100.trc`;

describeWithData(
  'triangulating Pose2Sim demo 2D keypoints with its Qualisys calibration',
  [calibration, referenceTrc, `${trial}/pose-associated`],
  () => {
    const cameras = readQualisysCalibration(readFileSync(referencePath(calibration), 'utf8'));
    const reference = readTrc(readFileSync(referencePath(referenceTrc), 'utf8'));
    const names = reference.markerNames;
    const observations = cameras.map((camera) =>
      readOpenPoseFolder(referencePath(`${trial}/pose-associated/${camera.name}_json`), names),
    );
    const frameCount = observations[0].frameCount;

    const distancesM = (result: ReturnType<typeof triangulate>) => {
      const distances: number[] = [];
      for (let i = 0; i < frameCount * names.length; i++) {
        const d = Math.hypot(
          result.pointsWorldM[i * 3] - reference.positionsM[i * 3],
          result.pointsWorldM[i * 3 + 1] - reference.positionsM[i * 3 + 1],
          result.pointsWorldM[i * 3 + 2] - reference.positionsM[i * 3 + 2],
        );
        if (!Number.isNaN(d)) distances.push(d);
      }
      return distances.sort((a, b) => a - b);
    };

    it("lands within a millimetre of Pose2Sim's own triangulation for 95% of the keypoints", () => {
      // Pose2Sim's demo settings: likelihood threshold 0.3, 15 px reprojection threshold (Config.toml).
      const result = triangulate(
        cameras,
        observations.map((o) => o.data),
        frameCount,
        names.length,
        { minConfidence: 0.3, maxReprojectionErrorPx: 15 },
      );
      const distances = distancesM(result);
      const median = distances[Math.floor(distances.length / 2)];
      const p95 = distances[Math.floor(distances.length * 0.95)];
      console.log(
        `distance to Pose2Sim .trc: median ${(median * 1000).toFixed(2)} mm, p95 ${(p95 * 1000).toFixed(2)} mm over ${distances.length} keypoints`,
      );
      expect(distances.length).toBeGreaterThan(0.98 * frameCount * names.length);
      expect(median).toBeLessThan(0.001);
      expect(p95).toBeLessThan(0.001);
    });

    it('reports per-camera reprojection errors of the size OpenPose keypoints have at 1080p (median under 20 px)', () => {
      const result = triangulate(
        cameras,
        observations.map((o) => o.data),
        frameCount,
        names.length,
        { maxReprojectionErrorPx: 15 },
      );
      const summary = summariseReprojectionErrors(result);
      const medians = summary.perCamera.map((stats) => stats!.medianPx);
      console.log(`median reprojection error per camera (px): ${medians.map((m) => m.toFixed(1)).join(', ')}`);
      for (const median of medians) {
        expect(median).toBeGreaterThan(0.5);
        expect(median).toBeLessThan(20);
      }
      expect(summary.perKeypoint.every((stats) => stats !== null)).toBe(true);
    });
  },
);
