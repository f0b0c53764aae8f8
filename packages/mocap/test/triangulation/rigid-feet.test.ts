import { describe, expect, it } from 'vitest';
import { projectPoint } from '../../src/camera/camera.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { footLinks } from '../../src/triangulation/rigid-feet.ts';
import { triangulate, type TriangulationOptions } from '../../src/triangulation/triangulate.ts';
import { standingPoint } from '../standing-body.ts';
import { cameraRing } from './synthetic-cameras.ts';

/**
 * The foot held to one shape where two views alone place it: a synthetic person (known truth),
 * swaying, seen by phones 72° apart: one in front of the subject, whose line of sight runs along
 * the foot, and one beside it, whose detection of the right big toe wanders along the foot by up to
 * 12 px (as BlazePose's does on a small, blurred foot); every detection has 1 px of noise. The front
 * view fixes the toe's line, the side view's wander slides it along that line: the foot's length.
 */
const names = VIDEO_KEYPOINTS;
const frames = 120;
const cameras = cameraRing(5);
const toe = names.indexOf('RBigToe');
const heel = names.indexOf('RHeel');

function bodyPoint(frame: number, name: string): [number, number, number] {
  const [x, y, z] = standingPoint(name);
  return [x + 0.04 * Math.sin(frame / 9), y, z + 0.03 * Math.cos(frame / 13)];
}

/** Per camera, frames × keypoints × 3 (x px, y px, confidence), from the cameras given by index. */
function detections(cameraIndices: readonly number[]): Float32Array[] {
  let seed = 7;
  const noisePx = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed / 2147483648 - 0.5) * 2;
  };
  return cameraIndices.map((index, c) => {
    const series = new Float32Array(frames * names.length * 3);
    for (let frame = 0; frame < frames; frame++) {
      const [heelU, heelV] = projectPoint(cameras[index], bodyPoint(frame, 'RHeel'))!;
      names.forEach((name, k) => {
        const [u, v] = projectPoint(cameras[index], bodyPoint(frame, name))!;
        const wanderPx = c === 1 && k === toe ? 12 * Math.sin(frame / 7) : 0;
        const along = Math.hypot(u - heelU, v - heelV) || 1;
        series.set(
          [u + (wanderPx * (u - heelU)) / along + noisePx(), v + (wanderPx * (v - heelV)) / along + noisePx(), 0.9],
          (frame * names.length + k) * 3,
        );
      });
    }
    return series;
  });
}

function run(cameraIndices: readonly number[], options: TriangulationOptions) {
  const chosen = cameraIndices.map((index) => cameras[index]);
  return triangulate(chosen, detections(cameraIndices), frames, names.length, options);
}

/** Per frame: the distance between two keypoints, and a keypoint's distance to where it truly is. */
function lengthsM(points: Float64Array, a: number, b: number): number[] {
  return Array.from({ length: frames }, (_, frame) => {
    const [i, j] = [(frame * names.length + a) * 3, (frame * names.length + b) * 3];
    return Math.hypot(points[i] - points[j], points[i + 1] - points[j + 1], points[i + 2] - points[j + 2]);
  });
}
function errorsM(points: Float64Array, k: number): number[] {
  return Array.from({ length: frames }, (_, frame) => {
    const truth = bodyPoint(frame, names[k]);
    const i = (frame * names.length + k) * 3;
    return Math.hypot(points[i] - truth[0], points[i + 1] - truth[1], points[i + 2] - truth[2]);
  });
}
const sd = (values: number[]) => {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
};
const rms = (values: number[]) => Math.sqrt(values.reduce((sum, value) => sum + value ** 2, 0) / values.length);

describe('holding the feet rigid when two views alone place them', () => {
  const feet = footLinks(names);

  it('keeps the foot its length and puts the wandering toe nearer the truth, still within the views', () => {
    const free = run([0, 1], {});
    const held = run([0, 1], { footLinks: feet });
    const footLength = Math.hypot(
      ...standingPoint('RHeel').map((value, axis) => value - standingPoint('RBigToe')[axis]),
    );
    const [freeLengths, heldLengths] = [lengthsM(free.pointsWorldM, heel, toe), lengthsM(held.pointsWorldM, heel, toe)];
    const [freeToe, heldToe] = [rms(errorsM(free.pointsWorldM, toe)), rms(errorsM(held.pointsWorldM, toe))];
    console.log(
      `two views, right foot: heel-toe length SD ${(sd(freeLengths) * 1000).toFixed(1)} → ${(sd(heldLengths) * 1000).toFixed(1)} mm (truth ${(footLength * 1000).toFixed(0)} mm); toe RMS error ${(freeToe * 1000).toFixed(1)} → ${(heldToe * 1000).toFixed(1)} mm`,
    );
    expect(sd(freeLengths)).toBeGreaterThan(0.01);
    expect(sd(heldLengths)).toBeLessThan(sd(freeLengths) / 2);
    expect(heldToe).toBeLessThan(freeToe * 0.75);
    // Every foot keypoint is still triangulated from both views, and the errors reported are where the points are.
    for (const k of feet.flatMap(({ from, to }) => [from, to])) {
      for (let frame = 0; frame < frames; frame++) {
        const observation = frame * names.length + k;
        expect(held.camerasUsed[observation]).toBe(2);
        expect(held.reprojectionErrorPx[observation * 2]).toBeGreaterThan(0);
      }
    }
    const toeErrorsPx = (result: typeof free) =>
      Array.from({ length: frames }, (_, frame) => result.reprojectionErrorPx[(frame * names.length + toe) * 2 + 1]);
    // The side view's wander is no longer followed: its error at the toe grows, within the wander.
    expect(rms(toeErrorsPx(held))).toBeGreaterThan(rms(toeErrorsPx(free)));
    expect(Math.max(...toeErrorsPx(held))).toBeLessThan(12);
    // Keypoints off the feet are left as triangulated.
    const knee = names.indexOf('RKnee');
    expect(errorsM(held.pointsWorldM, knee)).toEqual(errorsM(free.pointsWorldM, knee));
  });

  it('leaves points three views agree on, and a threshold given (Pose2Sim’s rule), as triangulated', () => {
    const three = run([0, 1, 2], {});
    expect(run([0, 1, 2], { footLinks: feet }).pointsWorldM).toEqual(three.pointsWorldM);
    const pose2sim = { maxReprojectionErrorPx: 15 };
    expect(run([0, 1], { ...pose2sim, footLinks: feet }).pointsWorldM).toEqual(run([0, 1], pose2sim).pointsWorldM);
  });
});
