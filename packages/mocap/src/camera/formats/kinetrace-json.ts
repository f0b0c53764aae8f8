/**
 * Kinetrace's own camera parameter file (JSON), documented in packages/mocap/docs/calibration.md.
 *
 * {
 *   "format": "kinetrace.cameras", "version": 1,
 *   "cameras": [{
 *     "name": "cam01",
 *     "imageSize": { "width": 1080, "height": 1920 },
 *     "intrinsics": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],        // pixels
 *     "distortion": [k1, k2, p1, p2, k3],                          // OpenCV model
 *     "rotationCameraFromWorld": [[r11, r12, r13], [...], [...]],
 *     "translationCameraFromWorldM": [tx, ty, tz]                  // metres
 *   }],
 *   "calibration": { ... }                                         // optional, free-form metadata
 * }
 * World: metres, y up (OpenSim). Pixel centres at integer coordinates (OpenCV).
 */
import type { CameraModel } from '../camera.ts';
import { refuseUnsafeKey, UnsafeKeyError } from '../../formats/unsafe-keys.ts';

export const KINETRACE_CAMERAS_FORMAT = 'kinetrace.cameras';
export const KINETRACE_CAMERAS_VERSION = 1;

export interface KinetraceCameraFile {
  format: typeof KINETRACE_CAMERAS_FORMAT;
  version: number;
  cameras: {
    name: string;
    imageSize: { width: number; height: number };
    intrinsics: number[][];
    distortion: number[];
    rotationCameraFromWorld: number[][];
    translationCameraFromWorldM: number[];
  }[];
  calibration?: Record<string, unknown>;
}

const rows3 = (m: ArrayLike<number>) => [0, 1, 2].map((r) => [m[r * 3], m[r * 3 + 1], m[r * 3 + 2]]);

/** Serialises cameras (and optional metadata such as RMS errors) to the Kinetrace JSON text. */
export function writeKinetraceCameras(cameras: CameraModel[], calibration?: Record<string, unknown>): string {
  const file: KinetraceCameraFile = {
    format: KINETRACE_CAMERAS_FORMAT,
    version: KINETRACE_CAMERAS_VERSION,
    cameras: cameras.map((c) => ({
      name: c.name,
      imageSize: { width: c.imageSize.width, height: c.imageSize.height },
      intrinsics: rows3(c.intrinsics),
      distortion: Array.from({ length: 5 }, (_, i) => c.distortion[i] ?? 0),
      rotationCameraFromWorld: rows3(c.rotationCameraFromWorld),
      translationCameraFromWorldM: Array.from(c.translationCameraFromWorldM),
    })),
    ...(calibration ? { calibration } : {}),
  };
  // Two-space indentation, with arrays of numbers kept on one line (matrices read row by row).
  const text = JSON.stringify(file, null, 2).replace(
    /\[\s+([-+0-9.eE,\s]+?)\s+\]/g,
    (_, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`,
  );
  return `${text}\n`;
}

function matrix3(value: unknown, what: string): Float64Array {
  const flat =
    Array.isArray(value) && value.length === 3 && value.every(Array.isArray) ? (value as unknown[][]).flat() : value;
  if (!Array.isArray(flat) || flat.length !== 9 || !flat.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new Error(`Kinetrace camera file: ${what} must be a 3 x 3 matrix of numbers`);
  }
  return Float64Array.from(flat as number[]);
}

function vector(value: unknown, length: number, what: string, allowShorter = false): Float64Array {
  if (
    !Array.isArray(value) ||
    (allowShorter ? value.length > length : value.length !== length) ||
    !value.every((v) => typeof v === 'number' && Number.isFinite(v))
  ) {
    throw new Error(`Kinetrace camera file: ${what} must be ${length} numbers`);
  }
  const out = new Float64Array(length);
  out.set(value as number[]);
  return out;
}

/** Parses the Kinetrace JSON camera file. */
export function readKinetraceCameras(text: string): CameraModel[] {
  let json: unknown;
  try {
    // JSON.parse keeps "__proto__" an own key, but whoever copies the object next may not: refused here.
    json = JSON.parse(text, (key: string, value: unknown) => {
      refuseUnsafeKey(key, 'Kinetrace camera file');
      return value;
    });
  } catch (error) {
    if (error instanceof UnsafeKeyError) throw error;
    throw new Error(`Kinetrace camera file is not valid JSON: ${(error as Error).message}`);
  }
  const file = json as Partial<KinetraceCameraFile>;
  if (file?.format !== KINETRACE_CAMERAS_FORMAT)
    throw new Error(`Not a Kinetrace camera file: "format" must be "${KINETRACE_CAMERAS_FORMAT}"`);
  if (typeof file.version !== 'number' || file.version > KINETRACE_CAMERAS_VERSION) {
    throw new Error(
      `Kinetrace camera file version ${String(file.version)} is not supported (this reader: ${KINETRACE_CAMERAS_VERSION})`,
    );
  }
  if (!Array.isArray(file.cameras) || file.cameras.length === 0)
    throw new Error('Kinetrace camera file has no cameras');
  return file.cameras.map((c, i) => {
    const name = typeof c.name === 'string' ? c.name : `camera${i + 1}`;
    const size = c.imageSize;
    if (!size || !(size.width > 0) || !(size.height > 0))
      throw new Error(`Kinetrace camera file: camera "${name}" needs imageSize width and height`);
    return {
      name,
      imageSize: { width: size.width, height: size.height },
      intrinsics: matrix3(c.intrinsics, `camera "${name}" intrinsics`),
      distortion: vector(c.distortion, 5, `camera "${name}" distortion (k1, k2, p1, p2, k3)`, true),
      rotationCameraFromWorld: matrix3(c.rotationCameraFromWorld, `camera "${name}" rotationCameraFromWorld`),
      translationCameraFromWorldM: vector(
        c.translationCameraFromWorldM,
        3,
        `camera "${name}" translationCameraFromWorldM`,
      ),
    };
  });
}
