/**
 * OpenCap's camera parameter pickles: cameraIntrinsics.pickle (intrinsicMat, distortion,
 * imageSize) and cameraIntrinsicsExtrinsics.pickle (also rotation, translation,
 * rotation_EulerAngles), Python dicts of numpy arrays, read with the safe pickle reader.
 *
 * Conventions: imageSize is [height, width]; rotation/translation are camera-from-board (OpenCV's
 * solvePnP with the board's object points), translation in the board's units, millimetres in
 * OpenCap. Without a placement, the world is OpenCap's board frame (metres); with one, it is
 * turned into the y-up world the same way our calibration does (see calibration/extrinsics.ts).
 */
import type { CameraModel } from '../camera.ts';
import { type BoardPlacement, cameraInWorld } from '../../calibration/extrinsics.ts';
import { isNdArray, type PickleValue, readPickle } from './pickle.ts';

export interface OpenCapPickleOptions {
  name?: string;
  /** Units of the pickled translation (default 'mm', as OpenCap's board square size). */
  translationUnits?: 'mm' | 'm';
  /** Re-express the world from the board frame as Kinetrace's y-up world. */
  placement?: BoardPlacement;
}

function array(dict: Record<string, PickleValue>, key: string, length: number): Float64Array {
  const v = dict[key];
  if (!isNdArray(v)) throw new Error(`OpenCap camera pickle: "${key}" is missing or not a numpy array`);
  if (v.data.length < length)
    throw new Error(`OpenCap camera pickle: "${key}" has ${v.data.length} values, expected ${length}`);
  return Float64Array.from(Array.from(v.data as ArrayLike<number>).slice(0, length), Number);
}

export function readOpenCapCameraPickle(bytes: Uint8Array, options: OpenCapPickleOptions = {}): CameraModel {
  const value = readPickle(bytes);
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    value instanceof Uint8Array ||
    isNdArray(value)
  ) {
    throw new Error('OpenCap camera pickle: expected a dict');
  }
  const dict = value as Record<string, PickleValue>;
  const K = array(dict, 'intrinsicMat', 9);
  const d = dict.distortion;
  const distortion = new Float64Array(5);
  if (isNdArray(d))
    Array.from(d.data as ArrayLike<number>)
      .slice(0, 5)
      .forEach((v, i) => (distortion[i] = Number(v)));
  const [height, width] = array(dict, 'imageSize', 2);
  const hasPose = isNdArray(dict.rotation) && isNdArray(dict.translation);
  const scale = (options.translationUnits ?? 'mm') === 'mm' ? 1 / 1000 : 1;
  const camera: CameraModel = {
    name: options.name ?? 'camera',
    imageSize: { width: Math.round(width), height: Math.round(height) },
    intrinsics: K,
    distortion,
    rotationCameraFromWorld: hasPose ? array(dict, 'rotation', 9) : Float64Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]),
    translationCameraFromWorldM: hasPose ? array(dict, 'translation', 3).map((v) => v * scale) : new Float64Array(3),
  };
  if (hasPose && options.placement) {
    return cameraInWorld(
      camera,
      { rotation: camera.rotationCameraFromWorld, translationM: camera.translationCameraFromWorldM },
      options.placement,
    );
  }
  return camera;
}
