import type { MarkerTrajectories } from '../formats/trc.ts';
import type { KinematicModel } from '../model/kinematic-model.ts';

/**
 * One inverse-kinematics problem: which model markers track which measured markers with what
 * weight, which coordinates are pulled towards values, and which coordinates are free.
 * It evaluates the weighted least-squares goal of OpenSim's InverseKinematicsSolver,
 *   sum_markers w_m |x_m(q) - y_m|^2 + sum_tasks w_c (q_c - v_c)^2,
 * and its residuals and Jacobian, for one frame of measured markers at a time.
 */
export interface IkTaskWeights {
  /** Weight of each tracked model marker; markers not listed are not tracked. Default: every marker in both the model and the data, weight 1. */
  markerWeights?: ReadonlyMap<string, number>;
  /** Coordinates pulled towards a value (rad or m) with a weight (OpenSim IKCoordinateTask). */
  coordinateTasks?: readonly { coordinate: string; weight: number; value: number }[];
}

/**
 * Robustness for noisy marker data (video keypoints), beyond OpenSim's least squares. Both are off
 * unless given, so OpenSim setups solve exactly OpenSim's goal.
 */
export interface IkRobustness {
  /**
   * Scale c of a Cauchy loss on each marker's distance d: the marker counts with weight
   * 1 / (1 + (d/c)^2), re-estimated from the pose (iteratively reweighted least squares). A marker
   * several c away (a mis-detected keypoint) barely pulls; one within c counts almost fully.
   */
  cauchyScaleM?: number;
  /**
   * Weight per rad^2 (or m^2) pulling every free coordinate towards the last well-fitting frame's
   * value: noise in the markers can no longer spin a joint into its mirror solution from one
   * frame to the next, while a real movement (a few degrees per frame) costs almost nothing.
   */
  continuityWeight?: number;
}

export type IkSettings = IkTaskWeights & IkRobustness;

export class IkSetupError extends Error {
  override name = 'IkSetupError';
}

export interface MarkerErrors {
  /** Sum of squared distances of the markers present (m^2), as in OpenSim's IK log. */
  totalSquaredM2: number;
  /** The same sum with each marker's weight: the marker part of the goal. */
  weightedSquaredM2: number;
  rmsM: number;
  maxM: number;
  /** Index into trackedMarkerNames of the worst marker, -1 when none was present. */
  worstMarker: number;
  markersPresent: number;
}

export class IkProblem {
  readonly model: KinematicModel;
  /** Names of the tracked markers (model markers also in the data with a positive weight). */
  readonly trackedMarkerNames: string[];
  readonly trackedModelMarker: Int32Array;
  readonly trackedDataMarker: Int32Array;
  readonly trackedWeight: Float64Array;
  /** Per tracked marker, the robust loss's current weight factor (1 without a robust loss). */
  readonly robustWeight: Float64Array;
  private readonly cauchyScaleM: number;
  readonly taskCoordinate: Int32Array;
  readonly taskWeight: Float64Array;
  readonly taskValue: Float64Array;
  /** Index of the first continuity task in the task arrays (= task count without continuity). */
  private readonly continuityTaskOffset: number;
  /** Coordinates the solver moves: not locked and not driven by a coupler. */
  readonly freeCoordinates: Int32Array;
  readonly lowerBound: Float64Array;
  readonly upperBound: Float64Array;
  readonly rowCount: number;
  private readonly dataMarkerCount: number;
  /** The current frame's measured positions of the tracked markers (NaN when missing). */
  private readonly measured: Float64Array;
  private readonly modelPosition = new Float64Array(3);
  private readonly distanceScratch: Float64Array;

