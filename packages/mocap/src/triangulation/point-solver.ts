import { undistortPixel, type CameraModel } from '../camera/camera.ts';
import { dltNullVector } from './dlt-null-vector.ts';

/**
 * Confidence-weighted linear triangulation (DLT, Hartley & Zisserman, Multiple View Geometry, §12.2)
 * of one observation (a keypoint in a frame) from any subset of the cameras, and the reprojection
 * error of the point found in each camera. Pixels are undistorted once to normalised image
 * coordinates, so each camera's projection matrix is its extrinsic [R | t]; each camera contributes
 * the rows w·(x·P₃ − P₁) and w·(y·P₃ − P₂) with w its detection confidence, as Pose2Sim and OpenCap
 * weight them. Errors are measured in the undistorted image, in pixels (the focal length times the
 * normalised residual). Allocation-free after construction.
 */
export class PointSolver {
  /** The point of the last successful solve, metres in the world frame. */
  readonly point = new Float64Array(3);
  /** Per camera: observations × 3 (normalised x, y, confidence; NaN confidence when unusable). */
  readonly normalised: Float64Array[];
  private readonly projections: Float64Array[];
  private readonly centresM: Float64Array[];
  private readonly focalX: number[];
  private readonly focalY: number[];
  private readonly normalMatrix = new Float64Array(16);
  private readonly scratch = new Float64Array(16);
  private readonly solution = new Float64Array(4);

  /** From pixels (per camera, observations × 3: x px, y px, confidence; NaN when not detected). */
  static fromPixels(
    cameras: readonly CameraModel[],
    observations: readonly Float32Array[],
    observationCount: number,
    minConfidence: number,
  ): PointSolver {
    return new PointSolver(
      cameras,
      observations.map((series, c) => undistortObservations(cameras[c], series, observationCount, minConfidence)),
    );
  }

  /** @param normalised per camera, as `undistortObservations` gives them (the solver keeps and may swap them). */
  constructor(cameras: readonly CameraModel[], normalised: Float64Array[]) {
    this.normalised = normalised;
    this.projections = cameras.map((camera) => {
      const P = new Float64Array(12);
      for (let row = 0; row < 3; row++) {
        for (let col = 0; col < 3; col++) P[row * 4 + col] = camera.rotationCameraFromWorld[row * 3 + col];
        P[row * 4 + 3] = camera.translationCameraFromWorldM[row];
      }
      return P;
    });
    this.centresM = cameras.map((camera) => {
      const R = camera.rotationCameraFromWorld;
      const t = camera.translationCameraFromWorldM;
      return Float64Array.from([0, 1, 2], (j) => -(R[j] * t[0] + R[3 + j] * t[1] + R[6 + j] * t[2]));
    });
    this.focalX = cameras.map((camera) => camera.intrinsics[0]);
    this.focalY = cameras.map((camera) => camera.intrinsics[4]);
  }

  get cameraCount(): number {
    return this.projections.length;
  }

  /** Bit mask of the cameras with a usable detection of `observation`. */
  seenBy(observation: number): number {
    let mask = 0;
    for (let c = 0; c < this.normalised.length; c++) if (this.normalised[c][observation * 3 + 2] > 0) mask |= 1 << c;
    return mask;
  }

  /** Triangulates `observation` from the cameras in `cameraMask` into `point`; false when degenerate. */
  solve(observation: number, cameraMask: number): boolean {
    const M = this.normalMatrix;
    M.fill(0);
    for (let c = 0; c < this.normalised.length; c++) {
      if (!(cameraMask & (1 << c))) continue;
      const view = this.normalised[c];
      const weight = view[observation * 3 + 2];
      addRow(M, weight, view[observation * 3], this.projections[c], 0);
      addRow(M, weight, view[observation * 3 + 1], this.projections[c], 4);
    }
    const solution = this.solution;
    if (!dltNullVector(M, this.scratch, solution) || Math.abs(solution[3]) < 1e-12) return false;
    this.point[0] = solution[0] / solution[3];
    this.point[1] = solution[1] / solution[3];
    this.point[2] = solution[2] / solution[3];
    return true;
  }

