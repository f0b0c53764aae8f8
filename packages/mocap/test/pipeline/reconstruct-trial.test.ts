import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { readTrc } from '../../src/formats/trc.ts';
import { reconstructTrial } from '../../src/pipeline/reconstruct-trial.ts';
import type { PipelineStage } from '../../src/pipeline/stages.ts';
import type { KeypointSeries } from '../../src/sync/keypoint-series.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { readOpenPoseFolder } from '../triangulation/openpose-body25b.ts';

const calibration = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/calibration/Calib.qca.txt';
const trial =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial';
const rawTrc = `${trial}/pose-3d/S00_P00_T01_BalancingTrial_0-100.trc`;

describeWithData(
  "reconstructing the Pose2Sim demo from Pose2Sim's own 2D keypoints",
  [calibration, rawTrc, `${trial}/pose-associated`],
  () => {
    const cameras = readQualisysCalibration(readFileSync(referencePath(calibration), 'utf8'));
    const reference = readTrc(readFileSync(referencePath(rawTrc), 'utf8'));
    const names = reference.markerNames;
    const series: KeypointSeries[] = cameras.map((camera) => {
      const { data, frameCount } = readOpenPoseFolder(
        referencePath(`${trial}/pose-associated/${camera.name}_json`),
        names,
      );
      return {
        keypointNames: names,
        frameCount,
        fps: 60,
        timestampsS: Float64Array.from({ length: frameCount }, (_, i) => i / 60),
        data,
      };
    });

    const distancesToReference = (positionsM: Float64Array, frames: number) => {
      const distances: number[] = [];
      for (let i = 0; i < frames * names.length * 3; i += 3) {
        const d = Math.hypot(
          positionsM[i] - reference.positionsM[i],
          positionsM[i + 1] - reference.positionsM[i + 1],
          positionsM[i + 2] - reference.positionsM[i + 2],
        );
        if (!Number.isNaN(d)) distances.push(d);
      }
      return distances.sort((a, b) => a - b);
    };

    it('with hardware-synchronised cameras (no sync), lands on Pose2Sim’s 3D keypoints and reports', () => {
      const stages = new Set<PipelineStage>();
      const result = reconstructTrial(cameras, series, {
        trialName: 'balancing',
        minConfidence: 0.3,
        maxReprojectionErrorPx: 15,
        filterFrequency: 'default',
        synchronise: false,
        onProgress: (stage) => stages.add(stage),
      });
      expect([...stages]).toEqual(['sync', 'triangulate', 'filter']);

      // 'default' for a non-gait trial is half the frame rate: no filtering, as the spec says.
      expect(result.cutoff).toEqual({ cutoffHz: 30, passThrough: true });
      const frames = result.keypoints.timesS.length;
      expect(frames).toBe(100);
      const distances = distancesToReference(result.keypoints.positionsM, frames);
      expect(distances[Math.floor(distances.length * 0.95)]).toBeLessThan(0.001);

      const report = result.report;
      expect(report.cameras.map((camera) => camera.name)).toEqual(['cam01', 'cam02', 'cam03', 'cam04']);
      expect(report.frameCount).toBe(frames);
      expect(report.framesWithoutPerson).toBe(0);
      expect(report.keypoints.map((keypoint) => keypoint.name)).toEqual(names);
      for (const camera of report.cameras) {
        expect(camera.reprojectionErrorPx!.medianPx).toBeGreaterThan(0.5);
        expect(camera.reprojectionErrorPx!.medianPx).toBeLessThan(20);
      }
      expect(JSON.parse(JSON.stringify(report))).toEqual(report);
    });

    it('with synchronisation, finds lags of at most a few frames and stays within centimetres of Pose2Sim', () => {
      const result = reconstructTrial(cameras, series, { trialName: 'balancing', minConfidence: 0.3 });
      for (const camera of result.sync.cameras) expect(Math.abs(camera.lagFrames)).toBeLessThan(2.5);
      const distances = distancesToReference(result.keypoints.positionsM, result.keypoints.timesS.length);
      const median = distances[Math.floor(distances.length / 2)];
      // Pose2Sim triangulated these videos as if in perfect sync; our sync moves cam03 by about 2 frames
      // (its reprojection error is lowest there), which moves the points by a centimetre or two.
      console.log(
        `synchronised reconstruction vs Pose2Sim: median ${(median * 1000).toFixed(2)} mm; lags ${result.sync.cameras.map((c) => c.lagFrames.toFixed(2)).join(', ')} frames`,
      );
      expect(median).toBeLessThan(0.03);
    });

    it('filters gait trials at 12 Hz by default and warns about a cutoff above half the frame rate', () => {
      const gait = reconstructTrial(cameras, series, { trialName: 'gait_1', requireSync: false });
      expect(gait.cutoff.cutoffHz).toBe(12);
      expect(gait.report.filter).toEqual({ cutoffHz: 12, applied: true });
      const tooHigh = reconstructTrial(cameras, series, { trialName: 'jump', filterFrequency: 45, requireSync: false });
      expect(tooHigh.report.warnings).toContain(
        'Too large filter frequency. Using half the framerate (30 Hz) instead.',
      );
    });

    it('refuses with TOO_FEW_CAMERAS when only one camera saw the person', () => {
      const blind = series.map((s, c) =>
        c === 0 ? s : { ...s, data: new Float32Array(s.data.length).fill(Number.NaN) },
      );
      expect(() => reconstructTrial(cameras, blind, { trialName: 'balancing' })).toThrowError(
        expect.objectContaining({ code: 'TOO_FEW_CAMERAS', cameras: ['cam02', 'cam03', 'cam04'] }),
      );
    });
  },
);
