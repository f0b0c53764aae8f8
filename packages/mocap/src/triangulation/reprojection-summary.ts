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
    return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
  };
  let sum = 0;
  for (const value of sorted) sum += value;
  return { medianPx: quantile(0.5), meanPx: sum / sorted.length, p95Px: quantile(0.95), count: sorted.length };
}
