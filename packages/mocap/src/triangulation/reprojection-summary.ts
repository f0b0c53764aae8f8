import quickselect from 'quickselect';
import type { Triangulation } from './triangulate.ts';

/** Median, mean and 95th percentile of reprojection errors, pixels; null when there were none. */
export interface ErrorStatistics {
  medianPx: number;
  meanPx: number;
  p95Px: number;
  count: number;
}

export interface ReprojectionSummary {
  overall: ErrorStatistics | null;
  perCamera: (ErrorStatistics | null)[];
  perKeypoint: (ErrorStatistics | null)[];
  /** keypoints × cameras. */
  perKeypointAndCamera: (ErrorStatistics | null)[][];
}

export function summariseReprojectionErrors(triangulation: Triangulation): ReprojectionSummary {
  const { frameCount, keypointCount, cameraCount, reprojectionErrorPx } = triangulation;
  const byPair: number[][] = Array.from({ length: keypointCount * cameraCount }, () => []);
  for (let frame = 0; frame < frameCount; frame++) {
    for (let keypoint = 0; keypoint < keypointCount; keypoint++) {
      for (let c = 0; c < cameraCount; c++) {
        const error = reprojectionErrorPx[(frame * keypointCount + keypoint) * cameraCount + c];
        if (!Number.isNaN(error)) byPair[keypoint * cameraCount + c].push(error);
      }
    }
  }
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  return {
    overall: errorStatistics(byPair.flat()),
    perCamera: range(cameraCount).map((c) =>
      errorStatistics(range(keypointCount).flatMap((k) => byPair[k * cameraCount + c])),
    ),
    perKeypoint: range(keypointCount).map((k) =>
      errorStatistics(range(cameraCount).flatMap((c) => byPair[k * cameraCount + c])),
    ),
    perKeypointAndCamera: range(keypointCount).map((k) =>
      range(cameraCount).map((c) => errorStatistics(byPair[k * cameraCount + c])),
    ),
  };
}

export function errorStatistics(values: number[]): ErrorStatistics | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const quantile = (q: number) => {
    const position = q * (sorted.length - 1);
    const below = Math.floor(position);
    const above = Math.min(sorted.length - 1, below + 1);
    return between(sorted[below], sorted[above], position - below);
  };
  let sum = 0;
  for (const value of sorted) sum += value;
  return { medianPx: quantile(0.5), meanPx: sum / sorted.length, p95Px: quantile(0.95), count: sorted.length };
}

/**
 * The median errorStatistics gives, by selection instead of a full sort (synchronisation takes one
 * for each of hundreds of offsets); reorders `values`. Null when there are none.
 */
export function medianPx(values: number[]): number | null {
  if (values.length === 0) return null;
  const position = 0.5 * (values.length - 1);
  const below = Math.floor(position);
  quickselect(values, below);
  // Selection leaves the larger values after `below`: the next in order is the smallest of them.
  let above = values[below];
  if (below + 1 < values.length) {
    above = values[below + 1];
    for (let i = below + 2; i < values.length; i++) if (values[i] < above) above = values[i];
  }
  return between(values[below], above, position - below);
}

function between(low: number, high: number, fraction: number): number {
  return low + (high - low) * fraction;
}
