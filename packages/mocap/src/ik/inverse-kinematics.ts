import type { MarkerTrajectories } from '../formats/trc.ts';
import type { KinematicModel } from '../model/kinematic-model.ts';
import type { CoordinateTrajectories } from '../model/motion.ts';
import { findEulerJoints, preferBranch } from './euler-branches.ts';
import { IkProblem, type IkSettings } from './ik-problem.ts';

/** Largest change of one coordinate in one iteration (rad or m). */
const MAX_STEP = 0.5;

export interface InverseKinematicsOptions extends IkSettings {
  /** Solve only the marker frames whose time lies in [start, end] (OpenSim's time_range). */
  timeRangeS?: [number, number];
  /** Gauss-Newton/Levenberg-Marquardt iterations per frame at most (the first frame gets four times as many). */
  maxIterations?: number;
  /** Stop when the goal improves by less than this fraction (relative) in an iteration. */
  relativeTolerance?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Per-frame marker errors, as OpenSim's IK log reports them. */
export interface IkFrameErrors {
  totalSquaredM2: Float64Array;
  weightedSquaredM2: Float64Array;
  rmsM: Float64Array;
  maxM: Float64Array;
  /** Name of the marker with the largest error per frame ("" when no marker was present). */
  worstMarker: string[];
  iterations: Int32Array;
  /**
   * Frames whose fit was far worse than the trial's usual (median marker error over three times the
   * median of the well-fitting frames so far): their solution is kept, but the next frame starts
   * from the last well-fitting frame.
   */
  poorFit: Uint8Array;
}

/** One marker's errors over the trial (frames where it was present). */
export interface IkMarkerErrors {
  name: string;
  rmsM: number;
  maxM: number;
  framesPresent: number;
  /** Frames where the robust loss counted it at less than half weight (it was treated as an outlier). */
  framesDownweighted: number;
}

export interface InverseKinematicsResult {
  trajectories: CoordinateTrajectories;
  trackedMarkerNames: string[];
  errors: IkFrameErrors;
  /** Per tracked marker, in trackedMarkerNames order. */
  markerErrors: IkMarkerErrors[];
}

/** IRLS rounds per frame at most, and the weight change below which the robust weights count as settled. */
const MAX_REWEIGHT_ROUNDS = 4;
const REWEIGHT_TOLERANCE = 0.02;
/** A frame fits poorly when its median marker error exceeds this multiple of the usual one (and the floor below). */
const POOR_FIT_RATIO = 3;
const POOR_FIT_FLOOR_M = 0.02;
/** Well-fitting frames remembered for the usual median marker error. */
const RECENT_FRAMES = 30;

/**
 * Bound-constrained Levenberg-Marquardt for one frame, warm-started from q (updated in place):
 * analytic Jacobian, normal equations over the free coordinates, Marquardt damping, steps
 * projected onto the coordinate ranges, and coordinates held at a bound they push against
 * dropped from the step (an active set).
 */
export class FrameSolver {
  private readonly problem: IkProblem;
  private readonly free: Int32Array;
  private readonly residual: Float64Array;
  private readonly trialResidual: Float64Array;
  private readonly jacobian: Float64Array;
  private readonly normal: Float64Array;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  private readonly factor: Float64Array;
  private readonly active: Uint8Array;
  private readonly atBound: Uint8Array;
  private readonly fixedStep: Float64Array;
  private readonly trial: Float64Array;
  private readonly nonzero: Int32Array;
  private readonly nonzeroValue: Float64Array;

  private readonly lower: Float64Array;
  private readonly upper: Float64Array;

  /**
   * `free`: the coordinates this solver moves (by default every free coordinate of the problem);
   * `bounds`: their ranges (by default the ranges of the clamped coordinates).
   */
  constructor(
    problem: IkProblem,
    free: Int32Array = problem.freeCoordinates,
    bounds?: { lower: Float64Array; upper: Float64Array },
  ) {
    this.problem = problem;
    this.free = free;
    this.lower = bounds?.lower ?? problem.lowerBound;
    this.upper = bounds?.upper ?? problem.upperBound;
    const n = this.free.length;
    const columns = problem.model.coordinateNames.length;
    this.residual = new Float64Array(problem.rowCount);
    this.trialResidual = new Float64Array(problem.rowCount);
    this.jacobian = new Float64Array(problem.rowCount * columns);
    this.normal = new Float64Array(n * n);
    this.gradient = new Float64Array(n);
    this.step = new Float64Array(n);
    this.factor = new Float64Array(n * n);
    this.active = new Uint8Array(n);
    this.atBound = new Uint8Array(n);
    this.fixedStep = new Float64Array(n);
    this.trial = new Float64Array(columns);
    this.nonzero = new Int32Array(n);
    this.nonzeroValue = new Float64Array(n);
  }

