import { z } from 'zod';
import { serialId, shareToken, shareTokenQuerySchema, uuidId } from './ids.ts';

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

/**
 * ── The app's analyses (spec §3 analysis function / dashboard, §7 Analysis) ──
 *
 * One analysis function per kind, with a fixed id; one analysis dashboard per function, with the
 * same id. Invoking a function on a trial runs it as a job: the trial's state for that function is
 * `pending`, then `successfull` (the result is stored as the trial result tagged
 * `analysisResultTag(kind)`, listed in GET /trials/{id}/ and the archives) or `failed` with a message
 * the user can act on. Invoking again replaces the state and the result (Re-run).
 *
 * Sharing (spec §6, §2.13, §5): an analysis is read by whoever may read its trial's session.
 * - The owner always.
 * - A public session makes its analyses public: anyone (signed in or not) reads them, and the
 *   dashboard link `/analysis-dashboard/{id}/?trialId=…` works without a token. Making an analysis
 *   public therefore means making its session public (the web's alert 'To make your analysis
 *   public, you need to make your session public' + 'Make session public').
 * - A link carrying `subjectId` and `shareToken` (the subject's `share_token`, which only the
 *   owner receives in GET /subjects/{id}/) lets anyone read the analyses of that subject's
 *   non-trashed sessions, public or not; the dashboard's data call then passes
 *   `subject_id` and `share_token`. No separate token per result: revoking is the subject's.
 * - Readers other than the owner get analyses only as the session's data-sharing choice allows
 *   (apps/server access.ts disclosure): analyses are processed data, so 'Share no data' keeps them
 *   to the owner; a public session's visitors do not get the subject's name.
 * - Nobody else: unknown or unreadable ids answer 404. Only the owner invokes.
 * - An analysis whose result reprocessing replaced no longer describes the trial: it is listed as
 *   never run until invoked again.
 */

/** The analysis function (and dashboard) id of each kind; stable, used in URLs. */
export const ANALYSIS_FUNCTION_IDS = { gait: 1, squat: 2, 'sit-to-stand': 3, 'drop-jump': 4 } as const satisfies Record<
  AnalysisKind,
  number
>;

/** The trial-result tag under which a trial's analysis result (an `AnalysisResult` JSON) is stored. */
export const analysisResultTag = (kind: AnalysisKind): `analysis-${AnalysisKind}` => `analysis-${kind}`;

export const analysisPaths = {
  /** GET: every analysis function with its states for the caller's trials (optional query `session_id`). */
  functions: '/analysis-functions/',
  /** GET: states of the caller's trials, by function id then trial id (optional query `session_id`). */
  states: '/analysis-results/states/',
  /** GET: the caller's analyses still running. */
  pending: '/analysis-results/pending/',
  /** GET: the latest task of this function on this trial (404 when it was never invoked on it). */
  taskForTrial: (functionId: number, trialId: string) => `/analysis-functions/${functionId}/task-for-trial/${trialId}/`,
  /** POST `analysisInvokeRequestSchema`: the owner runs the function on trials of a session. */
  invoke: (functionId: number) => `/analysis-functions/${functionId}/invoke/`,
  /** GET: 202 `analysisPendingResponseSchema` while running, then 200 `analysisTaskResultSchema`. Poll every second. */
  result: (taskId: string) => `/analysis-result/${taskId}/`,
  /** GET: every analysis dashboard (the session list's Dashboards menu lists them by title). */
  dashboards: '/analysis-dashboards/',
  /** GET: one dashboard's title and layout. */
  dashboard: (dashboardId: number) => `/analysis-dashboards/${dashboardId}/`,
  /** GET `analysisDashboardDataQuerySchema`: the subjects, sessions, trials and result files the viewer may read. */
  dashboardData: (dashboardId: number) => `/analysis-dashboards/${dashboardId}/data/`,
} as const;

/** A state's status and, when failed, the message to show (in red). */
export const analysisStatusSchema = z.object({
  status: z.enum(ANALYSIS_STATUSES),
  /** Failed: what went wrong, in words the user can act on; null otherwise. */
  error: z.string().nullable(),
});

