import { z } from 'zod';
import { CHECKERBOARD_RANGES, SESSIONS_PAGE_SIZE } from './constants.ts';
import { alphaDashName, fromNumberText } from './fields.ts';
import { serialId, shareToken, uuidId, wholeNumber } from './ids.ts';
import { booleanQuery, pagingQuerySchema } from './paging.ts';
import {
  AUGMENTER_MODELS,
  CHECKERBOARD_PLACEMENTS,
  DATA_SHARING_OPTIONS,
  FRAMERATES,
  keysOf,
  OPENSIM_MODELS,
  PHONE_KEYPOINTS_CHOICES,
  POSE_MODELS,
  POSE_RATES,
  SCALING_SETUPS,
} from './session-settings.ts';
import { TRIAL_STATUSES, trialSchema } from './trials.ts';

export const checkerboardSchema = z.object({
  rows: z.number().int(),
  cols: z.number().int(),
  squareSize: z.number(),
  placement: z.enum(CHECKERBOARD_PLACEMENTS),
});

export const sessionSettingsSchema = z.object({
  data_sharing: z.enum(DATA_SHARING_OPTIONS).optional(),
  scaling_setup: z.enum(keysOf(SCALING_SETUPS)).optional(),
  pose_model: z.enum(keysOf(POSE_MODELS)).optional(),
  framerate: z.number().int().optional(),
  openSimModel: z.enum(keysOf(OPENSIM_MODELS)).optional(),
  augmenter_model: z.enum(keysOf(AUGMENTER_MODELS)).optional(),
  filter_frequency: z.union([z.literal('default'), z.number().positive()]).optional(),
  /** Phones send their 2D keypoints (issue 24), where the operator's PHONE_KEYPOINTS allows. */
  phone_keypoints: z.enum(keysOf(PHONE_KEYPOINTS_CHOICES)).optional(),
  /** How often the server runs the pose model (issue 24; POSE_RATES, default DEFAULT_POSE_RATE). */
  pose_rate: z.enum(keysOf(POSE_RATES)).optional(),
});

export const sessionMetaSchema = z
  .object({
    sessionName: z.string().optional(),
    checkerboard: checkerboardSchema.optional(),
    settings: sessionSettingsSchema.optional(),
  })
  .catchall(z.unknown());
export type SessionMeta = z.infer<typeof sessionMetaSchema>;

export const sessionSchema = z.object({
  id: z.string(),
  /** The owner's user id, sent to the owner only (null for anyone else: it would identify the account). */
  user: z.number().int().nullable(),
  subject: z.number().int().nullable(),
  /** The subject's name. */
  name: z.string().nullable(),
  public: z.boolean(),
  /** The pairing QR code as an image data URL; only the owner receives it. */
  qrcode: z.string().nullable(),
  meta: sessionMetaSchema,
  created_at: z.string(),
  updated_at: z.string(),
  trashed: z.boolean(),
  trashed_at: z.string().nullable(),
  trials_count: z.number().int(),
  trials: z.array(trialSchema),
  is_owner: z.boolean(),
});
export type Session = z.infer<typeof sessionSchema>;

/** A row of the session list (§2.8). */
export const sessionRowSchema = z.object({
  id: z.string(),
  sessionName: z.string(),
  name: z.string().nullable(),
  subject: z.number().int().nullable(),
  trials_count: z.number().int(),
  created_at: z.string(),
  trashed: z.boolean(),
  trashed_at: z.string().nullable(),
  public: z.boolean(),
});
export type SessionRow = z.infer<typeof sessionRowSchema>;

/**
 * GET /sessions/new/. With reuse_empty, the caller's newest session that nothing was done in yet (no trial, no
 * phone paired, no subject, no name; not public, not trashed) is answered instead of a new one: the web app's
 * first step and New session take up the session a first login or an abandoned set-up left, rather than leave it
 * behind empty.
 */
export const newSessionQuerySchema = z.object({ reuse_empty: booleanQuery });
export type NewSessionQuery = z.input<typeof newSessionQuerySchema>;

export const SESSION_SORT_FIELDS = ['id', 'sessionName', 'name', 'trials_count', 'created_at', 'trashed'] as const;

export const validSessionsRequestSchema = pagingQuerySchema.extend({
  quantity: wholeNumber(-1, 1000).default(SESSIONS_PAGE_SIZE),
  sort: z.enum(SESSION_SORT_FIELDS).default('created_at'),
  sort_desc: booleanQuery.default(true),
  include_trashed: booleanQuery,
  only_trashed: booleanQuery,
  subject_id: serialId.optional(),
  /** Leave out sessions with no trial other than calibration and neutral. */
  skip_no_trials: booleanQuery,
  /** A public session anyone may list (anonymous viewers of a shared session). */
  public_session_id: z.string().uuid().optional(),
  /** With subject_id, lets a viewer holding the subject's share token list its sessions. */
  share_token: shareToken.optional(),
});
export type ValidSessionsRequest = z.input<typeof validSessionsRequestSchema>;

export const validSessionsResponseSchema = z.object({ sessions: z.array(sessionRowSchema), total: z.number().int() });

export const searchSessionsQuerySchema = z.object({
  text: z.string().trim().max(200).optional().default(''),
  include_trashed: booleanQuery,
});

/** Session names follow the trial-name rule (letters, digits, hyphen, underscore). */
export const renameSessionRequestSchema = z.object({ sessionNewName: alphaDashName(100) });

