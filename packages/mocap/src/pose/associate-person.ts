import type { CameraModel } from '../camera/camera.ts';
import { alignToTimeBase, sharedTimeBase } from '../sync/align-to-time-base.ts';
import type { KeypointSeries } from '../sync/keypoint-series.ts';
import { PointSolver } from '../triangulation/point-solver.ts';

/**
 * One person across cameras. When the pose stage kept other people (Keypoints2D.otherPeople), each
 * camera may hold several detections in a frame, and its tracker may have followed a bystander.
 * Per frame, every combination of one detection per camera is triangulated and the one whose views
 * agree best (lowest median reprojection error over the keypoints) is the subject; combinations
 * within 10 % of the best are told apart by continuity, the one nearest to where the subject was
 * in the frame before. Cameras are aligned on their start times (synchronisation needs the person
 * chosen first; a few frames of lag cost a few pixels, another person hundreds).
 */
export interface PersonAssociation {
  /** The series with the chosen person in `data` in every frame, and no `otherPeople`. */
  series: KeypointSeries[];
  /** Per camera: frames where other people were seen. */
  framesWithOthers: number[];
  /** Per camera: frames where the subject was another detection than the tracked one. */
  framesReassigned: number[];
}

/** One detection per camera (a bit mask of views), its median reprojection error and centroid. */
interface Combination {
  mask: number;
  error: number;
  centroid: Float64Array;
}

/** Combinations tried exhaustively per frame; beyond, one camera at a time until nothing improves. */
const MAX_COMBINATIONS = 64;
/** Views (camera × detection) the solver can hold. */
const MAX_VIEWS = 30;
/** Combinations whose error is within this factor of the best are ties, settled by continuity (our choice). */
const TIE_FACTOR = 1.1;

