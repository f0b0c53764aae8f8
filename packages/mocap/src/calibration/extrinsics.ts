/**
 * Camera pose from one view of a planar board: IPPE (Collins & Bartoli 2014), which gives the
 * two poses a planar target is ambiguous between, each refined by Levenberg-Marquardt on the
 * reprojection error (lens distortion included); and the world frame from the board's placement.
 *
 * Board frame B (see checkerboard.ts): origin at corner 0, X along the first row, Y along the
 * first column, Z = X × Y pointing away from the cameras; metres.
 *
 * World frame (Kinetrace = OpenSim convention, as OpenCap builds it from the board):
 * y up, x forward (from the board towards the cameras), z = x × y; origin at the board's corner 0.
 * - 'Perpendicular' (board standing vertically, e.g. against a wall): x = −Z_B (towards the
 *   cameras); y = the in-plane board axis (±X_B or ±Y_B) that points most upwards in the image
 *   (phones are upright). For the usual landscape board this is exactly OpenCap's 'backWall'
 *   rotation: {y: 90°, z: 180°} when Y_B points down in the image, {y: −90°} when the board is
 *   upside down (OpenCap's isCheckerboardUpsideDown).
 * - 'Lying' (board flat on the ground): y = −Z_B (up, since Z_B points away from the cameras,
 *   into the floor), x = Y_B, z = −X_B: OpenCap's 'ground' rotation {x: 90°, y: 90°} for this
 *   handedness. With rows + cols odd the origin corner is fixed by the square colours, so every
 *   camera finds the same world frame.
 */
import { type CameraModel, projectPoint, undistortPixel } from '../camera/camera.ts';
import { fitHomography, matrixToRodrigues, multiply3, rodriguesToMatrix, solveLinear } from './linalg.ts';

export type BoardPlacement = 'Perpendicular' | 'Lying';

export interface PoseSolution {
  /** Camera from board. */
  rotation: Float64Array;
  /** Camera from board, metres. */
  translationM: Float64Array;
  /** RMS reprojection error of the board corners, pixels. */
  rmsPx: number;
}

/** Cross product. */
function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/** Rotation that takes the unit vector d to the z axis (smallest rotation). */
function rotateToZ(d: number[]): number[] {
  const [x, y, z] = d;
  const s = Math.hypot(x, y);
  if (s < 1e-12) return z >= 0 ? [1, 0, 0, 0, 1, 0, 0, 0, 1] : [1, 0, 0, 0, -1, 0, 0, 0, -1];
  // Axis = d × z normalised, angle = acos(z).
  const axis = [y / s, -x / s, 0];
  const angle = Math.acos(Math.max(-1, Math.min(1, z)));
  return rodriguesToMatrix([axis[0] * angle, axis[1] * angle, 0]);
}