  constructor(model: KinematicModel, dataMarkerNames: readonly string[], tasks: IkSettings = {}) {
    this.model = model;
    this.dataMarkerCount = dataMarkerNames.length;
    const dataIndex = new Map(dataMarkerNames.map((name, i) => [name, i]));
    const tracked: { name: string; modelIndex: number; dataIndex: number; weight: number }[] = [];
    model.markerNames.forEach((name, modelIndex) => {
      const d = dataIndex.get(name);
      const weight = tasks.markerWeights ? (tasks.markerWeights.get(name) ?? 0) : 1;
      if (d !== undefined && weight > 0) tracked.push({ name, modelIndex, dataIndex: d, weight });
    });
    if (tracked.length === 0) {
      throw new IkSetupError(
        `No marker is both in model "${model.description.name}" (${model.markerNames.slice(0, 4).join(', ')}...) and in the marker data (${dataMarkerNames.slice(0, 4).join(', ')}...) with a positive weight. Check the marker names, or the marker tasks of the IK setup.`,
      );
    }
    this.trackedMarkerNames = tracked.map((t) => t.name);
    this.trackedModelMarker = Int32Array.from(tracked.map((t) => t.modelIndex));
    this.trackedDataMarker = Int32Array.from(tracked.map((t) => t.dataIndex));
    this.trackedWeight = Float64Array.from(tracked.map((t) => t.weight));
    this.robustWeight = new Float64Array(tracked.length).fill(1);
    this.cauchyScaleM = tasks.cauchyScaleM ?? Number.POSITIVE_INFINITY;

    const coordinateIndex = new Map(model.coordinateNames.map((name, i) => [name, i]));
    const coordinateTasks = (tasks.coordinateTasks ?? []).filter((task) => task.weight > 0);
    for (const task of coordinateTasks) {
      if (!coordinateIndex.has(task.coordinate))
        throw new IkSetupError(
          `The IK setup has a coordinate task for "${task.coordinate}", which model "${model.description.name}" does not have.`,
        );
    }
    const free: number[] = [];
    model.coordinates.forEach((coordinate, c) => {
      if (!coordinate.locked && model.coupledTo[c] < 0) free.push(c);
    });
    this.freeCoordinates = Int32Array.from(free);
    // Continuity tasks follow the coordinate tasks, one per free coordinate; their values are set per frame.
    const continuity = tasks.continuityWeight !== undefined && tasks.continuityWeight > 0 ? free : [];
    this.continuityTaskOffset = coordinateTasks.length;
    this.taskCoordinate = Int32Array.from([
      ...coordinateTasks.map((task) => coordinateIndex.get(task.coordinate)!),
      ...continuity,
    ]);
    this.taskWeight = Float64Array.from([
      ...coordinateTasks.map((task) => task.weight),
      ...continuity.map(() => tasks.continuityWeight!),
    ]);
    this.taskValue = Float64Array.from([
      ...coordinateTasks.map((task) => task.value),
      ...continuity.map((c) => model.coordinates[c].defaultValue),
    ]);
    this.lowerBound = Float64Array.from(
      model.coordinates.map((c) => (c.clamped ? c.rangeMin : Number.NEGATIVE_INFINITY)),
    );
    this.upperBound = Float64Array.from(
      model.coordinates.map((c) => (c.clamped ? c.rangeMax : Number.POSITIVE_INFINITY)),
    );
    this.rowCount = 3 * tracked.length + this.taskCoordinate.length;
    this.measured = new Float64Array(3 * tracked.length);
    this.distanceScratch = new Float64Array(tracked.length);
  }

  /** Loads the measured positions of frame `frame` of the marker data. */
  setFrame(markers: MarkerTrajectories, frame: number): void {
    const base = frame * this.dataMarkerCount * 3;
    for (let t = 0; t < this.trackedDataMarker.length; t++) {
      const d = base + 3 * this.trackedDataMarker[t];
      this.measured[3 * t] = markers.positionsM[d];
      this.measured[3 * t + 1] = markers.positionsM[d + 1];
      this.measured[3 * t + 2] = markers.positionsM[d + 2];
    }
  }

  /** Whether the problem pulls coordinates towards a previous pose (IkRobustness.continuityWeight). */
  get hasContinuity(): boolean {
    return this.continuityTaskOffset < this.taskCoordinate.length;
  }

  /** The coordinate tasks' part of the goal at q, continuity left out. */
  coordinateTaskGoal(q: Float64Array): number {
    let goal = 0;
    for (let i = 0; i < this.continuityTaskOffset; i++)
      goal += this.taskWeight[i] * (q[this.taskCoordinate[i]] - this.taskValue[i]) ** 2;
    return goal;
  }

  /** Sets the pose the continuity tasks pull towards (the last well-fitting frame's solution). */
  setContinuityTarget(q: Float64Array): void {
    for (let i = this.continuityTaskOffset; i < this.taskCoordinate.length; i++)
      this.taskValue[i] = q[this.taskCoordinate[i]];
  }

  /**
   * Re-estimates the robust loss's per-marker weights from the pose of the last `residuals` call
   * (IRLS step). Returns the largest change of a weight; 0 without a robust loss.
   */
  reweight(): number {
    if (!Number.isFinite(this.cauchyScaleM)) return 0;
    const distance = this.distanceScratch;
    this.markerDistances(distance);
    let largestChange = 0;
    for (let t = 0; t < distance.length; t++) {
      if (Number.isNaN(distance[t])) continue;
      const weight = 1 / (1 + (distance[t] / this.cauchyScaleM) ** 2);
      largestChange = Math.max(largestChange, Math.abs(weight - this.robustWeight[t]));
      this.robustWeight[t] = weight;
    }
    return largestChange;
  }

  /** Back to full weight for every marker (a new frame's first solve). */
  resetRobustWeights(): void {
    this.robustWeight.fill(1);
  }

  /** Whether tracked marker t is present in the current frame. */
  isPresent(t: number): boolean {
    return !Number.isNaN(this.measured[3 * t] + this.measured[3 * t + 1] + this.measured[3 * t + 2]);
  }