  /** Solves the current frame of the problem from q; returns the iterations used. */
  solve(q: Float64Array, maxIterations: number, relativeTolerance: number): number {
    const { problem, free, residual, jacobian, normal, gradient, step, trial, lower, upper } = this;
    const n = free.length;
    const columns = q.length;
    const rows = problem.rowCount;
    for (let i = 0; i < n; i++) {
      const c = free[i];
      q[c] = Math.min(upper[c], Math.max(lower[c], q[c]));
    }
    let goal = problem.residuals(q, residual);
    let damping = 1e-3;
    let iterations = 0;
    let converged = false;
    while (iterations < maxIterations && !converged) {
      iterations++;
      problem.jacobian(q, jacobian);
      // Normal equations J^T J and gradient J^T r over the free coordinates.
      normal.fill(0);
      gradient.fill(0);
      // A marker row only depends on the coordinates between ground and its body: gather its nonzeros first.
      const nonzero = this.nonzero;
      const nonzeroValue = this.nonzeroValue;
      for (let row = 0; row < rows; row++) {
        const base = row * columns;
        const r = residual[row];
        let count = 0;
        for (let i = 0; i < n; i++) {
          const ji = jacobian[base + free[i]];
          if (ji === 0) continue;
          nonzero[count] = i;
          nonzeroValue[count++] = ji;
          gradient[i] += ji * r;
        }
        for (let a = 0; a < count; a++) {
          const rowI = nonzero[a] * n;
          const ja = nonzeroValue[a];
          for (let b = a; b < count; b++) normal[rowI + nonzero[b]] += ja * nonzeroValue[b];
        }
      }
      for (let i = 0; i < n; i++) for (let k = 0; k < i; k++) normal[i * n + k] = normal[k * n + i];
      // Active set: a coordinate at a bound whose descent direction points out of its range stays put.
      let gradientNorm = 0;
      for (let i = 0; i < n; i++) {
        const c = free[i];
        const atLower = q[c] <= lower[c] && gradient[i] > 0;
        const atUpper = q[c] >= upper[c] && gradient[i] < 0;
        this.atBound[i] = atLower || atUpper ? 1 : 0;
        if (!this.atBound[i]) gradientNorm = Math.max(gradientNorm, Math.abs(gradient[i]));
      }
      if (gradientNorm < 1e-14) break;

      let improved = false;
      for (let attempt = 0; attempt < 12; attempt++) {
        if (!this.boundedStep(q, damping)) {
          damping *= 10;
          continue;
        }
        // A step longer than MAX_STEP in any coordinate is shortened as a whole: far from the solution the
        // Gauss-Newton step can spin unbounded coordinates (e.g. arm rotation) by whole turns into another minimum.
        let longest = 0;
        for (let i = 0; i < n; i++) longest = Math.max(longest, Math.abs(step[i]));
        const shorten = longest > MAX_STEP ? MAX_STEP / longest : 1;
        trial.set(q);
        for (let i = 0; i < n; i++) {
          const c = free[i];
          trial[c] = Math.min(upper[c], Math.max(lower[c], q[c] + shorten * step[i]));
        }
        const trialGoal = problem.residuals(trial, this.trialResidual);
        if (trialGoal < goal) {
          const relativeGain = (goal - trialGoal) / Math.max(goal, 1e-30);
          q.set(trial);
          residual.set(this.trialResidual);
          goal = trialGoal;
          damping = Math.max(damping / 5, 1e-9);
          improved = true;
          converged = relativeGain < relativeTolerance;
          break;
        }
        damping *= 8;
      }
      if (!improved) break;
    }
    // Leave the model posed at the solution (the last residual evaluation may have been a rejected trial).
    problem.residuals(q, residual);
    return iterations;
  }

  /**
   * The damped step within the coordinate ranges: coordinates at a bound they push against stay,
   * and a coordinate whose step would leave its range is stopped at the bound and the others
   * re-solved with that move fixed, until no step leaves a range.
   */
  private boundedStep(q: Float64Array, damping: number): boolean {
    const { free, step, active, fixedStep, lower, upper } = this;
    const n = free.length;
    active.set(this.atBound);
    fixedStep.fill(0);
    for (let pass = 0; pass <= n; pass++) {
      if (!this.solveDamped(damping)) return false;
      let crossed = false;
      for (let i = 0; i < n; i++) {
        if (active[i]) continue;
        const c = free[i];
        const target = q[c] + step[i];
        const bound = target > upper[c] ? upper[c] : target < lower[c] ? lower[c] : Number.NaN;
        if (Number.isNaN(bound)) continue;
        active[i] = 1;
        fixedStep[i] = bound - q[c];
        crossed = true;
      }
      if (!crossed) return true;
    }
    return true;
  }

