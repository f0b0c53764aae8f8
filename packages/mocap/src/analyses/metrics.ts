import type { AnalysisMetric } from '@kinetrace/contracts';
import { meanStd, round } from './signal.ts';

/** Zone colours of a metric bar: out of range, in range, and a figure with no normal range. */
const OUT = '#e53935';
const IN = '#43a047';
const NEUTRAL = '#1e88e5';

/**
 * A normal range as a clinic reads it, with where it comes from (shown in the card's tooltip).
 * A missing side has no limit; no sides at all means the figure is descriptive.
 */
export interface NormalRange {
  min?: number;
  max?: number;
  source: string;
  /** Names of the zones below, between and above the limits. */
  classes?: [string, string, string];
}

export interface MetricSpec {
  label: string;
  unit: string;
  /** What the figure is and how it is measured. */
  description: string;
  range?: NormalRange;
}

/** A metric card from the per-cycle (or per-repetition) values: mean ± SD, limits and colours. */
export function metric(spec: MetricSpec, values: readonly number[], over = 'cycles', decimals = 3): AnalysisMetric {
  const { mean, std } = meanStd(values);
  const range = spec.range;
  const hasMin = range?.min !== undefined;
  const hasMax = range?.max !== undefined;
  const colors: [string, string, string] = !range
    ? [NEUTRAL, NEUTRAL, NEUTRAL]
    : [hasMin ? OUT : IN, IN, hasMax ? OUT : IN];
  const classes: [string, string, string] =
    range?.classes ?? (range ? ['Below normal', 'Normal', 'Above normal'] : ['', '', '']);
  if (values.length === 0) throw new Error(`metric "${spec.label}" has no values`);
  const count = values.length === 1 ? '' : ` Mean ± SD over ${values.length} ${over}.`;
  return {
    label: spec.label,
    value: round(mean, decimals),
    std: round(std, decimals),
    min_limit: hasMin ? round(range!.min!, decimals) : null,
    max_limit: hasMax ? round(range!.max!, decimals) : null,
    colors,
    info: `${spec.description} Unit: ${spec.unit}.${count}${range ? ` Normal range: ${range.source}` : ' No normal range: descriptive figure.'}`,
    classes,
    unit: spec.unit,
  };
}