/** Object points (flat [X, Y, Z], Z = 0) and pixels → the two IPPE poses, before refinement. */
function ippe(objectXY: number[], normalised: number[], count: number): { R: number[]; t: number[] }[] {
  let mx = 0;
  let my = 0;
  for (let i = 0; i < count; i++) {
    mx += objectXY[2 * i];
    my += objectXY[2 * i + 1];
  }
  mx /= count;
  my /= count;
  const centred = objectXY.map((v, i) => v - (i % 2 === 0 ? mx : my));
  const H = fitHomography(centred, normalised, count);
  if (!H) return [];
  // Image of the (centred) origin, and the Jacobian of the homography there.
  const p = H[2];
  const q = H[5];
  const J = [H[0] - H[6] * H[2], H[1] - H[7] * H[2], H[3] - H[6] * H[5], H[4] - H[7] * H[5]];
  const n = Math.hypot(p, q, 1);
  const Rv = rotateToZ([p / n, q / n, 1 / n]);
  // C = B · Rvᵀ with B = [[1, 0, −p], [0, 1, −q]]; its third column vanishes.
  const RvT = [Rv[0], Rv[3], Rv[6], Rv[1], Rv[4], Rv[7], Rv[2], Rv[5], Rv[8]];
  const c00 = RvT[0] - p * RvT[6];
  const c01 = RvT[1] - p * RvT[7];
  const c10 = RvT[3] - q * RvT[6];
  const c11 = RvT[4] - q * RvT[7];
  const det = c00 * c11 - c01 * c10;
  if (Math.abs(det) < 1e-15) return [];
  const ci = [c11 / det, -c01 / det, -c10 / det, c00 / det];
  const a00 = ci[0] * J[0] + ci[1] * J[2];
  const a01 = ci[0] * J[1] + ci[1] * J[3];
  const a10 = ci[2] * J[0] + ci[3] * J[2];
  const a11 = ci[2] * J[1] + ci[3] * J[3];
  const ata00 = a00 * a00 + a10 * a10;
  const ata01 = a00 * a01 + a10 * a11;
  const ata11 = a01 * a01 + a11 * a11;
  const gamma2 = 0.5 * (ata00 + ata11 + Math.sqrt((ata00 - ata11) ** 2 + 4 * ata01 * ata01));
  if (!(gamma2 > 0)) return [];
  const gamma = Math.sqrt(gamma2);
  const r00 = a00 / gamma;
  const r01 = a01 / gamma;
  const r10 = a10 / gamma;
  const r11 = a11 / gamma;
  const b0 = Math.sqrt(Math.max(0, 1 - r00 * r00 - r10 * r10));
  let b1 = Math.sqrt(Math.max(0, 1 - r01 * r01 - r11 * r11));
  if (-(r00 * r01 + r10 * r11) < 0) b1 = -b1;
  const solutions: { R: number[]; t: number[] }[] = [];
  for (const sign of [1, -1]) {
    const c1 = [r00, r10, sign * b0];
    const c2 = [r01, r11, sign * b1];
    const c3 = cross(c1, c2);
    const Rp = [c1[0], c2[0], c3[0], c1[1], c2[1], c3[1], c1[2], c2[2], c3[2]];
    const Rc = multiply3(RvT, Rp); // camera from centred board
    // Translation by linear least squares, for the board's own origin (undo the centring).
    const t = translationFor(Rc, centred, normalised, count);
    if (!t) continue;
    const tOrigin = [
      t[0] - (Rc[0] * mx + Rc[1] * my),
      t[1] - (Rc[3] * mx + Rc[4] * my),
      t[2] - (Rc[6] * mx + Rc[7] * my),
    ];
    solutions.push({ R: Rc, t: tOrigin });
  }
  return solutions;
}

function translationFor(R: number[], objectXY: number[], normalised: number[], count: number): number[] | null {
  const ata = new Float64Array(9);
  const atb = new Float64Array(3);
  for (let i = 0; i < count; i++) {
    const X = objectXY[2 * i];
    const Y = objectXY[2 * i + 1];
    const u = normalised[2 * i];
    const v = normalised[2 * i + 1];
    const rx = R[0] * X + R[1] * Y;
    const ry = R[3] * X + R[4] * Y;
    const rz = R[6] * X + R[7] * Y;
    // tx − u tz = u rz − rx ; ty − v tz = v rz − ry
    const rows: [number[], number][] = [
      [[1, 0, -u], u * rz - rx],
      [[0, 1, -v], v * rz - ry],
    ];
    for (const [a, b] of rows) {
      for (let r = 0; r < 3; r++) {
        atb[r] += a[r] * b;
        for (let c = 0; c < 3; c++) ata[r * 3 + c] += a[r] * a[c];
      }
    }
  }
  return solveLinear(ata, atb, 3);
}

function withPose(camera: CameraModel, R: ArrayLike<number>, t: ArrayLike<number>): CameraModel {
  return {
    ...camera,
    rotationCameraFromWorld: Float64Array.from(R),
    translationCameraFromWorldM: Float64Array.from(t),
  };
}

/** RMS reprojection error (pixels) of object points (flat XYZ) against pixels (flat xy). */
export function reprojectionRms(
  camera: CameraModel,
  objectPoints: ArrayLike<number>,
  pixels: ArrayLike<number>,
): number {
  const n = pixels.length / 2;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const p = projectPoint(camera, [objectPoints[3 * i], objectPoints[3 * i + 1], objectPoints[3 * i + 2]]);
    if (!p) return Infinity;
    sq += (p[0] - pixels[2 * i]) ** 2 + (p[1] - pixels[2 * i + 1]) ** 2;
  }
  return Math.sqrt(sq / n);
}

