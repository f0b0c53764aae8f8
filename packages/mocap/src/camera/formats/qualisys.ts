/**
 * Qualisys Track Manager calibration files (`.qca.txt`, XML), as Pose2Sim reads them.
 *
 * Conventions of the file, and what we do with them (matching Pose2Sim's `read_qca` +
 * `calib_qca_fun`, so that projecting with our CameraModel reproduces Pose2Sim's projections):
 * - `<transform>`: x, y, z is the camera centre in the lab (world) frame, in millimetres; the
 *   matrix r11..r33 (row-major) maps world axes to Qualisys camera axes, whose y points up and z
 *   backwards (away from the scene). Rotating by π about the camera x axis gives OpenCV's camera
 *   axes (x right, y down, z forward): R = diag(1, -1, -1) · r, t = -R · centre / 1000.
 * - `<intrinsic>`: focal lengths, principal point and distortion are stored in sub-pixel units,
 *   64 per pixel; we divide by 64 (and by the binning factor when the video was binned, e.g. 540p
 *   on a 1080p sensor). The principal point is relative to the sensor, so the video window's
 *   `fov_video` left/top is subtracted. radialDistortion3 is ignored, as Pose2Sim does.
 * - Image size: `fov_video` right − left + 1 by bottom − top + 1 (the bounds are inclusive), in
 *   the orientation the video is stored in (a portrait phone video has width < height here).
 * - Distortion: Pose2Sim divides it by 64 too; on its demo file the raw values match a lens
 *   calibration of the demo's checkerboard images, so `distortion: 'raw'` is offered.
 * - The lab frame of a Qualisys system is z up. Kinetrace's world is OpenSim's, y up, so by default
 *   the world is re-expressed as Pose2Sim does for its .trc files (zup2yup): (X, Y, Z)_yup =
 *   (Y, Z, X)_zup. Pass `worldUp: 'z'` to keep the lab frame.
 * - Only video cameras are kept (model containing "video", or "none" as Pose2Sim writes), sorted by
 *   serial in natural order (cam2 before cam10); when no camera qualifies, all are kept.
 */
import type { CameraModel } from '../camera.ts';
import { xmlElements, type XmlElement } from './xml-attributes.ts';

export interface QualisysReadOptions {
  /** 1 unless the video was binned (2 for 540p on a 1080p sensor). */
  binningFactor?: number;
  /** 'y' (default): Kinetrace/OpenSim world, y up. 'z': the lab's own z-up frame. */
  worldUp?: 'y' | 'z';
  /**
   * 'pose2sim' (default): distortion divided by 64 like the intrinsics, as Pose2Sim reads it.
   * 'raw': the file's values as they are (for the Pose2Sim demo these match a lens calibration of
   * its own checkerboard images; see docs/calibration.md).
   */
  distortion?: 'pose2sim' | 'raw';
}

interface QcaCamera {
  camera: XmlElement;
  fovVideo?: XmlElement;
  transform?: XmlElement;
  intrinsic?: XmlElement;
}

function numberAttribute(element: XmlElement | undefined, name: string, context: string, fallback?: number): number {
  const raw = element?.attributes[name];
  if (raw === undefined || raw.trim() === '' || raw === 'none') {
    if (fallback !== undefined) return fallback;
    throw new Error(`Qualisys calibration: ${context} has no "${name}" attribute`);
  }
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`Qualisys calibration: ${context} "${name}" is not a number: ${raw}`);
  return value;
}