  /**
   * step = -(JtJ + damping * diag(JtJ) + tiny) \ (gradient + JtJ * fixed moves) over the inactive
   * coordinates (Cholesky); active coordinates take their fixed move.
   */
  private solveDamped(damping: number): boolean {
    const { normal, gradient, step, factor, active, fixedStep } = this;
    const n = gradient.length;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < n; k++) {
        factor[i * n + k] = active[i] || active[k] ? (i === k ? 1 : 0) : normal[i * n + k];
      }
      if (!active[i]) factor[i * n + i] += damping * normal[i * n + i] + 1e-12;
    }
    for (let j = 0; j < n; j++) {
      let diagonal = factor[j * n + j];
      for (let k = 0; k < j; k++) diagonal -= factor[j * n + k] * factor[j * n + k];
      if (!(diagonal > 0)) return false;
      const root = Math.sqrt(diagonal);
      factor[j * n + j] = root;
      for (let i = j + 1; i < n; i++) {
        let sum = factor[i * n + j];
        for (let k = 0; k < j; k++) sum -= factor[i * n + k] * factor[j * n + k];
        factor[i * n + j] = sum / root;
      }
    }
    let anyFixedMove = false;
    for (let k = 0; k < n; k++) if (fixedStep[k] !== 0) anyFixedMove = true;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      if (!active[i]) {
        sum = -gradient[i];
        if (anyFixedMove)
          for (let k = 0; k < n; k++) if (active[k] && fixedStep[k] !== 0) sum -= normal[i * n + k] * fixedStep[k];
      }
      for (let k = 0; k < i; k++) sum -= factor[i * n + k] * step[k];
      step[i] = sum / factor[i * n + i];
    }
    for (let i = n - 1; i >= 0; i--) {
      let sum = step[i];
      for (let k = i + 1; k < n; k++) sum -= factor[k * n + i] * step[k];
      step[i] = sum / factor[i * n + i];
    }
    for (let i = 0; i < n; i++) if (active[i]) step[i] = fixedStep[i];
    return true;
  }
}

/**
 * Brings q from the default pose near the first frame's solution, so that the unconstrained solve
 * that follows starts in the anatomical basin: first the root joint alone (so the limbs do not twist
 * to make up for a body standing elsewhere), then every coordinate within its range even where the
 * model does not clamp it (so an unclamped elbow does not bend backwards under an upper arm turned
 * half a turn). Returns the iterations used.
 */
function startFromDefaultPose(
  problem: IkProblem,
  q: Float64Array,
  maxIterations: number,
  relativeTolerance: number,
): number {
  const model = problem.model;
  const free = problem.freeCoordinates;
  const root = Int32Array.from(
    Array.from(free).filter(
      (c) =>
        model.description.joints.find((joint) => joint.name === model.coordinates[c].joint)?.parentBody === 'ground',
    ),
  );
  let iterations =
    root.length > 0 && root.length < free.length
      ? new FrameSolver(problem, root).solve(q, maxIterations, relativeTolerance)
      : 0;
  // Ranges wider than a turn (OpenSim's +/-99999 for "unlimited") are no guide.
  const anatomical = (c: number) =>
    model.coordinates[c].motionType !== 'translational' &&
    model.coordinates[c].rangeMax - model.coordinates[c].rangeMin <= 2 * Math.PI;
  const lower = Float64Array.from(problem.lowerBound, (bound, c) =>
    anatomical(c) ? Math.max(bound, model.coordinates[c].rangeMin) : bound,
  );
  const upper = Float64Array.from(problem.upperBound, (bound, c) =>
    anatomical(c) ? Math.min(bound, model.coordinates[c].rangeMax) : bound,
  );
  iterations += new FrameSolver(problem, free, { lower, upper }).solve(q, 4 * maxIterations, relativeTolerance);
  return iterations;
}

/** Frames of the marker data within the time range (all frames without one). */
export function framesInRange(timesS: Float64Array, timeRangeS?: [number, number]): number[] {
  const frames: number[] = [];
  // Half a microsecond of slack: setup files round times that the .trc stores with more digits.
  const slackS = 5e-7;
  for (let f = 0; f < timesS.length; f++) {
    if (!timeRangeS || (timesS[f] >= timeRangeS[0] - slackS && timesS[f] <= timeRangeS[1] + slackS)) frames.push(f);
  }
  return frames;
}