/** Levenberg-Marquardt on (Rodrigues vector, translation) minimising the reprojection error. */
export function refinePose(
  camera: CameraModel,
  objectPoints: ArrayLike<number>,
  pixels: ArrayLike<number>,
  R0: ArrayLike<number>,
  t0: ArrayLike<number>,
  iterations = 50,
): { R: number[]; t: number[]; rms: number } {
  const n = pixels.length / 2;
  let params = [...matrixToRodrigues(R0), t0[0], t0[1], t0[2]];
  const residuals = (x: number[]): number[] | null => {
    const cam = withPose(camera, rodriguesToMatrix(x), x.slice(3));
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const p = projectPoint(cam, [objectPoints[3 * i], objectPoints[3 * i + 1], objectPoints[3 * i + 2]]);
      if (!p) return null;
      out.push(p[0] - pixels[2 * i], p[1] - pixels[2 * i + 1]);
    }
    return out;
  };
  const cost = (r: number[]) => r.reduce((s, v) => s + v * v, 0);
  let r = residuals(params);
  if (!r) return { R: Array.from(R0), t: Array.from(t0), rms: Infinity };
  let c = cost(r);
  let lambda = 1e-3;
  for (let it = 0; it < iterations; it++) {
    // Numeric Jacobian (central differences).
    const J: number[][] = [];
    for (let k = 0; k < 6; k++) {
      const h = k < 3 ? 1e-6 : 1e-6 * Math.max(1, Math.abs(params[5]));
      const plus = params.slice();
      const minus = params.slice();
      plus[k] += h;
      minus[k] -= h;
      const rp = residuals(plus);
      const rm = residuals(minus);
      if (!rp || !rm) return { R: rodriguesToMatrix(params), t: params.slice(3), rms: Math.sqrt(c / n) };
      J.push(rp.map((v, i) => (v - rm[i]) / (2 * h)));
    }
    const jtj = new Float64Array(36);
    const jtr = new Float64Array(6);
    for (let a = 0; a < 6; a++) {
      for (let i = 0; i < r.length; i++) jtr[a] += J[a][i] * r[i];
      for (let b = 0; b < 6; b++) {
        let s = 0;
        for (let i = 0; i < r.length; i++) s += J[a][i] * J[b][i];
        jtj[a * 6 + b] = s;
      }
    }
    let improved = false;
    for (let attempt = 0; attempt < 10; attempt++) {
      const damped = Float64Array.from(jtj);
      for (let a = 0; a < 6; a++) damped[a * 6 + a] *= 1 + lambda;
      const step = solveLinear(
        damped,
        Array.from(jtr, (v) => -v),
        6,
      );
      if (!step) break;
      const candidate = params.map((v, k) => v + step[k]);
      const rc = residuals(candidate);
      if (rc && cost(rc) < c) {
        const gain = c - cost(rc);
        params = candidate;
        r = rc;
        c = cost(rc);
        lambda = Math.max(1e-9, lambda / 5);
        improved = true;
        if (gain < 1e-12 * Math.max(1, c)) it = iterations;
        break;
      }
      lambda *= 10;
    }
    if (!improved) break;
  }
  return { R: rodriguesToMatrix(params), t: params.slice(3), rms: Math.sqrt(c / n) };
}

/**
 * Both poses of a planar board (object points on Z = 0, flat XYZ in metres) seen at `pixels`
 * by a camera with known intrinsics and distortion, best first. The second is the mirror-like
 * ambiguity of planar targets; keep it and let a later stage choose (e.g. the solution that gives
 * the lowest reprojection error of the neutral trial's keypoints).
 */
export function solvePlanarPose(
  camera: CameraModel,
  objectPoints: ArrayLike<number>,
  pixels: ArrayLike<number>,
): PoseSolution[] {
  const n = pixels.length / 2;
  if (n < 4 || objectPoints.length !== 3 * n) throw new Error(`solvePlanarPose needs ≥ 4 matching points, got ${n}`);
  for (let i = 0; i < n; i++) {
    if (Math.abs(objectPoints[3 * i + 2]) > 1e-12)
      throw new Error('solvePlanarPose needs planar object points (Z = 0)');
  }
  const objectXY: number[] = [];
  const normalised: number[] = [];
  for (let i = 0; i < n; i++) {
    objectXY.push(objectPoints[3 * i], objectPoints[3 * i + 1]);
    const [x, y] = undistortPixel(camera, pixels[2 * i], pixels[2 * i + 1], 20);
    normalised.push(x, y);
  }
  const initial = ippe(objectXY, normalised, n);
  const solutions: PoseSolution[] = initial.map(({ R, t }) => {
    const refined = refinePose(camera, objectPoints, pixels, R, t);
    return { rotation: Float64Array.from(refined.R), translationM: Float64Array.from(refined.t), rmsPx: refined.rms };
  });
  solutions.sort((a, b) => a.rmsPx - b.rmsPx);
  return solutions;
}

