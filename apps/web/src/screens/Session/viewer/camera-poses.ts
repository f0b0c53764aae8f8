import type { Vec3 } from './body-motion.ts';

/** A calibrated camera where it stood: optical centre and the rays through its image corners, world metres. */
export interface CameraPose {
  name: string;
  centreM: Vec3;
  imageCornersAt(depthM: number): Vec3[];
}

interface KinetraceCameraJson {
  cameras?: {
    name: string;
    imageSize: { width: number; height: number };
    intrinsics: number[][];
    rotationCameraFromWorld: number[][];
    translationCameraFromWorldM: number[];
  }[];
}

/**
 * The cameras of a `camera-parameters` result (Kinetrace camera JSON, packages/mocap/docs/calibration.md):
 * x_camera = R x_world + t, so the centre is −Rᵀt and a pixel (u, v) looks along Rᵀ K⁻¹ (u, v, 1).
 */
export function cameraPosesOf(json: unknown): CameraPose[] {
  return ((json as KinetraceCameraJson).cameras ?? []).map((camera) => {
    const r = camera.rotationCameraFromWorld;
    const t = camera.translationCameraFromWorldM;
    const worldFromCamera = (v: Vec3): Vec3 =>
      [0, 1, 2].map((i) => r[0][i] * v[0] + r[1][i] * v[1] + r[2][i] * v[2]) as Vec3;
    const centre = worldFromCamera([-t[0], -t[1], -t[2]]);
    const [[fx, , cx], [, fy, cy]] = camera.intrinsics;
    const { width, height } = camera.imageSize;
    const corners: [number, number][] = [
      [0, 0],
      [width, 0],
      [width, height],
      [0, height],
    ];
    return {
      name: camera.name,
      centreM: centre,
      imageCornersAt: (depthM) =>
        corners.map(([u, v]) => {
          const ray = worldFromCamera([((u - cx) / fx) * depthM, ((v - cy) / fy) * depthM, depthM]);
          return [centre[0] + ray[0], centre[1] + ray[1], centre[2] + ray[2]] as Vec3;
        }),
    };
  });
}
