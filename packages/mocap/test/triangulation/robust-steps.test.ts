import { describe, expect, it } from 'vitest';
import { projectPoint } from '../../src/camera/camera.ts';
import { removeSpikes } from '../../src/filter/remove-spikes.ts';
import { sideGroups } from '../../src/triangulation/side-consistency.ts';
import { triangulate } from '../../src/triangulation/triangulate.ts';
import { cameraRing } from './synthetic-cameras.ts';

const legs = ['LHip', 'RHip', 'LKnee', 'RKnee', 'LAnkle', 'RAnkle'];

/** A person's legs (left at +x), swaying: 0.2 m between the hips, knees 0.45 m below, ankles 0.9 m. */
function legPoint(frame: number, keypoint: number): [number, number, number] {
  const side = keypoint % 2 === 0 ? 1 : -1;
  const height = [1.0, 0.55, 0.1][keypoint >> 1];
  return [0.1 * side + 0.05 * Math.sin(frame / 5), height, 0.04 * Math.cos(frame / 7) + 0.02 * side * (keypoint >> 1)];
}

function render(cameras: ReturnType<typeof cameraRing>, frames: number): Float32Array[] {
  return cameras.map((camera) => {
    const data = new Float32Array(frames * legs.length * 3);
    for (let f = 0; f < frames; f++)
      legs.forEach((_, k) => data.set([...projectPoint(camera, legPoint(f, k))!, 0.9], (f * legs.length + k) * 3));
    return data;
  });
}

const distanceToTruth = (points: Float64Array, frame: number, keypoint: number) => {
  const at = (frame * legs.length + keypoint) * 3;
  const truth = legPoint(frame, keypoint);
  return Math.hypot(points[at] - truth[0], points[at + 1] - truth[1], points[at + 2] - truth[2]);
};

describe('robust triangulation steps (synthetic cameras, known truth)', () => {
  it("corrects one camera's legs seen with left and right swapped, and counts it", () => {
    const cameras = cameraRing(4);
    const frames = 12;
    const observations = render(cameras, frames);
    // Camera 3 labels the legs the wrong way round in frames 4-8.
    for (let f = 4; f < 9; f++) {
      for (let pair = 0; pair < 3; pair++) {
        const left = (f * legs.length + 2 * pair) * 3;
        const right = left + 3;
        const swapped = observations[2].slice(left, left + 3);
        observations[2].copyWithin(left, right, right + 3);
        observations[2].set(swapped, right);
      }
    }
    const result = triangulate(cameras, observations, frames, legs.length, {
      sideGroups: sideGroups(legs),
      maxReprojectionErrorPx: 15,
    });
    expect(Array.from(result.sidesSwappedPerCamera)).toEqual([0, 0, 5, 0]);
    for (let f = 0; f < frames; f++)
      for (let k = 0; k < legs.length; k++) expect(distanceToTruth(result.pointsWorldM, f, k)).toBeLessThan(1e-6);
  });

  it('keeps the largest subset of cameras that agree and counts the views left out', () => {
    const cameras = cameraRing(5);
    const observations = render(cameras, 1);
    // Two of five cameras see the left knee elsewhere (a mis-detection and another person's knee).
    observations[0][2 * 3] += 90;
    observations[3][2 * 3 + 1] -= 140;
    const result = triangulate(cameras, observations, 1, legs.length, { maxReprojectionErrorPx: 15 });
    expect(result.camerasUsed[2]).toBe(3);
    expect(Array.from(result.excludedPerCamera)).toEqual([1, 0, 0, 1, 0]);
    expect(distanceToTruth(result.pointsWorldM, 0, 2)).toBeLessThan(1e-6);
    expect(result.rejectedPoints).toBe(0);
  });

  it('leaves a point missing when no two cameras agree', () => {
    const cameras = cameraRing(3);
    const observations = render(cameras, 1);
    // The cameras stand at one height, so their epipolar lines run across the image: vertical offsets disagree.
    observations[0][1] += 200;
    observations[1][1] -= 200;
    const result = triangulate(cameras, observations, 1, legs.length, { maxReprojectionErrorPx: 15 });
    expect(Number.isNaN(result.pointsWorldM[0])).toBe(true);
    expect(result.rejectedPoints).toBe(1);
  });
});

describe('spike removal', () => {
  const fps = 60;
  const frames = 120;
  /** A fast movement: 0.5 m amplitude at 3 Hz, up to 18 g, that must be left alone. */
  const trajectory = () =>
    Float64Array.from({ length: frames * 3 }, (_, i) =>
      i % 3 === 0 ? 0.5 * Math.sin((2 * Math.PI * 3 * Math.floor(i / 3)) / fps) : i % 3 === 1 ? 1 : 0,
    );

  it('removes isolated one- and two-frame jumps a body cannot make, and leaves fast movement alone', () => {
    const positions = trajectory();
    positions[40 * 3 + 1] += 0.3;
    positions[80 * 3 + 2] += 0.25;
    positions[81 * 3 + 2] += 0.25;
    const { positions: cleaned, removedPerPoint } = removeSpikes(positions, frames, 1, fps);
    expect(removedPerPoint[0]).toBe(3);
    for (const frame of [40, 80, 81]) expect(Number.isNaN(cleaned[frame * 3])).toBe(true);
    expect(removeSpikes(trajectory(), frames, 1, fps).removedPerPoint[0]).toBe(0);
  });
});
