import type { CameraModel } from '@kinetrace/mocap/camera/camera';

/**
 * A pinhole camera without distortion, looking along the world's z axis from `x` m along x and 3 m back,
 * its focal length three quarters of the image's longer side (a phone's main camera sees about 67° across
 * it): a valid calibration for tests whose numbers do not matter, only that the server takes the camera.
 */
export function testCamera(
  name: string,
  x: number,
  imageSize: CameraModel['imageSize'] = { width: 1920, height: 1080 },
): CameraModel {
  const focalPx = 0.75 * Math.max(imageSize.width, imageSize.height);
  return {
    name,
    imageSize,
    intrinsics: Float64Array.from([focalPx, 0, imageSize.width / 2, 0, focalPx, imageSize.height / 2, 0, 0, 1]),
    distortion: new Float64Array(5),
    rotationCameraFromWorld: Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]),
    translationCameraFromWorldM: Float64Array.from([x, 0, 3]),
  };
}
