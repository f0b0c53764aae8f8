import { describe, expect, it } from 'vitest';
import type { MarkerTrajectories } from '../../src/formats/trc.ts';
import { KeypointsMissingError } from '../../src/pipeline/processing-error.ts';
import type { Keypoints2D } from '../../src/pose/types.ts';
import { findStillestWindow } from '../../src/scaling/stillest-window.ts';
import { neutralKeypointsMissing } from '../../src/session/missing-keypoints.ts';

const FRAMES = 11;
const MARKERS = ['RKnee', 'LEar', 'RBigToe'];

/** A still person of three markers over 11 frames at 60 Hz (the demo's static trial), with `missing` frames as NaN. */
function stillTrial(missing: Record<string, number[]>): MarkerTrajectories {
  const positionsM = new Float64Array(FRAMES * MARKERS.length * 3);
  for (let f = 0; f < FRAMES; f++)
    for (const [m, name] of MARKERS.entries()) {
      const gone = missing[name]?.includes(f);
      positionsM.set(gone ? [NaN, NaN, NaN] : [m * 0.1, 1 + m * 0.2, 0.05], (f * MARKERS.length + m) * 3);
    }
  return {
    markerNames: [...MARKERS],
    frameRateHz: 60,
    timesS: Float64Array.from({ length: FRAMES }, (_, f) => f / 60),
    positionsM,
  };
}

const all = Array.from({ length: FRAMES }, (_, f) => f);

/** Two cameras' 2D keypoints: `blind` keypoints are never confident in camera `c`. */
function cameraKeypoints(blind: Record<number, string[]>): Keypoints2D[] {
  return [0, 1].map((c) => {
    const data = new Float32Array(FRAMES * MARKERS.length * 3);
    for (let f = 0; f < FRAMES; f++)
      for (const [k, name] of MARKERS.entries())
        data.set([100 + k, 200 + k, blind[c]?.includes(name) ? 0.1 : 0.9], (f * MARKERS.length + k) * 3);
    return {
      keypointNames: MARKERS as unknown as Keypoints2D['keypointNames'],
      frameCount: FRAMES,
      fps: 60,
      timestampsS: Float64Array.from({ length: FRAMES }, (_, f) => f / 60),
      imageSize: { width: 640, height: 480 },
      data,
      personFound: new Uint8Array(FRAMES).fill(1),
    };
  });
}

describe('scaling on the keypoints a trial has; without any it measures, a user error naming them', () => {
  it('finds the still window on the keypoints present: an ear never seen and a toe missing for 4 frames do not stop it', () => {
    const window = findStillestWindow(stillTrial({ LEar: all, RBigToe: [3, 4, 5, 6] }), 1);
    expect(window).toMatchObject({ firstFrame: 0, lastFrame: 10, markersSeen: ['RKnee', 'RBigToe'] });
  });

  it('prefers the stretch that shows the most keypoints', () => {
    // 3-frame windows: a keypoint counts in one when seen in 2 of its frames.
    expect(findStillestWindow(stillTrial({ RBigToe: [0, 1, 2, 3] }), 0.05)).toMatchObject({ firstFrame: 3 });
  });

  it('with none of them seen anywhere, the error names them and how often each was seen', () => {
    const error = (() => {
      try {
        findStillestWindow(stillTrial({ RKnee: all, LEar: all, RBigToe: all }), 1);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(KeypointsMissingError);
    const missing = error as KeypointsMissingError;
    expect(missing.code).toBe('KEYPOINTS_MISSING');
    expect(missing.keypoints.map((keypoint) => keypoint.name)).toEqual(['RKnee', 'LEar', 'RBigToe']);
    expect(missing.message).toContain('LEar (seen in 0 of 11 frames)');
  });

  it('at the neutral, the message adds which camera did not see them and what to do', () => {
    let thrown: unknown;
    try {
      findStillestWindow(stillTrial({ RKnee: all, LEar: all, RBigToe: all }), 1);
    } catch (error) {
      thrown = error;
    }
    const named = neutralKeypointsMissing(thrown as KeypointsMissingError, cameraKeypoints({ 1: ['LEar'] }), [
      'cam01',
      'cam02',
    ]);
    expect(named.cameras).toEqual(['cam02']);
    expect(named.message).toContain('Camera cam02 did not see LEar');
    expect(named.message).not.toContain('Camera cam01');
    expect(named.message).toMatch(/Record the neutral again/);
  });
});
