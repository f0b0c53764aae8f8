import { readFileSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import type { CameraModel } from '../../src/camera/camera.ts';
import { readTrc, type MarkerTrajectories } from '../../src/formats/trc.ts';
import { processTrial, type TrialResult } from '../../src/pipeline/process-trial.ts';
import { reconstructTrial } from '../../src/pipeline/reconstruct-trial.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { frameMotion } from '../../src/report/keypoint-motion.ts';
import { segmentLengths } from '../../src/report/segment-lengths.ts';
import { MIN_REPROJECTION_GAIN } from '../../src/sync/synchronise.ts';
import { detectedPoses } from '../pose/detection-cache.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const demo = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson';
const otherToolTrc =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial/pose-3d/S00_P00_T01_BalancingTrial_0-100_filt_butterworth.trc';
const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];

const medianOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const segmentFigures = (trajectories: MarkerTrajectories) => {
  const sds = segmentLengths(trajectories.positionsM, trajectories.markerNames, trajectories.timesS.length).map(
    (segment) => segment.sdM,
  );
  return { count: sds.length, medianSdM: medianOf(sds), worstSdM: Math.max(...sds) };
};

describeWithData(
  'steady 3D keypoints on the Pose2Sim demo balancing trial (real videos, default pose model)',
  [`${demo}/videos/cam01.mp4`, otherToolTrc],
  () => {
    const cameras: CameraModel[] = readQualisysCalibration(
      readFileSync(referencePath(`${demo}/calibration/Calib.qca.txt`), 'utf8'),
    );
    const otherTool = readTrc(readFileSync(referencePath(otherToolTrc), 'utf8'));
    let trial: TrialResult;
    const reconstruct = (keypoints: readonly Keypoints2D[], firstFrameTimesS?: number[]) =>
      reconstructTrial(cameras, keypoints, { trialName: 'balancing', firstFrameTimesS, requireSync: false });

    beforeAll(async () => {
      const videos = cameraNames.map((cameraName) => ({
        cameraName,
        path: referencePath(`${demo}/videos/${cameraName}.mp4`),
      }));
      // The detections the other tests of these videos share (detectedPoses), through the rest of the trial's chain.
      const detected = await detectedPoses(videos.map((video) => video.path));
      trial = await processTrial(
        { trialName: 'balancing', cameras, videos },
        { estimatePose: async (video) => detected[cameraNames.indexOf(video.cameraName)] },
      );
    }, 600_000);

    it('keeps every segment steadier than the other tool does on the same videos, and no ankle jumps', () => {
      const ours = segmentFigures(trial.keypoints);
      const theirs = segmentFigures(otherTool);
      const names = trial.keypoints.markerNames;
      const frames = trial.keypoints.timesS.length;
      const ankles = ['RAnkle', 'LAnkle'].map((name) =>
        frameMotion(trial.keypoints.positionsM, names.length, names.indexOf(name), frames)!,
      );
      const distancesMm = ['RHip', 'LHip', 'RKnee', 'LKnee', 'RAnkle', 'LAnkle'].map((name) => {
        const ours = names.indexOf(name);
        const theirs = otherTool.markerNames.indexOf(name);
        const distances: number[] = [];
        for (let frame = 0; frame < Math.min(frames, otherTool.timesS.length); frame++) {
          const a = (frame * names.length + ours) * 3;
          const b = (frame * otherTool.markerNames.length + theirs) * 3;
          const p = trial.keypoints.positionsM;
          const q = otherTool.positionsM;
          const distance = Math.hypot(p[a] - q[b], p[a + 1] - q[b + 1], p[a + 2] - q[b + 2]);
          if (!Number.isNaN(distance)) distances.push(distance);
        }
        return `${name} ${(1000 * medianOf(distances)).toFixed(0)}`;
      });
      console.log(
        `segment length SD over ${ours.count} segments: median ${(1000 * ours.medianSdM).toFixed(1)} mm, worst ${(1000 * ours.worstSdM).toFixed(1)} mm ` +
          `(other tool ${(1000 * theirs.medianSdM).toFixed(1)} / ${(1000 * theirs.worstSdM).toFixed(1)} mm); largest ankle jump R ${(1000 * ankles[0].largestJumpM).toFixed(0)} mm, L ${(1000 * ankles[1].largestJumpM).toFixed(0)} mm; ` +
          `median distance to the other tool (mm): ${distancesMm.join(', ')}; reprojection median ${trial.report.reprojectionErrorPx!.medianPx.toFixed(1)} px`,
      );
      expect(ours.count).toBe(12);
      // Issue 10's limits: a median under 15 mm, below the other tool's on the same videos.
      expect(ours.medianSdM).toBeLessThan(0.015);
      expect(ours.medianSdM).toBeLessThan(theirs.medianSdM);
      // Steadier by more precise 2D keypoints, not by leaving views out: the reprojection error
      // did not grow (14.5 px before the landmarks were refined from BlazePose's heatmap).
      expect(trial.report.reprojectionErrorPx!.medianPx).toBeLessThan(14.5);
      expect(ours.worstSdM).toBeLessThan(0.03);
      for (const ankle of ankles) expect(ankle.largestJumpM).toBeLessThan(0.15);
      expect(trial.report.segmentsSteady).toBe(true);
      expect(trial.report.segments.map((segment) => segment.name)).toContain('RShank');
      // cam02 sees the subject from behind for a while and labels the sides the wrong way round: corrected.
      expect(trial.report.cameras[1].sidesSwapped).toBeGreaterThan(0);
    });

    it(
      'recovers a known shift of one camera’s start time (±10, ±30 frames) to within half a frame of the alignment found without it',
      { timeout: 600_000 },
      () => {
        // cam02: its reprojection error is lowest at the hardware sync. (cam03's is lowest 2.7 frames
        // away, not clearly enough to leave the start times unshifted, but reached once they are off.)
        const baseline = reconstruct(trial.keypoints2D);
        for (const shiftFrames of [10, -10, 30, -30]) {
          const result = reconstruct(trial.keypoints2D, [0, shiftFrames / 60, 0, 0]);
          // Alignment of cam02 relative to cam01, in frames: the shift in its start time must be undone.
          const relative = (offsetsS: Float64Array) => (offsetsS[1] - offsetsS[0]) * 60;
          const error = relative(result.sync.offsetsS) - relative(baseline.sync.offsetsS);
          console.log(
            `start of cam02 shifted ${shiftFrames} frames: alignment ${error.toFixed(2)} frames from the unshifted one (refined: ${result.sync.cameras[1].refined})`,
          );
          expect(Math.abs(error)).toBeLessThan(0.5);
          // A lag is applied only when it reprojects clearly better than the start times.
          for (const camera of result.sync.cameras) {
            if (camera.refined)
              expect(camera.reprojectionErrorPx!).toBeLessThanOrEqual(
                (1 - MIN_REPROJECTION_GAIN) * camera.startTimesReprojectionErrorPx!,
              );
          }
        }
      },
    );

    it('on a 1 s cut, applies no lag that does not beat the start times and keeps most frames', () => {
      const cut = trial.keypoints2D.map((k) => {
        const frames = 60;
        const stride = k.keypointNames.length * 3;
        return {
          ...k,
          frameCount: frames,
          timestampsS: k.timestampsS.slice(0, frames),
          data: k.data.slice(0, frames * stride),
          personFound: k.personFound.slice(0, frames),
        };
      });
      const result = reconstruct(cut);
      for (const camera of result.sync.cameras) {
        if (camera.refined)
          expect(camera.reprojectionErrorPx!).toBeLessThanOrEqual(
            (1 - MIN_REPROJECTION_GAIN) * camera.startTimesReprojectionErrorPx!,
          );
        else expect(camera.lagS).toBe(0);
      }
      expect(result.report.frameCount).toBeGreaterThan(45);
    });

    it('reconstructs the subject, not a bystander injected into two of the four cameras', () => {
      const names = trial.keypoints.markerNames;
      const midHip = names.indexOf('midHip');
      // The bystander: the subject's own detections moved a third of the image width sideways, a
      // person who stands beside them and moves alike. In cam02 and cam03 the tracker follows the bystander for the middle of the
      // trial (the subject among the other people), and sees them as another person the rest of the time.
      const withBystander = trial.keypoints2D.map((k, c) => {
        if (c !== 1 && c !== 2) return k;
        const beside = new Float32Array(k.data);
        for (let i = 0; i < beside.length; i += 3) beside[i] += k.imageSize.width / 3;
        const data = new Float32Array(k.data);
        const other = new Float32Array(beside);
        const stride = k.keypointNames.length * 3;
        for (let frame = 30; frame < 70; frame++) {
          data.set(beside.subarray(frame * stride, (frame + 1) * stride), frame * stride);
          other.set(k.data.subarray(frame * stride, (frame + 1) * stride), frame * stride);
        }
        return { ...k, data, otherPeople: [other] };
      });
      const clean = reconstruct(trial.keypoints2D);
      const result = reconstruct(withBystander);
      let worstM = 0;
      const frames = clean.keypoints.timesS.length;
      expect(result.keypoints.timesS.length).toBe(frames);
      for (let frame = 0; frame < frames; frame++) {
        const at = (frame * names.length + midHip) * 3;
        const p = clean.keypoints.positionsM;
        const q = result.keypoints.positionsM;
        worstM = Math.max(worstM, Math.hypot(p[at] - q[at], p[at + 1] - q[at + 1], p[at + 2] - q[at + 2]));
      }
      console.log(
        `bystander in cam02 and cam03: mid-hip at most ${(worstM * 1000).toFixed(1)} mm from the clean reconstruction; ${result.report.warnings.join(' ')}`,
      );
      expect(worstM).toBeLessThan(0.01);
      expect(result.report.cameras.map((camera) => camera.framesWithOtherPeople > 0)).toEqual([
        false,
        true,
        true,
        false,
      ]);
      expect(result.report.cameras[1].framesPersonReassigned).toBe(40);
      expect(result.report.warnings.some((warning) => warning.startsWith('Other people were seen by cam02'))).toBe(
        true,
      );
      const segments = segmentFigures(result.keypoints);
      expect(segments.worstSdM).toBeLessThan(0.03);
    });
  },
);
