import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { projectPoint } from '../../src/camera/camera.ts';
import { readQualisysCalibration } from '../../src/camera/formats/qualisys.ts';
import { ProcessingError } from '../../src/pipeline/processing-error.ts';
import { alignToTimeBase, sharedTimeBase } from '../../src/sync/align-to-time-base.ts';
import type { KeypointSeries } from '../../src/sync/keypoint-series.ts';
import { reprojectionErrorAtOffset } from '../../src/sync/reprojection-score.ts';
import { synchronise } from '../../src/sync/synchronise.ts';
import { describeWithData, referencePath } from '../reference-data.ts';
import { BODY_25B_INDEX, readOpenPoseFolder } from '../triangulation/openpose-body25b.ts';
import { cameraRing } from '../triangulation/synthetic-cameras.ts';

const calibration = 'pose2sim_demo/Pose2Sim/Demo_SinglePerson/calibration/Calib.qca.txt';
const trial =
  'pose2sim_demo/history_reference_outputs/a948c205cfe4ea5c22d6941929e8efaba591a59d/Pose2Sim/S00_Demo_Session/S00_P00_SingleParticipant/S00_P00_T01_BalancingTrial';

const names = Object.keys(BODY_25B_INDEX);

/** A camera's keypoints at 60 fps from Pose2Sim's 2D detections; `dropFrames` frames cut from the start. */
function demoSeries(camera: string, dropFrames = 0): KeypointSeries {
  const { data, frameCount } = readOpenPoseFolder(referencePath(`${trial}/pose-associated/${camera}_json`), names);
  const stride = names.length * 3;
  const kept = frameCount - dropFrames;
  const from = dropFrames;
  return {
    keypointNames: names,
    frameCount: kept,
    fps: 60,
    timestampsS: Float64Array.from({ length: kept }, (_, i) => i / 60),
    data: data.slice(from * stride, (from + kept) * stride),
  };
}

