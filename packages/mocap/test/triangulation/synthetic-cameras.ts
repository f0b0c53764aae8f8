import type { CameraModel } from '../../src/camera/camera.ts';

/**
 * A ring of phone-like cameras (1080×1920 portrait, f ≈ 1700 px, mild barrel distortion) at `radiusM`
 * around the world origin, 1.2 m high, looking at a point 1 m above the ground (world y up).
 */
export function cameraRing(count: number, radiusM = 3.5): CameraModel[] {
  return Array.from({ length: count }, (_, i) => {
    const angle = (2 * Math.PI * i) / count + 0.3;
    const centre = [radiusM * Math.cos(angle), 1.2, radiusM * Math.sin(angle)];
    const target = [0, 1, 0];
    const forward = normalise(target.map((value, k) => value - centre[k]));
    const right = normalise(cross(forward, [0, 1, 0]));
    const down = cross(forward, right);
    const rotation = Float64Array.from([...right, ...down, ...forward]);
    const translation = Float64Array.from(
      [0, 1, 2].map(
        (row) =>
          -(rotation[row * 3] * centre[0] + rotation[row * 3 + 1] * centre[1] + rotation[row * 3 + 2] * centre[2]),
      ),
    );
    return {
      name: `cam${i + 1}`,
      imageSize: { width: 1080, height: 1920 },
      intrinsics: Float64Array.from([1700 + 20 * i, 0, 540 + 3 * i, 0, 1702 + 20 * i, 960 - 4 * i, 0, 0, 1]),
      distortion: Float64Array.from([-0.05, 0.12, 0.0006, -0.0004, 0]),
      rotationCameraFromWorld: rotation,
      translationCameraFromWorldM: translation,
    };
  });
}

function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function normalise(v: number[]): number[] {
  const length = Math.hypot(...v);
  return v.map((value) => value / length);
}
