import type { AnalysisResult } from '@kinetrace/contracts';
import { round } from './signal.ts';
import type { TrialKinematics } from './trial-kinematics.ts';

/** The lower limbs' sagittal joint angles, both sides: the series every movement analysis charts. */
export const SAGITTAL_LEG_ANGLES = [
  'hip_flexion_r',
  'hip_flexion_l',
  'knee_angle_r',
  'knee_angle_l',
  'ankle_angle_r',
  'ankle_angle_l',
] as const;

/**
 * The time series a dashboard charts: `time` (s) and, per key, one value per frame. Coordinates
 * named in `coordinates` that the model lacks are left out; `extra` adds derived series.
 */
export function timeSeries(
  kinematics: TrialKinematics,
  coordinates: readonly string[],
  extra: Record<string, ArrayLike<number>> = {},
): Pick<AnalysisResult, 'datasets' | 'x_axis'> {
  const datasets: Record<string, number[]> = { time: Array.from(kinematics.timesS, (v) => round(v, 4)) };
  for (const name of coordinates) {
    if (kinematics.hasCoordinate(name)) datasets[name] = Array.from(kinematics.coordinate(name), (v) => round(v, 2));
  }
  for (const [key, values] of Object.entries(extra)) datasets[key] = Array.from(values, (v) => round(v, 4));
  return { datasets, x_axis: 'time' };
}
