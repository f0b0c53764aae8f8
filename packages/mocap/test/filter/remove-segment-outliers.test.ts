import { describe, expect, it } from 'vitest';
import { removeSegmentOutliers } from '../../src/filter/remove-segment-outliers.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { standingPoint } from '../standing-body.ts';

/** A person swaying and bending the knees over 40 frames (metres, y up, right at +z), with 1 cm of noise. */
const names = VIDEO_KEYPOINTS;
const frames = 40;

function body(): Float64Array {
  const positions = new Float64Array(frames * names.length * 3);
  let seed = 7;
  const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 0.02;
  for (let f = 0; f < frames; f++)
    names.forEach((name, k) => {
      const [x, y, z] = standingPoint(name);
      const bend = name.endsWith('Knee') ? 0.1 * Math.sin(f / 6) : 0;
      positions.set(
        [x + 0.1 * Math.sin(f / 10) + bend + noise(), y + noise(), z + noise()],
        (f * names.length + k) * 3,
      );
    });
  return positions;
}

const at = (frame: number, name: string) => (frame * names.length + names.indexOf(name as never)) * 3;
const removedFrames = (positions: Float64Array, name: string) =>
  Array.from({ length: frames }, (_, f) => f).filter((f) => Number.isNaN(positions[at(f, name)]));

describe('keypoints off the body', () => {
  it('leaves a body that moves as bodies do untouched', () => {
    const result = removeSegmentOutliers(body(), frames, names);
    expect(Array.from(result.removedPerPoint).every((count) => count === 0)).toBe(true);
  });

  it('removes an elbow two facing cameras placed 1.6 m behind the body, and the wrist it alone linked to the body', () => {
    const positions = body();
    for (const f of [10, 11, 12]) positions[at(f, 'RElbow') + 0] += 1.6;
    const result = removeSegmentOutliers(positions, frames, names);
    expect(removedFrames(result.positions, 'RElbow')).toEqual([10, 11, 12]);
    // Nothing else vouches for the wrist there: a gap for the filling to bridge, never a guess.
    expect(removedFrames(result.positions, 'RWrist')).toEqual([10, 11, 12]);
    expect(result.removedPerPoint.reduce((sum, count) => sum + count, 0)).toBe(6);
  });

  it("removes a shoulder that stood 1.5 m off in every frame, with the upper body's other keypoints missing (two facing cameras, the Pose2Sim demo's static trial)", () => {
    const positions = body();
    const upperBody = [
      'Nose',
      'LEye',
      'REye',
      'LEar',
      'REar',
      'Neck',
      'LShoulder',
      'RElbow',
      'LElbow',
      'RWrist',
      'LWrist',
    ];
    for (let f = 0; f < frames; f++) {
      for (const name of upperBody) positions.fill(Number.NaN, at(f, name), at(f, name) + 3);
      positions[at(f, 'RShoulder') + 2] += 1.5;
    }
    const result = removeSegmentOutliers(positions, frames, names);
    // Its one link, to the right hip, is as long in every frame: only the legs' lengths tell it is off.
    expect(removedFrames(result.positions, 'RShoulder')).toHaveLength(frames);
    expect(result.removedPerPoint.reduce((sum, count) => sum + count, 0)).toBe(frames);
  });

  it('removes a wrist farther from its shoulder than the arm reaches while the elbow between them is missing', () => {
    const positions = body();
    for (let f = 15; f < 31; f++) {
      positions.fill(Number.NaN, at(f, 'LElbow'), at(f, 'LElbow') + 3);
      if (f >= 20) positions[at(f, 'LWrist') + 2] += 1;
    }
    const result = removeSegmentOutliers(positions, frames, names);
    expect(removedFrames(result.positions, 'LWrist')).toEqual(Array.from({ length: 11 }, (_, i) => 20 + i));
    expect(result.removedPerPoint.reduce((sum, count) => sum + count, 0)).toBe(11);
  });

  it('removes a left elbow and wrist both found on the right arm: the wrist agrees only with an elbow that is off', () => {
    const positions = body();
    for (const joint of ['Elbow', 'Wrist'])
      positions.copyWithin(at(20, `L${joint}`), at(20, `R${joint}`), at(20, `R${joint}`) + 3);
    const result = removeSegmentOutliers(positions, frames, names);
    expect(removedFrames(result.positions, 'LElbow')).toEqual([20]);
    expect(removedFrames(result.positions, 'LWrist')).toEqual([20]);
    expect(result.removedPerPoint.reduce((sum, count) => sum + count, 0)).toBe(2);
  });
});