/**
 * World-from-board axes: returns R_BW, the columns of which are the world x, y, z axes in board
 * coordinates (p_B = R_BW · p_W; the origins coincide). `cameraFromBoard` decides which board
 * axis is up for a Perpendicular board.
 */
export function boardToWorldAxes(placement: BoardPlacement, cameraFromBoard: ArrayLike<number>): number[] {
  let x: number[];
  let y: number[];
  if (placement === 'Lying') {
    x = [0, 1, 0];
    y = [0, 0, -1];
  } else if (placement === 'Perpendicular') {
    x = [0, 0, -1];
    // Image up is −y of the camera; in board coordinates that is −(row 2 of R_CB).
    const up = [-cameraFromBoard[3], -cameraFromBoard[4], -cameraFromBoard[5]];
    const axes = [
      [1, 0, 0],
      [-1, 0, 0],
      [0, 1, 0],
      [0, -1, 0],
    ];
    y = axes.reduce((best, a) => (a[0] * up[0] + a[1] * up[1] > best[0] * up[0] + best[1] * up[1] ? a : best));
  } else {
    throw new Error(`Unknown board placement "${String(placement)}": use 'Perpendicular' or 'Lying'`);
  }
  const z = cross(x, y);
  return [x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]];
}

/** Camera extrinsics in the world frame from a camera-from-board pose and the board placement. */
export function cameraInWorld(
  camera: CameraModel,
  pose: Pick<PoseSolution, 'rotation' | 'translationM'>,
  placement: BoardPlacement,
): CameraModel {
  const Rbw = boardToWorldAxes(placement, pose.rotation);
  return withPose(camera, multiply3(pose.rotation, Rbw), pose.translationM);
}

/**
 * Focal length from one view of a board (fallback when no lens calibration is available):
 * principal point at the image centre, square pixels, no distortion; Zhang's two constraints on
 * the board homography solved for 1/f² in least squares. Needs a board that is tilted relative to
 * the image plane (a board facing the camera squarely leaves the focal length undetermined).
 */
export function focalFromBoardHomography(
  objectPoints: ArrayLike<number>,
  pixels: ArrayLike<number>,
  imageSize: { width: number; height: number },
): number {
  const n = pixels.length / 2;
  const cx = (imageSize.width - 1) / 2;
  const cy = (imageSize.height - 1) / 2;
  const src: number[] = [];
  const dst: number[] = [];
  for (let i = 0; i < n; i++) {
    src.push(objectPoints[3 * i], objectPoints[3 * i + 1]);
    dst.push(pixels[2 * i] - cx, pixels[2 * i + 1] - cy);
  }
  const H = fitHomography(src, dst, n);
  if (!H) throw new Error('Cannot estimate the focal length: the board corners are degenerate');
  const [h11, h12, , h21, h22, , h31, h32] = H;
  // a · (1/f²) + b = 0 for each constraint.
  const constraints = [
    [h11 * h12 + h21 * h22, h31 * h32],
    [h11 * h11 + h21 * h21 - h12 * h12 - h22 * h22, h31 * h31 - h32 * h32],
  ];
  // Scale-free weighting: each constraint normalised by the magnitude of its image terms.
  let num = 0;
  let den = 0;
  for (const [a, b] of constraints) {
    num += a * b;
    den += a * a;
  }
  const invF2 = -num / den;
  const f = 1 / Math.sqrt(invF2);
  const diagonal = Math.hypot(imageSize.width, imageSize.height);
  if (!(invF2 > 0) || !Number.isFinite(f) || f < 0.2 * diagonal || f > 20 * diagonal) {
    throw new Error(
      'Cannot estimate the focal length from this view: the board faces the camera too squarely. ' +
        'Tilt the board (or the camera) by 20-45° or calibrate the lens first (kinetrace calibrate).',
    );
  }
  return f;
}