describeWithData(
  'synchronising the Pose2Sim demo cameras (real keypoints)',
  [calibration, `${trial}/pose-associated`],
  () => {
    const cameraNames = ['cam01', 'cam02', 'cam03', 'cam04'];
    const models = readQualisysCalibration(readFileSync(referencePath(calibration), 'utf8'));

    const synchroniseDemo = (series: KeypointSeries[]) =>
      synchronise(series, {
        cameraNames,
        reprojectionErrorPx: reprojectionErrorAtOffset(models, series, [0, 0, 0, 0], 0),
      });

    it('finds the demo cameras within 2.5 frames of each other (hardware-synchronised Qualisys video)', () => {
      const result = synchroniseDemo(cameraNames.map((name) => demoSeries(name)));
      console.log(
        `demo lags (frames): ${result.cameras.map((camera) => camera.lagFrames.toFixed(2)).join(', ')}; confidence ${result.cameras.map((camera) => camera.confidence.toFixed(2)).join(', ')}`,
      );
      for (const camera of result.cameras) expect(Math.abs(camera.lagFrames)).toBeLessThan(2.5);
    });

    const shifted = (shiftFrames: number) => {
      // cam02 starting `shiftFrames` frames late (its frame i shows what the others saw at i + shift):
      // cut frames from the start of cam02, or from the start of the other cameras for a negative shift.
      const series = cameraNames.map((name) =>
        demoSeries(name, (name === 'cam02') === shiftFrames > 0 ? Math.abs(shiftFrames) : 0),
      );
      return synchroniseDemo(series).cameras[1];
    };

    it.each([3, -3, 10, -30])('recovers an artificial offset of %i frames applied to one camera', (shiftFrames) => {
      const baseline = synchroniseDemo(cameraNames.map((name) => demoSeries(name))).cameras[1].lagFrames;
      const cam02 = shifted(shiftFrames);
      console.log(
        `shift ${shiftFrames}: lag found ${cam02.lagFrames.toFixed(3)} frames (baseline ${baseline.toFixed(3)}), confidence ${cam02.confidence.toFixed(3)}, ${cam02.reprojectionErrorPx?.toFixed(2)} px (start times ${cam02.startTimesReprojectionErrorPx?.toFixed(2)} px)`,
      );
      expect(cam02.refined).toBe(true);
      expect(Math.abs(cam02.lagFrames - baseline - shiftFrames)).toBeLessThan(0.5);
    });

    it('keeps the start times for a 1-frame shift the movement does not reveal clearly, and never applies a lag that reprojects worse', () => {
      for (const shiftFrames of [1, -1]) {
        const cam02 = shifted(shiftFrames);
        if (cam02.refined) expect(Math.abs(cam02.lagFrames - shiftFrames)).toBeLessThan(0.5);
        else expect(cam02.lagFrames).toBe(0);
        expect(cam02.reprojectionErrorPx!).toBeLessThanOrEqual(cam02.startTimesReprojectionErrorPx!);
      }
    });

    it('scores no lag that leaves less than half of a short clip overlapping (an 11-frame cut)', () => {
      const cut = cameraNames.map((name) => {
        const series = demoSeries(name);
        const stride = names.length * 3;
        return {
          ...series,
          frameCount: 11,
          timestampsS: series.timestampsS.slice(0, 11),
          data: series.data.slice(0, 11 * stride),
        };
      });
      const score = reprojectionErrorAtOffset(models, cut, [0, 0, 0, 0], 0);
      expect(score(1, 5 / 60)).toBeLessThan(30);
      expect(score(1, 6 / 60)).toBe(Number.POSITIVE_INFINITY);
      expect(score(1, -8 / 60)).toBe(Number.POSITIVE_INFINITY);
      const result = synchroniseDemo(cut);
      for (const camera of result.cameras) expect(Math.abs(camera.lagFrames)).toBeLessThanOrEqual(5.5);
    });

    it('aligns the shifted camera back onto the reference frames', () => {
      const series = cameraNames.map((name) => demoSeries(name, name === 'cam02' ? 3 : 0));
      const offsets = [0, 3 / 60, 0, 0];
      const timesS = sharedTimeBase(series, offsets, 0);
      expect(timesS.length).toBe(97);
      const aligned = alignToTimeBase(series, offsets, timesS, 60);
      const original = demoSeries('cam02');
      const stride = names.length * 3;
      for (let i = 0; i < aligned.frameCount * stride; i++) {
        if (Number.isNaN(original.data[i + 3 * stride])) continue;
        expect(aligned.observations[1][i]).toBe(original.data[i + 3 * stride]);
      }
    });
  },
);

