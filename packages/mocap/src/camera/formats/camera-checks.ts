import { cameraParametersSchema, CAMERA_LIMITS } from '@kinetrace/contracts';
import type { CameraModel } from '../camera.ts';

/** A camera read from a file is not one a camera could be; the message says which and why, in words a user reads. */
export class CameraParametersError extends Error {
  override name = 'CameraParametersError';
}

/**
 * Checks every camera a file gave against the one camera schema of the contracts (issue 20, item
 * 14), whatever the format, and throws CameraParametersError for the first that fails, naming it
 * (by its place in the file when the name itself is what is wrong) and listing what to fix.
 */
export function checkCameras(cameras: CameraModel[]): CameraModel[] {
  cameras.forEach((camera, index) => {
    const checked = cameraParametersSchema.safeParse({
      name: camera.name,
      imageSize: camera.imageSize,
      intrinsics: Array.from(camera.intrinsics),
      distortion: Array.from(camera.distortion),
      rotationCameraFromWorld: Array.from(camera.rotationCameraFromWorld),
      translationCameraFromWorldM: Array.from(camera.translationCameraFromWorldM),
    });
    if (checked.success) return;
    const nameIsWrong = checked.error.issues.some((issue) => issue.path[0] === 'name');
    const which =
      nameIsWrong || typeof camera.name !== 'string'
        ? `camera ${index + 1}`
        : `camera "${camera.name.slice(0, CAMERA_LIMITS.nameMaxLength)}"`;
    const problems = [...new Set(checked.error.issues.map((issue) => issue.message))];
    throw new CameraParametersError(`${which}: ${problems.join(' ')}`);
  });
  return cameras;
}