/** A menu item of a trial's analysis: the trial result to open (spec §3 trial result menu items). */
export const analysisMenuItemSchema = z.object({ label: z.string(), result_tag: z.string() });

/** One trial's analysis by one function (spec §3: state, task_id, menu, dashboard_id). */
export const analysisTrialStateSchema = z.object({
  state: analysisStatusSchema,
  task_id: z.string(),
  /** Empty until successfull; then the result to open. */
  menu: z.array(analysisMenuItemSchema),
  dashboard_id: z.number().int(),
});
export type AnalysisTrialState = z.infer<typeof analysisTrialStateSchema>;

/** Spec §3 "Analysis function". `states` is keyed by trial id. */
export const analysisFunctionSchema = z.object({
  id: z.number().int(),
  kind: z.enum(ANALYSIS_KINDS),
  title: z.string(),
  description: z.string(),
  info: z.string(),
  /** Trial ids whose analysis is still pending. */
  trials: z.array(z.string()),
  /** Trial ids with a successfull result. */
  results: z.array(z.string()),
  states: z.record(z.string(), analysisTrialStateSchema),
});
export type AnalysisFunction = z.infer<typeof analysisFunctionSchema>;
export const analysisFunctionsResponseSchema = z.array(analysisFunctionSchema);

/** A share token (the subject's `share_token`) for reading a private session's analyses. */
export const analysisReadQuerySchema = shareTokenQuerySchema;

/**
 * Optional narrowing of the function list and the states to one session's trials (any reader of the
 * session); without it, the signed-in caller's own trials.
 */
export const analysisStatesQuerySchema = analysisReadQuerySchema.extend({
  session_id: uuidId.optional(),
});

/** GET states: function id → trial id → state. */
export const analysisStatesResponseSchema = z.record(z.string(), z.record(z.string(), analysisTrialStateSchema));

/** GET pending: one row per running analysis. */
export const analysisPendingItemSchema = z.object({
  function_id: z.number().int(),
  trial_id: z.string(),
  task_id: z.string(),
});
export const analysisPendingResponseSchema = z.array(analysisPendingItemSchema);

export const analysisTaskForTrialResponseSchema = z.object({ task_id: z.string() });

/** POST invoke: the trials (by name, within the session) to analyse. */
export const analysisInvokeRequestSchema = z.object({
  session_id: uuidId,
  specific_trial_names: z
    .array(z.string().trim().min(1, 'Name a trial.').max(100), { error: 'Give the names of the trials to analyse.' })
    .min(1, 'Choose at least one trial.')
    .max(100),
});
export type AnalysisInvokeRequest = z.infer<typeof analysisInvokeRequestSchema>;

/** POST invoke answer: one task per trial (poll each at `analysisPaths.result`); `task_id` is the first one's. */
export const analysisInvokeResponseSchema = z.object({
  task_id: z.string(),
  tasks: z.array(z.object({ trial_id: z.string(), trial_name: z.string(), task_id: z.string() })),
});
export type AnalysisInvokeResponse = z.infer<typeof analysisInvokeResponseSchema>;

/** GET result while the job runs (HTTP 202). */
export const analysisTaskPendingSchema = z.object({ status: z.literal('pending') });

/** GET result when finished (HTTP 200): the state, the menu and the dashboard to open. */
export const analysisTaskResultSchema = analysisTrialStateSchema.extend({
  function_id: z.number().int(),
  trial_id: z.string(),
});
export type AnalysisTaskResult = z.infer<typeof analysisTaskResultSchema>;

/**
 * A dashboard widget. Metric widgets name metric keys of the result, or show them all when
 * `metrics` is absent; a key the result lacks is skipped.
 */
