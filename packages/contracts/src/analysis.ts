import { z } from 'zod';

/**
 * Analyses of a processed trial (spec §2.13, §2.15, §3, §7 Analysis). The engine
 * (`@kinetrace/mocap`'s analyses) returns an `AnalysisResult`; the server stores it as the trial's
 * analysis result and the analysis dashboard draws it.
 */

/** What the engine can analyse; each is an analysis function of spec §3 in the app. */
export const ANALYSIS_KINDS = ['gait', 'squat', 'sit-to-stand', 'drop-jump'] as const;
export type AnalysisKind = (typeof ANALYSIS_KINDS)[number];

/**
 * Status of an analysis of one trial. Spelled as the spec shows them ('successfull' included):
 * the web and any client of the original API compare these strings.
 */
export const ANALYSIS_STATUSES = ['pending', 'successfull', 'failed'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

/** One figure of a result: value ± std, read against the limits (a clinic's normal range). */
export const analysisMetricSchema = z.object({
  label: z.string(),
  value: z.number(),
  /** Standard deviation over cycles or repetitions; 0 when there was one. */
  std: z.number(),
  /** Lower and upper limit of the normal range (null when the figure has none on that side). */
  min_limit: z.number().nullable(),
  max_limit: z.number().nullable(),
  /** Colours of the zones below min_limit, between the limits, and above max_limit. */
  colors: z.tuple([z.string(), z.string(), z.string()]),
  /** Unit and where the limits come from, for the card's tooltip. */
  info: z.string(),
  /** Names of the three zones, in the order of `colors`. */
  classes: z.tuple([z.string(), z.string(), z.string()]),
  /** Unit shown after the value (m, m/s, steps/min, s, %, deg, count). */
  unit: z.string(),
});
export type AnalysisMetric = z.infer<typeof analysisMetricSchema>;

/** A time series (one column per key, same length as `x_axis`'s series) or a cycle-normalised curve. */
export const analysisDatasetSchema = z.record(z.string(), z.array(z.number()));

/**
 * Spec §3 "Analysis result". `datasets` holds the time series of the trial (key per quantity);
 * `x_axis` names the dataset used as x (time) and `y_axis` the quantities charted by default;
 * `indices` is the analysed window, in frames of the trial's motion. `curves` holds
 * time-normalised cycle curves (gait: 101 points per cycle, mean and SD, left and right).
 */
export const analysisResultSchema = z.object({
  analysis: z.enum(ANALYSIS_KINDS),
  metrics: z.record(z.string(), analysisMetricSchema),
  info_text: z.string(),
  datasets: analysisDatasetSchema,
  x_axis: z.string(),
  y_axis: z.array(z.string()),
  indices: z.object({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() }),
  curves: z
    .array(
      z.object({
        /** e.g. 'knee_angle_r' */
        quantity: z.string(),
        label: z.string(),
        side: z.enum(['left', 'right', 'both']),
        /** 0..100 % of the cycle or repetition */
        percent: z.array(z.number()),
        mean: z.array(z.number()),
        std: z.array(z.number()),
        /** How many cycles or repetitions were averaged. */
        count: z.number().int().nonnegative(),
      }),
    )
    .default([]),
});
export type AnalysisResult = z.infer<typeof analysisResultSchema>;
