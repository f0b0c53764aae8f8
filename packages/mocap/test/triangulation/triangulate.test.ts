import { describe, expect, it } from 'vitest';
import { projectPoint } from '../../src/camera/camera.ts';
import { fillShortGaps } from '../../src/triangulation/fill-gaps.ts';
import {
  errorStatistics,
  medianPx,
  summariseReprojectionErrors,
} from '../../src/triangulation/reprojection-summary.ts';
import { triangulate } from '../../src/triangulation/triangulate.ts';
import { cameraRing } from './synthetic-cameras.ts';

const cameras = cameraRing(4);

/** Points on a moving figure: keypoint k at frame f, inside a 1 m cube around the cameras' target. */
function truePoint(frame: number, keypoint: number): [number, number, number] {
  return [0.3 * Math.sin(frame / 7 + keypoint), 0.2 + 0.08 * keypoint, 0.25 * Math.cos(frame / 11 + 2 * keypoint)];
}

function renderObservations(frameCount: number, keypointCount: number, confidence = 0.9): Float32Array[] {
  return cameras.map((camera) => {
    const data = new Float32Array(frameCount * keypointCount * 3);
    for (let f = 0; f < frameCount; f++) {
      for (let k = 0; k < keypointCount; k++) {
        const pixel = projectPoint(camera, truePoint(f, k))!;
        data.set([pixel[0], pixel[1], confidence], (f * keypointCount + k) * 3);
      }
    }
    return data;
  });
}

describe('confidence-weighted DLT triangulation', () => {
  it('recovers known 3D points exactly from distorted projections without noise', () => {
    const frames = 20;
    const keypoints = 15;
    const result = triangulate(cameras, renderObservations(frames, keypoints), frames, keypoints);
    let worst = 0;
    for (let f = 0; f < frames; f++) {
      for (let k = 0; k < keypoints; k++) {
        const expected = truePoint(f, k);
        const i = (f * keypoints + k) * 3;
        worst = Math.max(
          worst,
          Math.hypot(
            result.pointsWorldM[i] - expected[0],
            result.pointsWorldM[i + 1] - expected[1],
            result.pointsWorldM[i + 2] - expected[2],
          ),
        );
      }
    }
    expect(worst).toBeLessThan(1e-6);
    const summary = summariseReprojectionErrors(result);
    expect(summary.overall!.p95Px).toBeLessThan(1e-3);
    expect(summary.perCamera.every((stats) => stats!.count === frames * keypoints)).toBe(true);
  });

  it('ignores detections below 0.4 confidence and needs two cameras', () => {
    const observations = renderObservations(1, 2);
    // Keypoint 0: only camera 1 is confident. Keypoint 1: cameras 1 and 3 are confident.
    for (const c of [1, 2, 3]) observations[c][2] = 0.39;
    observations[0][5] = 0.2;
    observations[2][5] = Number.NaN;
    const result = triangulate(cameras, observations, 1, 2);
    expect(Number.isNaN(result.pointsWorldM[0])).toBe(true);
    expect(result.camerasUsed[0]).toBe(0);
    expect(result.camerasUsed[1]).toBe(2);
    expect(result.pointsWorldM[3]).toBeCloseTo(truePoint(0, 1)[0], 6);
    expect(Number.isNaN(result.reprojectionErrorPx[1 * 4 + 0])).toBe(true);
  });

  it('drops a view that disagrees with the others (a mislabelled limb in one camera)', () => {
    const observations = renderObservations(1, 1);
    observations[2][0] += 120;
    const result = triangulate(cameras, observations, 1, 1, { maxReprojectionErrorPx: 15 });
    expect(result.camerasUsed[0]).toBe(3);
    expect(Number.isNaN(result.reprojectionErrorPx[2])).toBe(true);
    const expected = truePoint(0, 0);
    expect(
      Math.hypot(
        result.pointsWorldM[0] - expected[0],
        result.pointsWorldM[1] - expected[1],
        result.pointsWorldM[2] - expected[2],
      ),
    ).toBeLessThan(1e-6);
    // Without the outlier rule the bad view pulls the point away by centimetres.
    const kept = triangulate(cameras, observations, 1, 1, { maxReprojectionErrorPx: Number.POSITIVE_INFINITY });
    expect(kept.camerasUsed[0]).toBe(4);
    expect(
      Math.hypot(
        kept.pointsWorldM[0] - expected[0],
        kept.pointsWorldM[1] - expected[1],
        kept.pointsWorldM[2] - expected[2],
      ),
    ).toBeGreaterThan(0.01);
  });
});