export function associatePerson(
  cameras: readonly CameraModel[],
  series: readonly KeypointSeries[],
  initialOffsetsS: readonly number[],
  referenceCamera: number,
  minConfidence: number,
): PersonAssociation {
  const framesWithOthers = series.map((s) => countFramesWithPeople(s, minConfidence));
  const framesReassigned = series.map(() => 0);
  const unchanged = series.map((s) => ({ ...s, otherPeople: undefined }));
  if (framesWithOthers.every((count) => count === 0)) return { series: unchanged, framesWithOthers, framesReassigned };

  // Views: each camera's tracked person, then the others it saw, as many as the solver holds.
  const layersPerCamera = Math.max(1, Math.floor(MAX_VIEWS / cameras.length));
  const views = series.flatMap((s, c) =>
    [s.data, ...(s.otherPeople ?? [])]
      .slice(0, layersPerCamera)
      .map((data, layer) => ({ camera: c, layer, series: { ...s, data, otherPeople: undefined } })),
  );
  const timesS = sharedTimeBase(series, initialOffsetsS, referenceCamera);
  const frameRateHz = series[referenceCamera].fps;
  const aligned = alignToTimeBase(
    views.map((view) => view.series),
    views.map((view) => initialOffsetsS[view.camera]),
    timesS,
    frameRateHz,
  );
  const keypointCount = aligned.keypointCount;
  const solver = new PointSolver(
    views.map((view) => cameras[view.camera]),
    aligned.observations,
    aligned.frameCount * keypointCount,
    minConfidence,
  );
  const detected = (view: number, frame: number) => {
    let seen = 0;
    for (let k = 0; k < keypointCount; k++)
      if (solver.normalised[view][(frame * keypointCount + k) * 3 + 2] > 0) seen++;
    return seen * 3 >= keypointCount;
  };

  const errors: number[] = [];
  const centroid = new Float64Array(3);
  /** Median reprojection error of the combination (one view per camera), and its centroid in `centroid`. */
  const score = (frame: number, mask: number) => {
    errors.length = 0;
    centroid.fill(0);
    for (let k = 0; k < keypointCount; k++) {
      const observation = frame * keypointCount + k;
      const seen = solver.seenBy(observation) & mask;
      if ((seen & (seen - 1)) === 0 || !solver.solve(observation, seen)) continue;
      let sum = 0;
      let count = 0;
      for (let v = 0; v < views.length; v++) {
        if (!(seen & (1 << v))) continue;
        sum += solver.reprojectionError(v, observation);
        count++;
      }
      errors.push(sum / count);
      for (let axis = 0; axis < 3; axis++) centroid[axis] += solver.point[axis];
    }
    if (errors.length === 0) return Number.POSITIVE_INFINITY;
    for (let axis = 0; axis < 3; axis++) centroid[axis] /= errors.length;
    errors.sort((a, b) => a - b);
    return errors[errors.length >> 1];
  };

  // Chosen view of each camera in each frame of the time base (-1: none).
  const chosen = Array.from({ length: series.length }, () => new Int16Array(aligned.frameCount).fill(-1));
  let previous: Float64Array | null = null;
  for (let frame = 0; frame < aligned.frameCount; frame++) {
    const options = series.map((_, c) =>
      views.flatMap((view, v) => (view.camera === c && detected(v, frame) ? [v] : [])),
    );
    if (options.every((list) => list.length <= 1)) {
      options.forEach((list, c) => (chosen[c][frame] = list[0] ?? -1));
      continue;
    }
    const candidates: Combination[] = [];
    const evaluate = (picks: number[]) => {
      const mask = picks.reduce((bits, v) => (v >= 0 ? bits | (1 << v) : bits), 0);
      const candidate = { mask, error: score(frame, mask), centroid: Float64Array.from(centroid) };
      candidates.push(candidate);
      return candidate;
    };
    const combinations = options.reduce((product, list) => product * Math.max(1, list.length), 1);
    if (combinations <= MAX_COMBINATIONS) {
      for (let index = 0; index < combinations; index++) {
        let rest = index;
        evaluate(
          options.map((list) => {
            if (list.length === 0) return -1;
            const pick = list[rest % list.length];
            rest = Math.floor(rest / list.length);
            return pick;
          }),
        );
      }
    } else {
      const picks = options.map((list) => list[0] ?? -1);
      let best = evaluate(picks);
      for (let improved = true; improved;) {
        improved = false;
        options.forEach((list, c) => {
          for (const v of list) {
            if (v === picks[c]) continue;
            const trial = picks.slice();
            trial[c] = v;
            const candidate = evaluate(trial);
            if (candidate.error < best.error) [best, picks[c], improved] = [candidate, v, true];
          }
        });
      }
    }
    const lowest = Math.min(...candidates.map((candidate) => candidate.error));
    const ties = candidates.filter((candidate) => candidate.error <= lowest * TIE_FACTOR);
    const distance = (candidate: { centroid: Float64Array }) =>
      previous
        ? Math.hypot(
            candidate.centroid[0] - previous[0],
            candidate.centroid[1] - previous[1],
            candidate.centroid[2] - previous[2],
          )
        : 0;
    const pick: Combination = previous
      ? ties.reduce((best, candidate) => (distance(candidate) < distance(best) ? candidate : best))
      : ties.find((candidate) => candidate.error === lowest)!;
    if (Number.isFinite(pick.error)) previous = pick.centroid;
    options.forEach((list, c) => (chosen[c][frame] = list.find((v) => pick.mask & (1 << v)) ?? -1));
  }

  // Back to each camera's own frames: the nearest frame of the time base decides.
  const result = series.map((s, c) => {
    const data = new Float32Array(s.data);
    const stride = keypointCount * 3;
    for (let own = 0; own < s.frameCount; own++) {
      const frame = Math.round((s.timestampsS[own] + initialOffsetsS[c] - timesS[0]) * frameRateHz);
      if (
        frame < 0 ||
        frame >= aligned.frameCount ||
        Math.abs(timesS[frame] - s.timestampsS[own] - initialOffsetsS[c]) > 0.5 / frameRateHz
      )
        continue;
      const view = chosen[c][frame];
      if (view < 0 || views[view].layer === 0) continue;
      data.set(views[view].series.data.subarray(own * stride, (own + 1) * stride), own * stride);
      framesReassigned[c]++;
    }
    return { ...s, data, otherPeople: undefined };
  });
  return { series: result, framesWithOthers, framesReassigned };
}

function countFramesWithPeople(series: KeypointSeries, minConfidence: number): number {
  const layers = series.otherPeople ?? [];
  const stride = series.keypointNames.length * 3;
  let frames = 0;
  for (let frame = 0; frame < series.frameCount; frame++) {
    const seen = layers.some((layer) => {
      for (let i = frame * stride + 2; i < (frame + 1) * stride; i += 3) if (layer[i] >= minConfidence) return true;
      return false;
    });
    if (seen) frames++;
  }
  return frames;
}
