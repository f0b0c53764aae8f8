import type { CameraModel } from '../../src/camera/camera.ts';
import { lookAt } from '../calibration/synthetic-board.ts';

/**
 * A ring of phone-like cameras (1080×1920 portrait, f ≈ 1700 px, mild barrel distortion) at `radiusM`
 * around the world origin, 1.2 m high, looking at a point 1 m above the ground (world y up).
 */
export function cameraRing(count: number, radiusM = 3.5): CameraModel[] {
  return Array.from({ length: count }, (_, i) => {
    const angle = (2 * Math.PI * i) / count + 0.3;
    const centre = [radiusM * Math.cos(angle), 1.2, radiusM * Math.sin(angle)];
    const { R, t } = lookAt(centre, [0, 1, 0]);
    return {
      name: `cam${i + 1}`,
      imageSize: { width: 1080, height: 1920 },
      intrinsics: Float64Array.from([1700 + 20 * i, 0, 540 + 3 * i, 0, 1702 + 20 * i, 960 - 4 * i, 0, 0, 1]),
      distortion: Float64Array.from([-0.05, 0.12, 0.0006, -0.0004, 0]),
      rotationCameraFromWorld: Float64Array.from(R),
      translationCameraFromWorldM: Float64Array.from(t),
    };
  });
}
