import type { fitTrial } from '../../src/model-fitting/fit-trial.ts';

/** The lowest and highest value, in degrees, that one coordinate takes over a fitted trial. */
export function rangeDeg(fit: ReturnType<typeof fitTrial>, coordinate: string): [number, number] {
  const { coordinateNames, values, timesS } = fit.ik.trajectories;
  const c = coordinateNames.indexOf(coordinate);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let f = 0; f < timesS.length; f++) {
    const deg = (values[f * coordinateNames.length + c] * 180) / Math.PI;
    lo = Math.min(lo, deg);
    hi = Math.max(hi, deg);
  }
  return [lo, hi];
}