describe('two views nearly along one line', () => {
  // Two phones facing each other across the subject (the ring's cameras 1 and 3, 7 m apart): a
  // point 0.3 m off the line between them is seen along rays meeting at 12°, where an error along
  // the rays is about five times its error across them; 0.8 m off, at 26°, it is measured.
  const facing = [cameras[0], cameras[2]];
  const across = [-Math.sin(0.3), 0, Math.cos(0.3)];
  const offLine = (m: number): [number, number, number] => [m * across[0], 1, m * across[2]];
  const points = [offLine(0.3), offLine(0.8)];
  const observations = facing.map((camera) =>
    Float32Array.from(points.flatMap((point) => [...projectPoint(camera, point)!, 0.9])),
  );

  it('leaves a point missing when its two rays meet under 20°, and keeps one seen from wider apart', () => {
    const result = triangulate(facing, observations, 1, points.length);
    expect(Number.isNaN(result.pointsWorldM[0])).toBe(true);
    expect(result.camerasUsed[0]).toBe(0);
    expect(result.rejectedPoints).toBe(1);
    expect(result.camerasUsed[1]).toBe(2);
    expect(Array.from(result.pointsWorldM.subarray(3, 6)).map((v, a) => v - points[1][a])).toEqual(
      [0, 0, 0].map(() => expect.closeTo(0, 6)),
    );
  });
});

describe('median reprojection error by selection', () => {
  it('equals the sorted median errorStatistics gives, for odd and even counts, ties and errors behind a camera', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (const count of [1, 2, 3, 4, 601, 1000, 15000]) {
      // Float32-rounded errors with repeats and a few Infinity, as the triangulation stores them.
      const values = Array.from({ length: count }, () =>
        random() < 0.01 ? Number.POSITIVE_INFINITY : Math.fround(Math.round(random() * 4000) / 100),
      );
      expect(medianPx(values.slice())).toBe(errorStatistics(values)!.medianPx);
    }
    expect(medianPx([])).toBeNull();
  });
});

describe('gap filling', () => {
  const frames = 120;
  const fps = 60;
  const trajectory = () => {
    const positions = new Float64Array(frames * 3);
    for (let f = 0; f < frames; f++)
      positions.set([Math.sin((2 * Math.PI * f) / fps), 0.5 * Math.cos((2 * Math.PI * f) / fps), f / fps], f * 3);
    return positions;
  };
  const blank = (positions: Float64Array, from: number, to: number) => {
    for (let f = from; f < to; f++) positions.fill(Number.NaN, f * 3, f * 3 + 3);
  };

  it('fills gaps up to fps/5 frames with the shape-preserving cubic SciPy computes, within 3 cm of a 1 m, 1 Hz movement', () => {
    const truth = trajectory();
    const holed = trajectory();
    blank(holed, 30, 42); // 12 frames = fps / 5
    const { filled, filledFrames } = fillShortGaps(holed, frames, 1, fps / 5);
    expect(filledFrames).toBe(12);
    // PCHIP flattens towards the gap's ends (2.7 cm here, where a natural spline is within 6 mm), in
    // exchange for never swinging beyond the samples either side (next test).
    for (let i = 30 * 3; i < 42 * 3; i++) expect(Math.abs(filled[i] - truth[i])).toBeLessThan(0.035);
    // scipy.interpolate.PchipInterpolator(valid frames, x) at frames 30..41.
    const scipyPchip = [
      0.009017, -0.08836, -0.186443, -0.284072, -0.380089, -0.473334, -0.562648, -0.646871, -0.724845, -0.79541,
      -0.857406, -0.909675,
    ];
    scipyPchip.forEach((value, i) => expect(filled[(30 + i) * 3]).toBeCloseTo(value, 5));
  });

  it('stays between the samples either side of a gap, where a spline through a lone sample swings out', () => {
    // A foot at rest (2 cm wobble), a lone sample 25 cm off two frames before an 11-frame gap.
    const positions = new Float64Array(frames * 3).fill(Number.NaN);
    for (let f = 0; f < frames; f++) if (f <= 40 || f === 44 || f >= 56) positions[f * 3] = 0.01 * Math.sin(f / 3);
    positions[44 * 3] = 0.25;
    for (let f = 0; f < frames; f++)
      positions[f * 3 + 1] = positions[f * 3 + 2] = Number.isNaN(positions[f * 3]) ? Number.NaN : 0;
    const { filled } = fillShortGaps(positions, frames, 1, fps / 5);
    for (let f = 45; f < 56; f++) expect(Math.abs(filled[f * 3])).toBeLessThanOrEqual(0.25);
  });

  it('leaves longer gaps and missing ends missing', () => {
    const holed = trajectory();
    blank(holed, 0, 3);
    blank(holed, 50, 63); // 13 frames > fps / 5
    blank(holed, 118, 120);
    const { filled, filledFrames } = fillShortGaps(holed, frames, 1, fps / 5);
    expect(filledFrames).toBe(0);
    for (const f of [0, 2, 50, 62, 118, 119]) expect(Number.isNaN(filled[f * 3])).toBe(true);
  });
});
