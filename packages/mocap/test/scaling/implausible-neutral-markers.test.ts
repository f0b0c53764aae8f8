import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, namedModelDocument } from '../../src/default-model/named-models.ts';
import type { MarkerTrajectories } from '../../src/formats/trc.ts';
import { readOsimTree } from '../../src/model/read-osim.ts';
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
    // The model's place: the generic model's marker, scaled with its body (not the keypoint 12 cm away).
    const generic = readOsimTree(namedModelDocument(DEFAULT_MODEL, { heightM: SUBJECT.heightM }).root);
    const modelToe = generic.markers.find((marker) => marker.name === 'RBigToe')!;
    const scale = fit.scaled.scaleFactors.get(modelToe.body) ?? [1, 1, 1];
    const placed = markerOf(fit, 'RBigToe');
    expect(placed.body).toBe(modelToe.body);
    placed.locationM.forEach((value, axis) => expect(value).toBeCloseTo(modelToe.locationM[axis] * scale[axis], 4));
  });
});
