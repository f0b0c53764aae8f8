/**
 * Camera parameter files: one entry point that dispatches on the file name.
 *
 * | file name ends with        | format                                                        |
 * | -------------------------- | ------------------------------------------------------------- |
 * | `.json`                    | Kinetrace's own file (docs/calibration.md), read and written  |
 * | `.qca.txt`                 | Qualisys Track Manager calibration (XML), as Pose2Sim reads it |
 * | `.toml`                    | Pose2Sim's Calib.toml                                         |
 * | `.pickle`, `.pkl`          | OpenCap's cameraIntrinsics(Extrinsics).pickle (safe reader)   |
 *
 * Every reader returns the world in metres, y up (OpenSim), unless told otherwise.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { CameraModel } from '../camera.ts';
import { checkCameras } from './camera-checks.ts';
import { readKinetraceCameras, writeKinetraceCameras } from './kinetrace-json.ts';
import { type OpenCapPickleOptions, readOpenCapCameraPickle } from './opencap-pickle.ts';
import { type Pose2SimTomlOptions, readPose2SimToml } from './pose2sim-toml.ts';
import { readQualisysCalibration, type QualisysReadOptions } from './qualisys.ts';

export { readQualisysCalibration } from './qualisys.ts';
export type { QualisysReadOptions } from './qualisys.ts';
export { readKinetraceCameras, writeKinetraceCameras } from './kinetrace-json.ts';
export { readPose2SimToml } from './pose2sim-toml.ts';
export { readOpenCapCameraPickle } from './opencap-pickle.ts';
export { readPickle } from './pickle.ts';
export { CameraParametersError, checkCameras } from './camera-checks.ts';

export interface ReadCameraFileOptions {
  /** Qualisys: the binning factor (default 1) and the world's up axis (default 'y'). */
  qualisys?: QualisysReadOptions;
  /** Pose2Sim .toml: the world's up axis (default 'y'). */
  pose2sim?: Pose2SimTomlOptions;
  /** OpenCap pickles: camera name (default: the file's folder name), units, board placement. */
  opencap?: OpenCapPickleOptions;
}

/** The formats `readCameraFile` understands, by how the file name ends (lower case). */
export const cameraFileExtensions = ['.json', '.qca.txt', '.toml', '.pickle', '.pkl'] as const;

/** Reads every camera of a camera parameter file, choosing the reader from the file name. */
export async function readCameraFile(path: string, options: ReadCameraFileOptions = {}): Promise<CameraModel[]> {
  return readCameraData(path, new Uint8Array(await readFile(path)), options);
}

/**
 * Reads every camera of a camera parameter file's contents, choosing the reader from its file name
 * (`path`: an OpenCap pickle's camera is named after its folder unless `options.opencap.name` says),
 * and checks each against the contracts' camera schema (CameraParametersError says what is wrong).
 */
export function readCameraData(path: string, bytes: Uint8Array, options: ReadCameraFileOptions = {}): CameraModel[] {
  return checkCameras(readCameraDataUnchecked(path, bytes, options));
}

function readCameraDataUnchecked(path: string, bytes: Uint8Array, options: ReadCameraFileOptions): CameraModel[] {
  const name = basename(path).toLowerCase();
  const text = () => new TextDecoder().decode(bytes);
  if (name.endsWith('.qca.txt')) return readQualisysCalibration(text(), options.qualisys);
  if (name.endsWith('.toml')) return readPose2SimToml(text(), options.pose2sim);
  if (name.endsWith('.json')) return readKinetraceCameras(text());
  if (name.endsWith('.pickle') || name.endsWith('.pkl')) {
    const folder = basename(dirname(path)) || 'camera';
    return [readOpenCapCameraPickle(bytes, { name: folder === '.' ? 'camera' : folder, ...options.opencap })];
  }
  throw new Error(
    `Cannot read camera parameters from "${path}": unknown file type. Supported: ${cameraFileExtensions.join(', ')}`,
  );
}

/** Writes cameras to Kinetrace's JSON camera file (with optional calibration metadata). */
export async function writeCameraFile(
  path: string,
  cameras: CameraModel[],
  calibration?: Record<string, unknown>,
): Promise<void> {
  if (!path.toLowerCase().endsWith('.json'))
    throw new Error(`Camera files are written as Kinetrace JSON: "${path}" must end with .json`);
  await writeFile(path, writeKinetraceCameras(cameras, calibration));
}
