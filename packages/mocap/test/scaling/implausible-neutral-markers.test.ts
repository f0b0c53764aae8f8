import { describe, expect, it } from 'vitest';
import type { MarkerTrajectories } from '../../src/formats/trc.ts';
import { fitNeutral } from '../../src/model-fitting/fit-neutral.ts';
import { STANDING_BODY, standingPoint } from '../standing-body.ts';

const SUBJECT = { heightM: 1.7, massKg: 70 };
const FRAMES = 11;
const NAMES = Object.keys(STANDING_BODY).flatMap((name) =>
  ['Nose', 'Neck', 'midHip'].includes(name) ? [name] : [`R${name}`, `L${name}`],
);

/** The synthetic person standing still for 11 frames at 60 Hz (the demo's static trial), `moved` keypoints displaced (m). */
function standing(moved: Record<string, [number, number, number]>): MarkerTrajectories {
  const positionsM = new Float64Array(FRAMES * NAMES.length * 3);
  for (let f = 0; f < FRAMES; f++)
    for (const [k, name] of NAMES.entries()) {
      const offset = moved[name] ?? [0, 0, 0];
      positionsM.set(
        standingPoint(name).map((value, axis) => value + offset[axis]),
        (f * NAMES.length + k) * 3,
      );
    }
  return {
    markerNames: [...NAMES],
    frameRateHz: 60,
    timesS: Float64Array.from({ length: FRAMES }, (_, f) => f / 60),
    positionsM,
  };
}

const markerOf = (fit: ReturnType<typeof fitNeutral>, name: string) =>
  fit.scaled.model.markers.find((marker) => marker.name === name)!;

describe('the neutral places no marker on a keypoint no standing body could have there', () => {
  it('leaves a big toe 12 cm off the foot at the model’s place on the foot, and moves the rest', () => {
    // Two cameras seeing the static trial from behind put the big toes, which they cannot see, 6-12 cm
    // off along their line of sight (the Pose2Sim demo's cam01+cam02).
    const fit = fitNeutral({ neutral: standing({ RBigToe: [0.06, 0.07, -0.08] }), subject: SUBJECT });
    const placement = fit.scaled.placement!;
    expect(placement.implausibleMarkers).toEqual(['RBigToe']);
    expect(placement.movedMarkers).toEqual(expect.arrayContaining(['LBigToe', 'RHeel', 'RAnkle', 'RKnee']));
    expect(placement.movedMarkers).not.toContain('RBigToe');
    // The model's place: on the toes as the left one, placed on its keypoint, is (the body is symmetric).
    const [right, left] = [markerOf(fit, 'RBigToe').locationM, markerOf(fit, 'LBigToe').locationM];
    expect(Math.abs(right[0] - left[0])).toBeLessThan(0.03);
    expect(Math.abs(right[1] - left[1])).toBeLessThan(0.03);
  });
});
