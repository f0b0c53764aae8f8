import { describe, expect, it } from 'vitest';
import { type CameraModel, projectPoint } from '../../src/camera/camera.ts';
import { VIDEO_KEYPOINTS } from '../../src/pose/keypoints.ts';
import { sideGroups } from '../../src/triangulation/side-consistency.ts';
import { bodyLandmarks } from '../../src/triangulation/side-orientation.ts';
import { triangulate } from '../../src/triangulation/triangulate.ts';
import { lookAt } from '../calibration/synthetic-board.ts';
import { standingPoint } from '../standing-body.ts';

/**
 * Left and right with two cameras, where no third view can vote: a synthetic person (known truth)
 * seen by two phones standing side by side at one height in front of them, the hardest case (a left
 * and a right point at one height lie on the same epipolar plane, so both pairings of the views meet
 * in 3D without any reprojection error).
 */
const names = VIDEO_KEYPOINTS;
const frames = 60;

/** The person faces +x (OpenSim's forward), right at +z, swaying; from frame 30 the left foot rises off the floor. */
function bodyPoint(frame: number, name: string): [number, number, number] {
  const side = name.startsWith('R') ? 1 : name.startsWith('L') ? -1 : 0;
  const [x, y, z] = standingPoint(name);
  const lift =
    side === -1 && frame >= 30 && ['Knee', 'Ankle', 'Heel', 'BigToe'].includes(name.slice(1))
      ? 0.004 * (frame - 30)
      : 0;
  return [x + 0.03 * Math.sin(frame / 8), y + lift, z + 0.02 * Math.cos(frame / 11)];
}

function phone(name: string, centre: number[]): CameraModel {
  const { R, t } = lookAt(centre, [0, 1, 0]);
  return {
    name,
    imageSize: { width: 1080, height: 1920 },
    intrinsics: Float64Array.from([1500, 0, 540, 0, 1500, 960, 0, 0, 1]),
    distortion: new Float64Array(5),
    rotationCameraFromWorld: Float64Array.from(R),
    translationCameraFromWorldM: Float64Array.from(t),
  };
}

/** Two phones 1.4 m high, 3 m in front of the person and 2.6 m apart. */
const cameras = [phone('left phone', [3, 1.4, -1.3]), phone('right phone', [3, 1.4, 1.3])];

function views(): Float32Array[] {
  return cameras.map((camera) => {
    const data = new Float32Array(frames * names.length * 3);
    for (let f = 0; f < frames; f++)
      names.forEach((name, k) =>
        data.set([...projectPoint(camera, bodyPoint(f, name))!, 0.9], (f * names.length + k) * 3),
      );
    return data;
  });
}

/** Exchanges the left and right detections of the arms and legs in one camera's frames. */
function mislabel(view: Float32Array, fromFrame: number, toFrame: number, joints: string[]): void {
  for (let f = fromFrame; f < toFrame; f++) {
    for (const joint of joints) {
      const left = (f * names.length + names.indexOf(`L${joint}` as never)) * 3;
      const right = (f * names.length + names.indexOf(`R${joint}` as never)) * 3;
      const kept = view.slice(left, left + 3);
      view.copyWithin(left, right, right + 3);
      view.set(kept, right);
    }
  }
}

const LIMBS = ['Shoulder', 'Elbow', 'Wrist', 'Hip', 'Knee', 'Ankle', 'Heel', 'BigToe'];

function worstDistanceToTruthM(points: Float64Array): number {
  let worst = 0;
  for (let f = 0; f < frames; f++)
    names.forEach((name, k) => {
      const truth = bodyPoint(f, name);
      const at = (f * names.length + k) * 3;
      worst = Math.max(worst, Math.hypot(points[at] - truth[0], points[at + 1] - truth[1], points[at + 2] - truth[2]));
    });
  return worst;
}

const reconstruct = (observations: Float32Array[]) =>
  triangulate(cameras, observations, frames, names.length, {
    sideGroups: sideGroups(names),
    bodyLandmarks: bodyLandmarks(names),
  });

describe('left and right with two cameras (synthetic person, known truth)', () => {
  for (const [camera, label] of [
    [1, 'the right'],
    [0, 'the left'],
  ] as const) {
    it(`corrects a side swapped in ${label} phone's view only, naming each limb right, and counts it against that phone`, () => {
      const observations = views();
      mislabel(observations[camera], 12, 42, LIMBS);
      const result = reconstruct(observations);
      expect(worstDistanceToTruthM(result.pointsWorldM)).toBeLessThan(1e-6);
      // 30 frames × two body parts (arms, legs), all in that phone.
      const swaps = [0, 0];
      swaps[camera] = 60;
      expect(Array.from(result.sidesSwappedPerCamera)).toEqual(swaps);
    });
  }

  it('names the sides by the body when both views mirror the person, as a pose model does seen from behind', () => {
    const observations = views();
    for (const view of observations) mislabel(view, 0, frames, [...LIMBS, 'Eye', 'Ear']);
    const result = reconstruct(observations);
    expect(worstDistanceToTruthM(result.pointsWorldM)).toBeLessThan(1e-6);
  });
});