describe('synchronisation across frame rates (synthetic cameras, known motion)', () => {
  const cameras = cameraRing(2);
  const keypointNames = ['RWrist', 'LWrist', 'RAnkle', 'LAnkle', 'RKnee', 'LKnee'];
  /** A person swaying, who raises the hands at 2.5 s and steps at 4 s (distinct, non-periodic events). */
  const bump = (t: number, centreS: number, widthS: number) => Math.exp(-(((t - centreS) / widthS) ** 2));
  const pointAt = (k: number, t: number): [number, number, number] => [
    0.1 * Math.sin(1.1 * t + k),
    0.3 + 0.2 * k + (k < 2 ? 0.5 * bump(t, 2.5, 0.3) : 0) + (k >= 2 ? 0.15 * bump(t, 4 + 0.3 * (k % 2), 0.2) : 0),
    0.1 * Math.cos(0.9 * t + 2 * k) + (k >= 2 ? 0.3 * bump(t, 4 + 0.3 * (k % 2), 0.25) : 0),
  ];
  const render = (camera: number, fps: number, durationS: number, startS: number): KeypointSeries => {
    const frameCount = Math.floor(durationS * fps);
    const data = new Float32Array(frameCount * keypointNames.length * 3);
    for (let f = 0; f < frameCount; f++) {
      keypointNames.forEach((_, k) => {
        const pixel = projectPoint(cameras[camera], pointAt(k, startS + f / fps))!;
        data.set([pixel[0], pixel[1], 0.9], (f * keypointNames.length + k) * 3);
      });
    }
    return {
      keypointNames,
      frameCount,
      fps,
      timestampsS: Float64Array.from({ length: frameCount }, (_, f) => f / fps),
      data,
    };
  };

  it('finds a sub-frame offset between a 60 fps and a 50 fps camera by cross-correlation', () => {
    // Camera 2 starts 0.1234 s after camera 1: its frame at τ happened at shared time τ + 0.1234.
    const trueOffsetS = 0.1234;
    const series = [render(0, 60, 6, 0), render(1, 50, 6, trueOffsetS)];
    const result = synchronise(series);
    console.log(
      `sub-frame (correlation): offset found ${(result.offsetsS[1] * 1000).toFixed(2)} ms, true ${trueOffsetS * 1000} ms, confidence ${result.cameras[1].confidence.toFixed(2)}`,
    );
    expect(result.referenceCamera).toBe(0);
    // Within a quarter of a 50 fps frame (5 ms).
    expect(Math.abs(result.offsetsS[1] - trueOffsetS)).toBeLessThan(0.005);
    expect(result.cameras[1].confidence).toBeGreaterThan(0.2);
  });

  it('refines a sub-frame offset by reprojection error when the cameras are calibrated', () => {
    const trueOffsetS = 0.1234;
    const series = [render(0, 60, 6, 0), render(1, 50, 6, trueOffsetS)];
    const result = synchronise(series, { reprojectionErrorPx: reprojectionErrorAtOffset(cameras, series, [0, 0], 0) });
    console.log(
      `sub-frame (reprojection): offset found ${(result.offsetsS[1] * 1000).toFixed(2)} ms, error ${result.cameras[1].reprojectionErrorPx?.toFixed(3)} px`,
    );
    // Within a twentieth of a 50 fps frame (1 ms).
    expect(Math.abs(result.offsetsS[1] - trueOffsetS)).toBeLessThan(0.001);
  });

  it('prefers the smallest correction when a repeated movement fits equally well one period away', () => {
    // Pure 1 Hz movement: lags 0.05 s, 1.05 s, -0.95 s ... all fit; the phones' start times say ~0.
    const periodic = (camera: number, startS: number): KeypointSeries => {
      const frameCount = 360;
      const data = new Float32Array(frameCount * keypointNames.length * 3);
      for (let f = 0; f < frameCount; f++) {
        const t = startS + f / 60;
        keypointNames.forEach((_, k) => {
          const pixel = projectPoint(cameras[camera], [
            0.2 * Math.sin(2 * Math.PI * t + k),
            0.3 + 0.2 * k + 0.1 * Math.cos(2 * Math.PI * t),
            0.1 * k,
          ])!;
          data.set([pixel[0], pixel[1], 0.9], (f * keypointNames.length + k) * 3);
        });
      }
      return {
        keypointNames,
        frameCount,
        fps: 60,
        timestampsS: Float64Array.from({ length: frameCount }, (_, f) => f / 60),
        data,
      };
    };
    const series = [periodic(0, 0), periodic(1, 0.05)];
    const result = synchronise(series, { reprojectionErrorPx: reprojectionErrorAtOffset(cameras, series, [0, 0], 0) });
    expect(Math.abs(result.offsetsS[1] - 0.05)).toBeLessThan(0.002);
  });

  it('starts from the phones’ reported start offsets and refines them', () => {
    const trueOffsetS = 1.5;
    const series = [render(0, 60, 8, 0), render(1, 30, 6, trueOffsetS)];
    const result = synchronise(series, { initialOffsetsS: [0, 1.45], maxLagS: 0.5 });
    expect(Math.abs(result.offsetsS[1] - trueOffsetS)).toBeLessThan(0.004);
    expect(result.cameras[1].lagS).toBeCloseTo(0.05, 2);
  });

  it('reports SYNC_NOT_FOUND when a camera never sees the person move', () => {
    const moving = render(0, 60, 4, 0);
    const still = render(1, 60, 4, 0);
    still.data.fill(Number.NaN);
    expect(() => synchronise([moving, still], { cameraNames: ['left', 'right'] })).toThrowError(
      expect.objectContaining({ code: 'SYNC_NOT_FOUND', cameras: ['right'] }) as ProcessingError,
    );
    const fallback = synchronise([moving, still], { fallbackToInitialOffsets: true, initialOffsetsS: [0, 0.2] });
    expect(fallback.cameras[1]).toMatchObject({ signal: 'initial', offsetS: 0.2, confidence: 0 });
  });
});