/** Compares camera serials in natural order: numbers by value, text case-insensitively. */
export function naturalCompare(a: string, b: string): number {
  const split = (s: string) => s.split(/(\d+)/).map((part) => (/^\d+$/.test(part) ? Number(part) : part.toLowerCase()));
  const pa = split(a);
  const pb = split(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Reads a Qualisys `.qca.txt` calibration into camera models (world in metres). */
export function readQualisysCalibration(text: string, options: QualisysReadOptions = {}): CameraModel[] {
  const binning = options.binningFactor ?? 1;
  if (!(binning > 0)) throw new Error(`Qualisys calibration: binning factor must be positive, got ${binning}`);
  const worldUp = options.worldUp ?? 'y';
  const elements = xmlElements(text);
  if (!elements.some((e) => e.name === 'calibration')) {
    throw new Error('Qualisys calibration: no <calibration> element; is this a .qca.txt file?');
  }
  const cameras: QcaCamera[] = [];
  for (const element of elements) {
    if (element.name === 'camera') cameras.push({ camera: element });
    const current = cameras[cameras.length - 1];
    if (!current) continue;
    if (element.name === 'fov_video') current.fovVideo = element;
    else if (element.name === 'transform') current.transform = element;
    else if (element.name === 'intrinsic') current.intrinsic = element;
  }
  if (cameras.length === 0) throw new Error('Qualisys calibration: no <camera> element');

  const isVideo = (c: QcaCamera) => {
    const model = (c.camera.attributes.model ?? '').toLowerCase();
    return model.includes('video') || model.includes('none');
  };
  const selected = cameras.some(isVideo) ? cameras.filter(isVideo) : cameras;
  const named = selected.map((c, index) => ({ c, name: c.camera.attributes.serial ?? `camera${index + 1}` }));
  named.sort((a, b) => naturalCompare(a.name, b.name));

  return named.map(({ c, name }) => {
    const ctx = `camera "${name}"`;
    const left = numberAttribute(c.fovVideo, 'left', `${ctx} fov_video`);
    const top = numberAttribute(c.fovVideo, 'top', `${ctx} fov_video`);
    const right = numberAttribute(c.fovVideo, 'right', `${ctx} fov_video`);
    const bottom = numberAttribute(c.fovVideo, 'bottom', `${ctx} fov_video`);
    const width = Math.round((right - left + 1) / binning);
    const height = Math.round((bottom - top + 1) / binning);

    const scale = 64 * binning;
    const distortionScale = options.distortion === 'raw' ? 1 : scale;
    const intrinsic = (key: string, fallback?: number) =>
      numberAttribute(c.intrinsic, key, `${ctx} intrinsic`, fallback);
    const fu = intrinsic('focalLengthU') / scale;
    const fv = intrinsic('focalLengthV') / scale;
    const cu = intrinsic('centerPointU') / scale - left;
    const cv = intrinsic('centerPointV') / scale - top;
    const distortion = Float64Array.from([
      intrinsic('radialDistortion1', 0) / distortionScale,
      intrinsic('radialDistortion2', 0) / distortionScale,
      intrinsic('tangentalDistortion1', 0) / distortionScale,
      intrinsic('tangentalDistortion2', 0) / distortionScale,
      0,
    ]);

    const tr = (key: string) => numberAttribute(c.transform, key, `${ctx} transform`);
    const m = [tr('r11'), tr('r12'), tr('r13'), tr('r21'), tr('r22'), tr('r23'), tr('r31'), tr('r32'), tr('r33')];
    // OpenCV camera axes: flip the Qualisys camera's y and z.
    const rLab = [m[0], m[1], m[2], -m[3], -m[4], -m[5], -m[6], -m[7], -m[8]];
    const centreLab = [tr('x') / 1000, tr('y') / 1000, tr('z') / 1000];
    // Re-express the world: P_lab = B · P_world. For y up, B = [[0,0,1],[1,0,0],[0,1,0]], so the
    // columns of R = R_lab · B are R_lab's columns (1, 2, 0), and centre_world = Bᵀ · centre_lab.
    const rotation =
      worldUp === 'y' ? [rLab[1], rLab[2], rLab[0], rLab[4], rLab[5], rLab[3], rLab[7], rLab[8], rLab[6]] : rLab;
    const centre = worldUp === 'y' ? [centreLab[1], centreLab[2], centreLab[0]] : centreLab;
    const translation = [0, 1, 2].map(
      (row) => -(rotation[row * 3] * centre[0] + rotation[row * 3 + 1] * centre[1] + rotation[row * 3 + 2] * centre[2]),
    );
    return {
      name,
      imageSize: { width, height },
      intrinsics: Float64Array.from([fu, 0, cu, 0, fv, cv, 0, 0, 1]),
      distortion,
      rotationCameraFromWorld: Float64Array.from(rotation),
      translationCameraFromWorldM: Float64Array.from(translation),
    };
  });
}
