/**
 * Pose2Sim's calibration file (Calib.toml): one table per camera with
 *   name, size = [width, height], matrix = K (3 x 3, px), distortions = [k1, k2, p1, p2],
 *   rotation = Rodrigues vector (camera from world), translation = metres, fisheye = false
 * and a [metadata] table. Pose2Sim's world is the lab's, z up (Qualisys, or its board-based
 * extrinsics); its .trc outputs are turned y up (zup2yup). By default the world is re-expressed
 * y up the same way, so our cameras project Pose2Sim's .trc directly: (X, Y, Z)_yup = (Y, Z, X)_zup.
 */
import { parse as parseToml, TomlError, type TomlTable, type TomlValue } from 'smol-toml';
import type { CameraModel } from '../camera.ts';
import { rodriguesToMatrix } from '../../calibration/linalg.ts';
import { refuseUnsafeKeysIn, UnsafeKeyError } from '../../formats/unsafe-keys.ts';

/** Arrays and tables nest two deep in a Calib.toml (the matrix); anything far deeper is not one. */
const MAX_TOML_DEPTH = 8;

/**
 * Parses the TOML text with smol-toml (tables without prototypes), refusing __proto__, constructor
 * and prototype as names (issue 20: a hand-written reader walked `[__proto__]` into Object.prototype).
 */
function readToml(text: string): TomlTable {
  let doc: TomlTable;
  try {
    doc = parseToml(text, { unsafeKeyBehaviour: 'throw', maxDepth: MAX_TOML_DEPTH });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const where = `Pose2Sim calibration, line ${error.line}`;
    if (/unsafe property/.test(error.message)) {
      const line = text.split('\n')[error.line - 1] ?? '';
      throw new UnsafeKeyError(line.includes('constructor') ? 'constructor' : '__proto__', where);
    }
    throw new Error(`${where}: ${error.message.split('\n')[0]}`);
  }
  refuseUnsafeKeysIn(doc, 'Pose2Sim calibration');
  return doc;
}

export interface Pose2SimTomlOptions {
  /** 'y' (default): Kinetrace/OpenSim world, y up. 'z': Pose2Sim's own z-up frame. */
  worldUp?: 'y' | 'z';
}

function numbers(value: TomlValue | undefined, length: number, what: string): number[] {
  const flat = Array.isArray(value) ? (value.flat(2) as unknown[]) : [];
  if (flat.length !== length || !flat.every((v) => typeof v === 'number')) {
    throw new Error(`Pose2Sim calibration: ${what} must be ${length} numbers`);
  }
  return flat as number[];
}

/** Re-expresses a z-up world y up: R' = R · B with P_zup = B · P_yup. */
export function zUpToYUpRotation(R: ArrayLike<number>): number[] {
  return [R[1], R[2], R[0], R[4], R[5], R[3], R[7], R[8], R[6]];
}

export function readPose2SimToml(text: string, options: Pose2SimTomlOptions = {}): CameraModel[] {
  const doc = readToml(text);
  const cameras: CameraModel[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'metadata' || typeof value !== 'object' || Array.isArray(value)) continue;
    const table = value as TomlTable;
    if (!('matrix' in table)) continue;
    const name = typeof table.name === 'string' ? table.name : key;
    if (table.fisheye === true)
      throw new Error(`Pose2Sim calibration: camera "${name}" is a fisheye model, which Kinetrace does not support`);
    const [width, height] = numbers(table.size, 2, `camera "${name}" size`);
    const K = numbers(table.matrix, 9, `camera "${name}" matrix`);
    const d = Array.isArray(table.distortions) ? (table.distortions as number[]) : [];
    const rvec = numbers(table.rotation, 3, `camera "${name}" rotation (Rodrigues vector)`);
    const t = numbers(table.translation, 3, `camera "${name}" translation`);
    const Rz = rodriguesToMatrix(rvec);
    const R = (options.worldUp ?? 'y') === 'y' ? zUpToYUpRotation(Rz) : Rz;
    cameras.push({
      name,
      imageSize: { width: Math.round(width), height: Math.round(height) },
      intrinsics: Float64Array.from(K),
      distortion: Float64Array.from({ length: 5 }, (_, i) => (typeof d[i] === 'number' ? d[i] : 0)),
      rotationCameraFromWorld: Float64Array.from(R),
      // The translation is unchanged: only the world's axes are renamed, not the origin moved.
      translationCameraFromWorldM: Float64Array.from(t),
    });
  }
  if (cameras.length === 0) throw new Error('Pose2Sim calibration: no camera table (with a "matrix") found');
  return cameras;
}