function median(values: ArrayLike<number>): number {
  const sorted = Array.from(values)
    .filter((v) => !Number.isNaN(v))
    .sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Inverse kinematics over a marker recording: per frame, the coordinates minimising OpenSim's
 * weighted marker (and coordinate-task) goal, with coupled coordinates following their
 * independent one, locked coordinates at their default, clamped coordinates within range,
 * each frame warm-started from the last well-fitting frame's solution. With `cauchyScaleM` the
 * goal is a robust one (markers reweighted until their weights settle); with `continuityWeight`
 * every free coordinate is also pulled towards that last well-fitting solution.
 */
export function solveInverseKinematics(
  model: KinematicModel,
  markers: MarkerTrajectories,
  options: InverseKinematicsOptions = {},
): InverseKinematicsResult {
  const problem = new IkProblem(model, markers.markerNames, options);
  const solver = new FrameSolver(problem);
  const frames = framesInRange(markers.timesS, options.timeRangeS);
  const maxIterations = options.maxIterations ?? 50;
  // 1e-8: tighter tolerances change gait2354 coordinates by < 1e-6 degrees but cost 30 % more iterations.
  const relativeTolerance = options.relativeTolerance ?? 1e-8;
  const coordinateCount = model.coordinateNames.length;
  const values = new Float64Array(frames.length * coordinateCount);
  const errors: IkFrameErrors = {
    totalSquaredM2: new Float64Array(frames.length),
    weightedSquaredM2: new Float64Array(frames.length),
    rmsM: new Float64Array(frames.length),
    maxM: new Float64Array(frames.length),
    worstMarker: new Array<string>(frames.length).fill(''),
    iterations: new Int32Array(frames.length),
    poorFit: new Uint8Array(frames.length),
  };
  const q = model.defaultCoordinates();
  const lastGood = new Float64Array(coordinateCount);
  const eulerJoints = findEulerJoints(model);
  const priorCost = (pose: Float64Array) => problem.coordinateTaskGoal(pose);
  const recentMedians: number[] = [];
  const markerCount = problem.trackedMarkerNames.length;
  const distances = new Float64Array(markerCount);
  const sumSquares = new Float64Array(markerCount);
  const maxDistance = new Float64Array(markerCount);
  const present = new Int32Array(markerCount);
  const downweighted = new Int32Array(markerCount);
  frames.forEach((frame, i) => {
    problem.setFrame(markers, frame);
    problem.resetRobustWeights();
    let iterations = 0;
    if (i === 0) {
      iterations = startFromDefaultPose(problem, q, maxIterations, relativeTolerance);
      // The first frame has no previous pose: continuity only damps it towards where it started.
      lastGood.set(q);
    } else {
      q.set(lastGood);
    }
    problem.setContinuityTarget(lastGood);
    const frameIterations = i === 0 ? 4 * maxIterations : maxIterations;
    for (let round = 0; round < MAX_REWEIGHT_ROUNDS; round++) {
      iterations += solver.solve(q, frameIterations, relativeTolerance);
      if (problem.reweight() < REWEIGHT_TOLERANCE) break;
    }
    errors.iterations[i] = iterations;
    // The same pose, with the angles the continuity term holds on to next taken from the branch the priors prefer.
    if (problem.hasContinuity) preferBranch(eulerJoints, q, problem.lowerBound, problem.upperBound, priorCost);
    values.set(q, i * coordinateCount);

    problem.markerDistances(distances);
    const frameMedian = median(distances);
    const usual = median(recentMedians);
    const poor = recentMedians.length > 0 && frameMedian > Math.max(POOR_FIT_RATIO * usual, POOR_FIT_FLOOR_M);
    errors.poorFit[i] = poor ? 1 : 0;
    if (!poor) {
      lastGood.set(q);
      recentMedians.push(frameMedian);
      if (recentMedians.length > RECENT_FRAMES) recentMedians.shift();
    }
    for (let t = 0; t < markerCount; t++) {
      const d = distances[t];
      if (Number.isNaN(d)) continue;
      sumSquares[t] += d * d;
      maxDistance[t] = Math.max(maxDistance[t], d);
      present[t]++;
      if (problem.robustWeight[t] < 0.5) downweighted[t]++;
    }
    const frameErrors = problem.markerErrors();
    errors.totalSquaredM2[i] = frameErrors.totalSquaredM2;
    errors.weightedSquaredM2[i] = frameErrors.weightedSquaredM2;
    errors.rmsM[i] = frameErrors.rmsM;
    errors.maxM[i] = frameErrors.maxM;
    errors.worstMarker[i] = frameErrors.worstMarker >= 0 ? problem.trackedMarkerNames[frameErrors.worstMarker] : '';
    options.onProgress?.(i + 1, frames.length);
  });
  return {
    trajectories: {
      coordinateNames: [...model.coordinateNames],
      timesS: Float64Array.from(frames, (f) => markers.timesS[f]),
      values,
    },
    trackedMarkerNames: problem.trackedMarkerNames,
    errors,
    markerErrors: problem.trackedMarkerNames.map((name, t) => ({
      name,
      rmsM: present[t] > 0 ? Math.sqrt(sumSquares[t] / present[t]) : Number.NaN,
      maxM: present[t] > 0 ? maxDistance[t] : Number.NaN,
      framesPresent: present[t],
      framesDownweighted: downweighted[t],
    })),
  };
}