export const analysisWidgetSchema = z.discriminatedUnion('type', [
  /** The 3D viewer, restricted to the result's `indices` window and looping. */
  z.object({ type: z.literal('viewer') }),
  /** Value ± SD cards. */
  z.object({ type: z.literal('metric-cards'), metrics: z.array(z.string()).optional() }),
  /** Bars with coloured zones between min_limit and max_limit and a tick at the value. */
  z.object({ type: z.literal('metric-bars'), metrics: z.array(z.string()).optional() }),
  /** Line chart of datasets against `x_axis`; `y` defaults to the result's `y_axis`. Its cursor follows the viewer. */
  z.object({ type: z.literal('line-chart'), title: z.string(), y: z.array(z.string()).optional() }),
  /** The result's `curves` (cycle-normalised mean ± SD, left and right). */
  z.object({ type: z.literal('cycle-curves'), title: z.string() }),
  /** The result's `info_text`. */
  z.object({ type: z.literal('info-text') }),
]);
export type AnalysisWidget = z.infer<typeof analysisWidgetSchema>;

export const analysisDashboardLayoutSchema = z.object({
  columns: z.array(z.object({ widgets: z.array(analysisWidgetSchema) })),
});

/** Spec §3 "Analysis dashboard" without its data (GET /analysis-dashboards/ and /{id}/). */
export const analysisDashboardSchema = z.object({
  id: z.number().int(),
  function_id: z.number().int(),
  kind: z.enum(ANALYSIS_KINDS),
  title: z.string(),
  layout: analysisDashboardLayoutSchema,
});
export type AnalysisDashboard = z.infer<typeof analysisDashboardSchema>;
export const analysisDashboardsResponseSchema = z.array(analysisDashboardSchema);

/**
 * GET data query. Without `subject_id` the signed-in owner gets all their analysed trials; with it,
 * that subject's (owner, or anyone with its `share_token`). `trial_id` narrows to one trial (a public
 * session's link carries only the trial).
 */
export const analysisDashboardDataQuerySchema = z.object({
  subject_id: serialId.optional(),
  share_token: shareToken.optional(),
  trial_id: uuidId.optional(),
});
export type AnalysisDashboardDataQuery = z.input<typeof analysisDashboardDataQuerySchema>;

/**
 * What the Data menu picks from (subject → session → trial) and each trial's result file: `media`
 * is a signed URL of the `AnalysisResult` JSON. Only trials with a successfull result are listed.
 */
export const analysisDashboardDataSchema = z.object({
  subjects: z.array(z.object({ id: z.number().int(), name: z.string() })),
  sessions: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      created_at: z.string(),
      subject: z.number().int().nullable(),
      public: z.boolean(),
    }),
  ),
  trials: z.array(z.object({ id: z.string(), name: z.string(), session: z.string() })),
  results: z.array(z.object({ trial_id: z.string(), task_id: z.string(), media: z.string() })),
});
export type AnalysisDashboardData = z.infer<typeof analysisDashboardDataSchema>;

/** Spec §3 "Analysis dashboard": id, title, layout and data (GET data answers this whole). */
export const analysisDashboardWithDataSchema = analysisDashboardSchema.extend({ data: analysisDashboardDataSchema });
export type AnalysisDashboardWithData = z.infer<typeof analysisDashboardWithDataSchema>;

/** What users read when an analysis cannot run or fails through no fault of theirs. */
export const analysisMessages = {
  functionNotFound: 'Analysis function not found.',
  taskNotFound: 'Analysis not found.',
  dashboardNotFound: 'Analysis dashboard not found.',
  trialNotInSession: (name: string) => `No trial named "${name}" in this session.`,
  notOnNeutral: 'The calibration and neutral trials cannot be analysed; choose a movement trial.',
  notOnTrashed: 'A trashed trial cannot be analysed; restore it first.',
  notDone: (name: string) => `Trial "${name}" has not finished processing; analyse it once it is done.`,
  noResults: 'This trial has no joint angles or scaled model to analyse; reprocess it first.',
  /** The Data menu's label of a subject whose details the viewer may not read (a public session's visitor). */
  undisclosedSubject: (id: number) => `Subject ${id}`,
  /** An internal failure: never the error's own text, a stack or a path. */
  internalFailure:
    'The analysis failed because of a problem on the server, not with your recording. Try Re-run; if it fails again, report it with the trial id.',
} as const;
