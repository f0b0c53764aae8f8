import { describe, expect, it } from 'vitest';
import { cameraMessages, cameraParametersSchema } from '../src/index.ts';

/** A portrait 1080p phone camera 3 m in front of the world's origin, as the readers return it. */
const phone = {
  name: 'Pixel 8 (left)',
  imageSize: { width: 1080, height: 1920 },
  intrinsics: [1500, 0, 540, 0, 1500, 960, 0, 0, 1],
  distortion: [0.11, -0.21, 0.0004, -0.0002, 0.05],
  rotationCameraFromWorld: [0, 0, -1, 0, -1, 0, -1, 0, 0],
  translationCameraFromWorldM: [0.1, 1.2, 3.4],
};

/** The messages the schema gives for `camera`, or [] when it takes it. */
function refusals(camera: unknown): string[] {
  const checked = cameraParametersSchema.safeParse(camera);
  return checked.success ? [] : [...new Set(checked.error.issues.map((issue) => issue.message))];
}

describe('one camera schema for every calibration format (issue 20, item 14)', () => {
  it('takes a plausible camera, its name in any script', () => {
    expect(refusals(phone)).toEqual([]);
    expect(refusals({ ...phone, name: 'Caméra_2, iPhone13,3 #1' })).toEqual([]);
  });

  it('refuses numbers given as strings or arrays, non-integer or absurd image sizes', () => {
    expect(refusals({ ...phone, imageSize: { width: '1e400', height: [7] } })).toEqual([
      cameraMessages.imageSide('width'),
      cameraMessages.imageSide('height'),
    ]);
    for (const width of [1e308, 1080.5, 0, -1080, 100_000, Number.NaN])
      expect(refusals({ ...phone, imageSize: { width, height: 1920 } }), String(width)).toEqual([
        cameraMessages.imageSide('width'),
      ]);
    expect(refusals({ ...phone, intrinsics: phone.intrinsics.map(String) })).toContain(cameraMessages.intrinsics);
    expect(refusals({ ...phone, distortion: [[0.1], 0, 0, 0, 0] })).toEqual([cameraMessages.distortion]);
  });

  it('refuses matrices of 1e308, a focal length or principal point no lens has, and intrinsics that are not a pinhole', () => {
    expect(refusals({ ...phone, intrinsics: phone.intrinsics.map(() => 1e308) })).toEqual([
      cameraMessages.intrinsics,
      cameraMessages.focalLength,
      cameraMessages.principalPoint,
    ]);
    expect(refusals({ ...phone, intrinsics: [1e308, 0, 540, 0, 1e308, 960, 0, 0, 1] })).toEqual([
      cameraMessages.focalLength,
    ]);
    expect(refusals({ ...phone, intrinsics: [1500, 0, 540, 0, 0, 960, 0, 0, 1] })).toEqual([
      cameraMessages.focalLength,
    ]);
    expect(refusals({ ...phone, intrinsics: [1500, 0, 50_000, 0, 1500, 960, 0, 0, 1] })).toEqual([
      cameraMessages.principalPoint,
    ]);
    expect(refusals({ ...phone, intrinsics: [1500, 0, 540, 0, 1500, 960, 0.1, 0, 1] })).toEqual([
      cameraMessages.intrinsics,
    ]);
    expect(refusals({ ...phone, distortion: [1e308, 0, 0, 0, 0] })).toEqual([cameraMessages.distortion]);
    expect(refusals({ ...phone, distortion: [0.1, 0, 0, 0] })).toEqual([cameraMessages.distortion]);
  });

  it('refuses a rotation that is not one (scaled, sheared, or a mirror) and a translation beyond a lab', () => {
    expect(refusals({ ...phone, rotationCameraFromWorld: [2, 0, 0, 0, 2, 0, 0, 0, 2] })).toEqual([
      cameraMessages.rotation,
    ]);
    expect(refusals({ ...phone, rotationCameraFromWorld: [1, 0.1, 0, 0, 1, 0, 0, 0, 1] })).toEqual([
      cameraMessages.rotation,
    ]);
    expect(refusals({ ...phone, rotationCameraFromWorld: [-1, 0, 0, 0, 1, 0, 0, 0, 1] })).toEqual([
      cameraMessages.rotation,
    ]);
    expect(refusals({ ...phone, rotationCameraFromWorld: phone.rotationCameraFromWorld.map(() => 1e308) })).toEqual([
      cameraMessages.rotation,
    ]);
    expect(refusals({ ...phone, translationCameraFromWorldM: [0, 0, 1e308] })).toEqual([cameraMessages.translation]);
  });

  it('refuses names that are empty, long, or carry markup or control characters', () => {
    for (const name of ['', 'x'.repeat(65), '<img src=x onerror=alert(1)>', 'cam"1', 'cam\u00001', 'a\nb', 5])
      expect(refusals({ ...phone, name }), JSON.stringify(name)).toEqual([cameraMessages.name]);
    expect(refusals({ ...phone, name: `<b>${'x'.repeat(100_000)}</b>` })).toEqual([cameraMessages.name]);
  });
});
