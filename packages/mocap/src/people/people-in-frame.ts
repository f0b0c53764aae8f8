import type { PointSolver } from '../triangulation/point-solver.ts';

/**
 * Which detections in one frame are the same person, across cameras. Each camera may hold several
 * people (the pose stage keeps up to three); a person is one detection per camera, in two cameras
 * or more, whose association points triangulate into one body: their views agree within
 * MAX_DISAGREEMENT of the person's size in each view. Two views that disagree on their own are
 * never combined, so only a handful of combinations are scored in full. People are taken from the
 * combinations that agree, those seen by the most cameras first, then the closest agreement, each
 * detection in one person at most.
 */
export interface FramePerson {
  /** The views (indices into the solver's observations) that see this person, one per camera at most. */
  views: number[];
  /** Median over the points of the views' mean reprojection error, each relative to the person's size in that view. */
  disagreement: number;
  /** The association points triangulated, metres, world frame (points × 3, NaN where not seen). */
  pointsM: Float64Array;
  /** Median position of the triangulated points, metres, world frame. */
  centreM: Float64Array;
}

/**
 * Views agree on a person when their median reprojection error is at most this fraction of the
 * person's size in the image: BlazePose's median keypoint error is 3 % of the person's box on COCO
 * (docs/pose.md), so agreeing views of one person stay near that; another person's views are off by
 * the distance between the two, a body's width (20 % and more of its height) or more (our choice,
 * measured on the multi-person demo: docs/pose.md).
 */
export const MAX_DISAGREEMENT = 0.08;

export interface FramePeopleInput {
  solver: PointSolver;
  /** Camera of each view. */
  viewCameras: readonly number[];
  cameraCount: number;
  /** Per view: the person's size in each frame, px (NaN: nobody). */
  sizePx: readonly Float32Array[];
  /** Association points per frame (the solver's observations are frames × points). */
  pointCount: number;
}

export class FramePeopleFinder {
  private readonly errors: number[] = [];
  private readonly coordinates: number[][] = [[], [], []];
  private readonly minPoints: number;

  constructor(private readonly input: FramePeopleInput) {
    // A third of the points, as a detection needs a third of its keypoints to count (and at least 3).
    this.minPoints = Math.max(3, Math.ceil(input.pointCount / 3));
  }

  /** The people in `frame`, most cameras first. */
  find(frame: number): FramePerson[] {
    const { viewCameras, cameraCount } = this.input;
    const detected = viewCameras.map((_, v) => this.seenPoints(frame, v) >= this.minPoints);
    const byCamera = Array.from({ length: cameraCount }, (_, c) =>
      viewCameras.flatMap((camera, v) => (camera === c && detected[v] ? [v] : [])),
    );
    const disagree = this.pairsThatDisagree(frame, byCamera);
    const combinations = this.combinationsThatAgree(frame, byCamera, disagree);
    combinations.sort((a, b) => b.views.length - a.views.length || a.disagreement - b.disagreement);
    const taken = new Set<number>();
    const people: FramePerson[] = [];
    for (const combination of combinations) {
      if (combination.views.some((v) => taken.has(v))) continue;
      combination.views.forEach((v) => taken.add(v));
      people.push(combination);
    }
    return people;
  }

  private seenPoints(frame: number, view: number): number {
    const normalised = this.input.solver.normalised[view];
    let seen = 0;
    for (let p = 0; p < this.input.pointCount; p++)
      if (normalised[(frame * this.input.pointCount + p) * 3 + 2] > 0) seen++;
    return seen;
  }

  /**
   * Per view, the views of other cameras it clearly disagrees with on its own (pairs with too few
   * points in common to tell are not held apart: the combination's own score decides).
   */
  private pairsThatDisagree(frame: number, byCamera: readonly number[][]): Set<number>[] {
    const disagree = this.input.viewCameras.map(() => new Set<number>());
    for (let a = 0; a < byCamera.length; a++)
      for (let b = a + 1; b < byCamera.length; b++)
        for (const v of byCamera[a])
          for (const w of byCamera[b]) {
            const person = this.score(frame, (1 << v) | (1 << w));
            if (person && person.disagreement > MAX_DISAGREEMENT) {
              disagree[v].add(w);
              disagree[w].add(v);
            }
          }
    return disagree;
  }

  /** Every combination of one view or none per camera, two views or more, with no pair that disagrees, that agrees together. */
  private combinationsThatAgree(frame: number, byCamera: readonly number[][], disagree: readonly Set<number>[]) {
    const found: FramePerson[] = [];
    const chosen: number[] = [];
    const visit = (camera: number) => {
      if (camera === byCamera.length) {
        if (chosen.length < 2) return;
        const person = this.score(
          frame,
          chosen.reduce((mask, v) => mask | (1 << v), 0),
        );
        if (person && person.disagreement <= MAX_DISAGREEMENT) found.push(person);
        return;
      }
      visit(camera + 1);
      for (const v of byCamera[camera]) {
        if (chosen.some((w) => disagree[v].has(w))) continue;
        chosen.push(v);
        visit(camera + 1);
        chosen.pop();
      }
    };
    visit(0);
    return found;
  }

  /** The views in `mask` as one person: their disagreement and centre, or null with too few points. */
  private score(frame: number, mask: number): FramePerson | null {
    const { solver, sizePx, pointCount } = this.input;
    const errors = this.errors;
    const coordinates = this.coordinates;
    errors.length = 0;
    coordinates.forEach((axis) => (axis.length = 0));
    const pointsM = new Float64Array(pointCount * 3).fill(Number.NaN);
    for (let p = 0; p < pointCount; p++) {
      const observation = frame * pointCount + p;
      const seen = solver.seenBy(observation) & mask;
      if ((seen & (seen - 1)) === 0 || !solver.solve(observation, seen)) continue;
      let sum = 0;
      let count = 0;
      for (let rest = seen; rest; rest &= rest - 1) {
        const v = 31 - Math.clz32(rest & -rest);
        sum += solver.reprojectionError(v, observation) / sizePx[v][frame];
        count++;
      }
      errors.push(sum / count);
      pointsM.set(solver.point, p * 3);
      for (let axis = 0; axis < 3; axis++) coordinates[axis].push(solver.point[axis]);
    }
    if (errors.length < this.minPoints) return null;
    const views: number[] = [];
    for (let rest = mask; rest; rest &= rest - 1) views.push(31 - Math.clz32(rest & -rest));
    return {
      views,
      disagreement: median(errors),
      pointsM,
      centreM: Float64Array.from(coordinates, (axis) => median(axis)),
    };
  }
}

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[values.length >> 1];
}