  /**
   * Poses the model at q (couplers applied to q first) and writes the weighted residuals
   * (sqrt(w * robust weight) * error; zero rows for missing markers). Returns the goal: the sum of their squares.
   */
  residuals(q: Float64Array, out: Float64Array): number {
    const model = this.model;
    model.applyCouplers(q);
    model.setCoordinates(q);
    let goal = 0;
    const position = this.modelPosition;
    for (let t = 0; t < this.trackedModelMarker.length; t++) {
      const row = 3 * t;
      if (!this.isPresent(t)) {
        out[row] = out[row + 1] = out[row + 2] = 0;
        continue;
      }
      model.markerPosition(this.trackedModelMarker[t], position, 0);
      const s = Math.sqrt(this.trackedWeight[t] * this.robustWeight[t]);
      for (let k = 0; k < 3; k++) {
        const r = s * (position[k] - this.measured[row + k]);
        out[row + k] = r;
        goal += r * r;
      }
    }
    const offset = 3 * this.trackedModelMarker.length;
    for (let i = 0; i < this.taskCoordinate.length; i++) {
      const r = Math.sqrt(this.taskWeight[i]) * (q[this.taskCoordinate[i]] - this.taskValue[i]);
      out[offset + i] = r;
      goal += r * r;
    }
    return goal;
  }

  /**
   * Jacobian of the residuals with respect to every coordinate (rows x coordinates, row-major) at
   * the pose of the last `residuals` call, with coupled coordinates folded into their independent one.
   */
  jacobian(q: Float64Array, out: Float64Array): void {
    const model = this.model;
    const columns = model.coordinateNames.length;
    out.fill(0);
    const position = this.modelPosition;
    for (let t = 0; t < this.trackedModelMarker.length; t++) {
      if (!this.isPresent(t)) continue;
      const marker = this.trackedModelMarker[t];
      model.markerPosition(marker, position, 0);
      const rowOffset = 3 * t * columns;
      model.addPointJacobian(model.markerBody[marker], position[0], position[1], position[2], out, rowOffset, columns);
      const s = Math.sqrt(this.trackedWeight[t] * this.robustWeight[t]);
      for (let i = rowOffset; i < rowOffset + 3 * columns; i++) out[i] *= s;
    }
    const offset = 3 * this.trackedModelMarker.length;
    for (let i = 0; i < this.taskCoordinate.length; i++)
      out[(offset + i) * columns + this.taskCoordinate[i]] = Math.sqrt(this.taskWeight[i]);
    // Chain rule through couplers: d r / d q_independent += d r / d q_dependent * d q_dependent / d q_independent.
    for (let c = 0; c < columns; c++) {
      const independent = model.coupledTo[c];
      if (independent < 0) continue;
      const slope = model.couplerSlope(c, q);
      for (let row = 0; row < this.rowCount; row++) {
        const i = row * columns;
        out[i + independent] += slope * out[i + c];
        out[i + c] = 0;
      }
    }
  }

  /** Each tracked marker's distance (m) at the pose of the last `residuals` call; NaN where missing. */
  markerDistances(out: Float64Array): void {
    const position = this.modelPosition;
    for (let t = 0; t < this.trackedModelMarker.length; t++) {
      if (!this.isPresent(t)) {
        out[t] = Number.NaN;
        continue;
      }
      this.model.markerPosition(this.trackedModelMarker[t], position, 0);
      out[t] = Math.hypot(
        position[0] - this.measured[3 * t],
        position[1] - this.measured[3 * t + 1],
        position[2] - this.measured[3 * t + 2],
      );
    }
  }

  /** Marker errors at the pose of the last `residuals` call, like OpenSim's IK log. */
  markerErrors(): MarkerErrors {
    const position = this.modelPosition;
    let totalSquaredM2 = 0;
    let weightedSquaredM2 = 0;
    let maxSquared = 0;
    let worstMarker = -1;
    let markersPresent = 0;
    for (let t = 0; t < this.trackedModelMarker.length; t++) {
      if (!this.isPresent(t)) continue;
      this.model.markerPosition(this.trackedModelMarker[t], position, 0);
      const dx = position[0] - this.measured[3 * t];
      const dy = position[1] - this.measured[3 * t + 1];
      const dz = position[2] - this.measured[3 * t + 2];
      const squared = dx * dx + dy * dy + dz * dz;
      totalSquaredM2 += squared;
      weightedSquaredM2 += this.trackedWeight[t] * squared;
      markersPresent++;
      if (squared > maxSquared || worstMarker < 0) {
        maxSquared = squared;
        worstMarker = t;
      }
    }
    return {
      totalSquaredM2,
      weightedSquaredM2,
      rmsM: markersPresent > 0 ? Math.sqrt(totalSquaredM2 / markersPresent) : Number.NaN,
      maxM: Math.sqrt(maxSquared),
      worstMarker,
      markersPresent,
    };
  }
}