  /** Pixels between camera c's detection of `observation` and `point` (default: the last solved) projected; Infinity behind the camera. */
  reprojectionError(c: number, observation: number, point: ArrayLike<number> = this.point): number {
    const P = this.projections[c];
    const X = point[0];
    const Y = point[1];
    const Z = point[2];
    const depth = P[8] * X + P[9] * Y + P[10] * Z + P[11];
    if (!(depth > 0)) return Number.POSITIVE_INFINITY;
    const view = this.normalised[c];
    const dx = (P[0] * X + P[1] * Y + P[2] * Z + P[3]) / depth - view[observation * 3];
    const dy = (P[4] * X + P[5] * Y + P[6] * Z + P[7]) / depth - view[observation * 3 + 1];
    return Math.hypot(this.focalX[c] * dx, this.focalY[c] * dy);
  }

  /**
   * The angle between the lines of sight of cameras a and b at `point` (default: the last solved),
   * degrees, 0 to 90: near 0 the two rays are nearly one line, and a pixel along it moves the point far.
   */
  raysAngleDeg(a: number, b: number, point: ArrayLike<number> = this.point): number {
    const [ca, cb] = [this.centresM[a], this.centresM[b]];
    const u = [ca[0] - point[0], ca[1] - point[1], ca[2] - point[2]];
    const v = [cb[0] - point[0], cb[1] - point[1], cb[2] - point[2]];
    const cosine =
      (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (Math.hypot(u[0], u[1], u[2]) * Math.hypot(v[0], v[1], v[2]));
    const degrees = (Math.acos(Math.max(-1, Math.min(1, cosine))) * 180) / Math.PI;
    return Math.min(degrees, 180 - degrees);
  }

  /**
   * Moves `point` (in place) to where it best explains both camera views of `observation` in
   * `cameraMask` and its distances to other points: Gauss-Newton on the views' pixel residuals
   * (confidence-weighted, as `solve` weights them) over `pixelSigma`, and each link's difference to
   * its length over `lengthSigmaM`, the links being the first `linkCount` of `linkEndsM` (x, y, z of
   * each other end) and `linkLengthsM`. Stops at the last good step when one is degenerate or the
   * point goes behind a camera.
   */
  solveWithLengths(
    observation: number,
    cameraMask: number,
    point: Float64Array,
    linkEndsM: Float64Array,
    linkLengthsM: Float64Array,
    linkCount: number,
    pixelSigma: number,
    lengthSigmaM: number,
  ): void {
    const H = this.normalMatrix;
    const g = this.solution;
    for (let iteration = 0; iteration < GAUSS_NEWTON_ITERATIONS; iteration++) {
      H.fill(0, 0, 9);
      g.fill(0, 0, 3);
      const X = point[0];
      const Y = point[1];
      const Z = point[2];
      for (let c = 0; c < this.normalised.length; c++) {
        if (!(cameraMask & (1 << c))) continue;
        const P = this.projections[c];
        const view = this.normalised[c];
        const depth = P[8] * X + P[9] * Y + P[10] * Z + P[11];
        if (!(depth > 0)) return;
        const weight = view[observation * 3 + 2] / pixelSigma;
        for (let axis = 0; axis < 2; axis++) {
          const row = axis * 4;
          const focal = axis === 0 ? this.focalX[c] : this.focalY[c];
          const projected = (P[row] * X + P[row + 1] * Y + P[row + 2] * Z + P[row + 3]) / depth;
          const scale = (weight * focal) / depth;
          addNormalRow(
            H,
            g,
            scale * (P[row] - projected * P[8]),
            scale * (P[row + 1] - projected * P[9]),
            scale * (P[row + 2] - projected * P[10]),
            weight * focal * (projected - view[observation * 3 + axis]),
          );
        }
      }
      for (let l = 0; l < linkCount; l++) {
        const dx = X - linkEndsM[l * 3];
        const dy = Y - linkEndsM[l * 3 + 1];
        const dz = Z - linkEndsM[l * 3 + 2];
        const distanceM = Math.hypot(dx, dy, dz);
        if (distanceM < 1e-6) continue;
        const scale = 1 / (distanceM * lengthSigmaM);
        addNormalRow(H, g, dx * scale, dy * scale, dz * scale, (distanceM - linkLengthsM[l]) / lengthSigmaM);
      }
      // H is symmetric (upper triangle filled): the step H⁻¹g by its adjugate (Cramer's rule).
      const [h00, h01, h02, h11, h12, h22] = [H[0], H[1], H[2], H[4], H[5], H[8]];
      const a00 = h11 * h22 - h12 * h12;
      const a01 = h02 * h12 - h01 * h22;
      const a02 = h01 * h12 - h02 * h11;
      const a11 = h00 * h22 - h02 * h02;
      const a12 = h01 * h02 - h00 * h12;
      const a22 = h00 * h11 - h01 * h01;
      const determinant = h00 * a00 + h01 * a01 + h02 * a02;
      if (!(Math.abs(determinant) > 1e-12)) return;
      point[0] -= (a00 * g[0] + a01 * g[1] + a02 * g[2]) / determinant;
      point[1] -= (a01 * g[0] + a11 * g[1] + a12 * g[2]) / determinant;
      point[2] -= (a02 * g[0] + a12 * g[1] + a22 * g[2]) / determinant;
    }
  }

  /** Exchanges camera c's detections of two observations (a left and a right keypoint seen swapped). */
  swap(c: number, first: number, second: number): void {
    const view = this.normalised[c];
    for (let i = 0; i < 3; i++)
      [view[first * 3 + i], view[second * 3 + i]] = [view[second * 3 + i], view[first * 3 + i]];
  }
}

/** Gauss-Newton steps a call: the point starts at its triangulation, near the optimum, and holdFeetRigid calls again until it settles. */
const GAUSS_NEWTON_ITERATIONS = 3;

/** Number of cameras in a bit mask of cameras (as `seenBy` returns). */
export function popCount(mask: number): number {
  let count = 0;
  for (let rest = mask; rest; rest &= rest - 1) count++;
  return count;
}

/** Adds the residual row (j0, j1, j2 | r) to a 3×3 normal matrix's upper triangle H and its gradient g. */
function addNormalRow(H: Float64Array, g: Float64Array, j0: number, j1: number, j2: number, residual: number): void {
  H[0] += j0 * j0;
  H[1] += j0 * j1;
  H[2] += j0 * j2;
  H[4] += j1 * j1;
  H[5] += j1 * j2;
  H[8] += j2 * j2;
  g[0] += j0 * residual;
  g[1] += j1 * residual;
  g[2] += j2 * residual;
}

/** Adds (w·(u·P_row3 − P_row))ᵀ(…) to the 4×4 normal matrix, for u the image coordinate of that row. */
function addRow(M: Float64Array, weight: number, u: number, P: Float64Array, row: number): void {
  const r0 = weight * (u * P[8] - P[row]);
  const r1 = weight * (u * P[9] - P[row + 1]);
  const r2 = weight * (u * P[10] - P[row + 2]);
  const r3 = weight * (u * P[11] - P[row + 3]);
  M[0] += r0 * r0;
  M[1] += r0 * r1;
  M[2] += r0 * r2;
  M[3] += r0 * r3;
  M[5] += r1 * r1;
  M[6] += r1 * r2;
  M[7] += r1 * r3;
  M[10] += r2 * r2;
  M[11] += r2 * r3;
  M[15] += r3 * r3;
  M[4] = M[1];
  M[8] = M[2];
  M[12] = M[3];
  M[9] = M[6];
  M[13] = M[7];
  M[14] = M[11];
}

/**
 * Normalised undistorted coordinates (x, y) and confidence of every observation of one camera; NaN
 * confidence for points that are missing or below the threshold, so the hot loops skip them.
 */
export function undistortObservations(
  camera: CameraModel,
  series: Float32Array,
  observationCount: number,
  minConfidence: number,
): Float64Array {
  const normalised = new Float64Array(observationCount * 3);
  for (let i = 0; i < observationCount; i++)
    undistortObservation(camera, series, i * 3, minConfidence, normalised, i * 3);
  return normalised;
}

/** One observation (x px, y px, confidence at `from` in `pixels`) undistorted into `normalised` at `to`, as undistortObservations does. */
export function undistortObservation(
  camera: CameraModel,
  pixels: ArrayLike<number>,
  from: number,
  minConfidence: number,
  normalised: Float64Array,
  to: number,
): void {
  const u = pixels[from];
  const v = pixels[from + 1];
  const confidence = pixels[from + 2];
  if (!(confidence >= minConfidence) || Number.isNaN(u) || Number.isNaN(v)) {
    normalised[to + 2] = Number.NaN;
    return;
  }
  const [x, y] = undistortPixel(camera, u, v);
  normalised[to] = x;
  normalised[to + 1] = y;
  normalised[to + 2] = confidence;
}