export const patchSessionRequestSchema = z.object({ public: z.boolean() });

export const setSubjectQuerySchema = z.object({ subject_id: serialId });

/** GET /sessions/{id}/set_metadata/: calibration keys (cb_*) or neutral settings keys (settings_*). */
export const setMetadataQuerySchema = z.object({
  cb_rows: wholeNumber(CHECKERBOARD_RANGES.corners.min, CHECKERBOARD_RANGES.corners.max).optional(),
  cb_cols: wholeNumber(CHECKERBOARD_RANGES.corners.min, CHECKERBOARD_RANGES.corners.max).optional(),
  cb_square: fromNumberText(z.number().positive().max(CHECKERBOARD_RANGES.squareSizeMm.max)).optional(),
  cb_placement: z.enum(CHECKERBOARD_PLACEMENTS).optional(),
  settings_data_sharing: z.enum(DATA_SHARING_OPTIONS).optional(),
  settings_scaling_setup: z.enum(keysOf(SCALING_SETUPS)).optional(),
  settings_pose_model: z.enum(keysOf(POSE_MODELS)).optional(),
  settings_framerate: wholeNumber(1, 1000)
    .refine((fps) => (FRAMERATES as readonly number[]).includes(fps), `Choose one of ${FRAMERATES.join(', ')} fps.`)
    .optional(),
  settings_session_name: z.union([z.literal(''), alphaDashName(100)]).optional(),
  settings_openSimModel: z.enum(keysOf(OPENSIM_MODELS)).optional(),
  settings_augmenter_model: z.enum(keysOf(AUGMENTER_MODELS)).optional(),
  /** 'default' or Hz; clamped to half the framerate, invalid values become 'default' with a warning. */
  settings_filter_frequency: z.string().max(50).optional(),
  settings_phone_keypoints: z.enum(keysOf(PHONE_KEYPOINTS_CHOICES)).optional(),
  settings_pose_rate: z.enum(keysOf(POSE_RATES)).optional(),
});
export type SetMetadataQuery = z.input<typeof setMetadataQuerySchema>;

export const setMetadataResponseSchema = z.object({ meta: sessionMetaSchema, warnings: z.array(z.string()) });

/**
 * One choice of a processing setting and what this server's engine runs for it (issue 21: Advanced Settings
 * say what each choice runs). Made by settingChoices (packages/processing/src/processing-settings.ts), the
 * module that also decides what a trial runs, so the dialog and the runner cannot disagree.
 */
const settingChoiceSchema = <Value extends [string, ...string[]]>(values: Value) =>
  z.object({
    value: z.enum(values),
    /** The spec's name of the choice, e.g. 'HRNet (accurate)'. */
    label: z.string(),
    /** What processing runs for it, e.g. 'BlazePose full'. */
    runs: z.string(),
    /** False when it needs files the operator has not installed (augmenter weights, a model file): `runs` is the fallback. */
    installed: z.boolean(),
  });

export const settingChoicesSchema = z.object({
  pose_model: z.array(settingChoiceSchema(keysOf(POSE_MODELS))),
  openSimModel: z.array(settingChoiceSchema(keysOf(OPENSIM_MODELS))),
  augmenter_model: z.array(settingChoiceSchema(keysOf(AUGMENTER_MODELS))),
});
export type SettingChoices = z.infer<typeof settingChoicesSchema>;

/** GET /sessions/{id}/get_session_settings/: the frame rates this server records at, and what each processing choice runs. */
export const sessionSettingsResponseSchema = z.object({
  framerates: z.array(z.number().int()),
  choices: settingChoicesSchema,
  /** Whether this server takes keypoints from the phones at all (the operator's PHONE_KEYPOINTS, issue 24). */
  phone_keypoints: z.boolean(),
});
export type SessionSettingsResponse = z.infer<typeof sessionSettingsResponseSchema>;

export const asyncDownloadResponseSchema = z.object({ task_id: z.string() });
export const downloadReadyResponseSchema = z.object({ url: z.string() });
export const downloadPendingResponseSchema = z.object({ status: z.string(), progress: z.number().optional() });

/** A trashed trial as the recycle bin lists it. */
export const recycleBinTrialSchema = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(TRIAL_STATUSES),
  trashed_at: z.string().nullable(),
});

/**
 * §2.18 what the recycle bin holds: the trashed sessions and the active sessions holding trashed
 * trials (trashed tells which), each with its trashed trials.
 */
export const recycleBinResponseSchema = z.object({
  sessions: z.array(sessionRowSchema.extend({ trashed_trials: z.array(recycleBinTrialSchema) })),
});
export type RecycleBin = z.infer<typeof recycleBinResponseSchema>;

/** Items one "empty bin" may name: more than a bin of a busy lab holds, less than a request body's limit. */
const EMPTY_TRASH_MAX_ITEMS = 10_000;

/**
 * "Empty bin" removes what the bin listed, not whatever is trashed when the request arrives: the
 * trials and sessions it showed, by id (ones restored or removed since are left alone).
 */
export const emptyTrashRequestSchema = z.object({
  trials: z.array(uuidId).max(EMPTY_TRASH_MAX_ITEMS),
  sessions: z.array(uuidId).max(EMPTY_TRASH_MAX_ITEMS),
});
export type EmptyTrashRequest = z.infer<typeof emptyTrashRequestSchema>;

/** How many trials and sessions were removed. */
export const emptyTrashResponseSchema = z.object({ trials: z.number().int(), sessions: z.number().int() });
