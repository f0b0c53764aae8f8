import { describe, expect, it } from 'vitest';
import { projectPoint, type CameraModel } from '../../src/camera/camera.ts';
import { chooseCameraSolutions } from '../../src/pipeline/choose-camera-solutions.ts';
import type { KeypointSeries } from '../../src/sync/keypoint-series.ts';
import { cameraRing } from '../triangulation/synthetic-cameras.ts';

/** The same camera turned by `angleRad` about the world's vertical axis through the origin: a wrong pose. */
function turned(camera: CameraModel, angleRad: number): CameraModel {
  const c = Math.cos(angleRad);
  const s = Math.sin(angleRad);
  // World rotation about y: R' = R · Ry(angle)ᵀ keeps the camera looking at the turned scene.
  const ry = [c, 0, s, 0, 1, 0, -s, 0, c];
  const R = camera.rotationCameraFromWorld;
  const rotation = new Float64Array(9);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) rotation[i * 3 + j] += R[i * 3 + k] * ry[j * 3 + k];
  return { ...camera, rotationCameraFromWorld: rotation };
}

function observe(cameras: CameraModel[], frameCount: number): KeypointSeries[] {
  const keypointNames = ['a', 'b', 'c', 'd', 'e', 'f'];
  return cameras.map((camera) => {
    const data = new Float32Array(frameCount * keypointNames.length * 3);
    for (let f = 0; f < frameCount; f++) {
      keypointNames.forEach((_, k) => {
        const pixel = projectPoint(camera, [
          0.3 * Math.sin(f / 9 + k),
          0.2 + 0.25 * k,
          0.3 * Math.cos(f / 13 + 2 * k),
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
  });
}

describe('choosing between the two board poses of each camera', () => {
  it('picks the combination that explains the keypoints (every combination of 4 cameras)', () => {
    const truth = cameraRing(4);
    const keypoints = observe(truth, 60);
    // The right pose is listed second for cameras 0 and 2, first for 1 and 3.
    const candidates = truth.map((camera, c) =>
      c % 2 === 0 ? [turned(camera, 0.3), camera] : [camera, turned(camera, -0.25)],
    );
    const { choice, medianErrorPx } = chooseCameraSolutions(candidates, keypoints, [0, 0, 0, 0], 0);
    expect(choice).toEqual([1, 0, 1, 0]);
    expect(medianErrorPx).toBeLessThan(1e-3);
  });

  it('improves one camera at a time when there are too many combinations (11 cameras)', () => {
    const truth = cameraRing(11);
    const keypoints = observe(truth, 20);
    const candidates = truth.map((camera, c) =>
      c % 3 === 0 ? [turned(camera, 0.2), camera] : [camera, turned(camera, 0.2)],
    );
    const { choice } = chooseCameraSolutions(candidates, keypoints, new Array(11).fill(0), 0);
    expect(choice).toEqual(truth.map((_, c) => (c % 3 === 0 ? 1 : 0)));
  });
});
