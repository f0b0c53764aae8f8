import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * The one schema of Kinetrace, used on PGlite and PostgreSQL alike. Secrets (passwords, tokens,
 * codes) are stored only as hashes.
 */

// Columns that many tables share, written once.
const identityColumn = () => integer('id').primaryKey().generatedAlwaysAsIdentity();
const createdAtColumn = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();
/** The owning user: their rows go when the account is deleted. */
const ownerUserId = () =>
  integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });
/** When an expiring secret (login, code, remembered device, reset link) was made and when it stops working. */
const lifetimeColumns = () => ({
  createdAt: createdAtColumn(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

export const users = pgTable(
  'users',
  {
    id: identityColumn(),
    username: text('username').notNull(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    country: text('country').notNull(),
    institution: text('institution').notNull(),
    profession: text('profession').notNull(),
    reason: text('reason').notNull(),
    website: text('website').notNull().default(''),
    newsletter: boolean('newsletter').notNull().default(true),
    institutionalUse: text('institutional_use'),
    /** Storage key of the profile picture, null for the default image. */
    profilePictureKey: text('profile_picture_key'),
    createdAt: createdAtColumn(),
  },
  (table) => [
    uniqueIndex('users_username_lower_idx').on(sql`lower(${table.username})`),
    uniqueIndex('users_email_lower_idx').on(sql`lower(${table.email})`),
  ],
);

/**
 * A bearer token: a browser's login or a personal API token. Its hash, whether its second factor was passed (a
 * personal token is made by a verified login, so it has), and its lifetime.
 */
export const authTokens = pgTable(
  'auth_tokens',
  {
    id: identityColumn(),
    userId: ownerUserId(),
    tokenHash: text('token_hash').notNull(),
    verified: boolean('verified').notNull().default(false),
    /** 'login' (the browser's, 12 hours) or 'personal' (a script's, made on the Profile page). */
    kind: text('kind').$type<'login' | 'personal'>().notNull().default('login'),
    /** A personal token's name, as its owner gave it. */
    name: text('name'),
    /** A personal token that may only call the routes that read (read-only-routes.ts). */
    readOnly: boolean('read_only').notNull().default(false),
    ...lifetimeColumns(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('auth_tokens_hash_idx').on(table.tokenHash), index('auth_tokens_user_idx').on(table.userId)],
);

/** The e-mailed code for one login; a new challenge replaces the previous one. */
export const otpChallenges = pgTable(
  'otp_challenges',
  {
    id: identityColumn(),
    authTokenId: integer('auth_token_id')
      .notNull()
      .references(() => authTokens.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    wrongAttempts: integer('wrong_attempts').notNull().default(0),
    ...lifetimeColumns(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [index('otp_challenges_token_idx').on(table.authTokenId)],
);

/** A browser that passed the second factor with "remember this device": skips the code for 90 days. */
export const rememberedDevices = pgTable(
  'remembered_devices',
  {
    id: identityColumn(),
    userId: ownerUserId(),
    tokenHash: text('token_hash').notNull(),
    ...lifetimeColumns(),
  },
  (table) => [uniqueIndex('remembered_devices_hash_idx').on(table.tokenHash)],
);

export const passwordResets = pgTable(
  'password_resets',
  {
    id: identityColumn(),
    userId: ownerUserId(),
    tokenHash: text('token_hash').notNull(),
    ...lifetimeColumns(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('password_resets_hash_idx').on(table.tokenHash)],
);

/**
 * E-mailed links that let the account's owner through the login limits after many wrong passwords: the
 * browser that opens one becomes one the account remembers (remembered_devices).
 */
export const loginUnlockLinks = pgTable(
  'login_unlock_links',
  {
    id: identityColumn(),
    userId: ownerUserId(),
    tokenHash: text('token_hash').notNull(),
    ...lifetimeColumns(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('login_unlock_links_hash_idx').on(table.tokenHash)],
);

/** Trash state shared by sessions, trials and subjects: restorable for 30 days, then removed. */
const trashColumns = () => ({
  trashed: boolean('trashed').notNull().default(false),
  trashedAt: timestamp('trashed_at', { withTimezone: true }),
});
const timestamps = () => ({
  createdAt: createdAtColumn(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const subjects = pgTable(
  'subjects',
  {
    id: identityColumn(),
    userId: ownerUserId(),
    name: text('name').notNull(),
    weightKg: doublePrecision('weight_kg').notNull(),
    heightM: doublePrecision('height_m').notNull(),
    birthYear: integer('birth_year').notNull(),
    sexAtBirth: text('sex_at_birth'),
    gender: text('gender'),
    characteristics: text('characteristics').notNull().default(''),
    subjectTags: jsonb('subject_tags').$type<string[]>().notNull().default([]),
    terms: boolean('terms').notNull().default(false),
    /** Read-only sharing: whoever holds it may read the subject and its sessions. */
    shareToken: text('share_token'),
    ...timestamps(),
    ...trashColumns(),
  },
  (table) => [
    index('subjects_user_idx').on(table.userId),
    uniqueIndex('subjects_share_token_idx').on(table.shareToken),
  ],
);

export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: ownerUserId(),
    subjectId: integer('subject_id').references(() => subjects.id, { onDelete: 'set null' }),
    public: boolean('public').notNull().default(false),
    /** The capability a phone presents to pair with this session (in the QR code). */
    pairingToken: text('pairing_token').notNull(),
    shareToken: text('share_token'),
    meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
    ...trashColumns(),
  },
  (table) => [
    index('sessions_user_idx').on(table.userId, table.createdAt),
    index('sessions_subject_idx').on(table.subjectId),
    uniqueIndex('sessions_pairing_token_idx').on(table.pairingToken),
    uniqueIndex('sessions_share_token_idx').on(table.shareToken),
  ],
);

export const trials = pgTable(
  'trials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    status: text('status').notNull(),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps(),
    ...trashColumns(),
  },
  (table) => [index('trials_session_idx').on(table.sessionId, table.createdAt)],
);

/** One camera's video of a trial. */
export const trialVideos = pgTable(
  'trial_videos',
  {
    id: identityColumn(),
    trialId: uuid('trial_id')
      .notNull()
      .references(() => trials.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').notNull(),
    storageKey: text('storage_key'),
    parameters: jsonb('parameters').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAtColumn(),
  },
  (table) => [uniqueIndex('trial_videos_trial_device_idx').on(table.trialId, table.deviceId)],
);

/** A file or figure a trial's processing produced, by tag (visualizerTransforms-json, ik_results, …). */
export const trialResults = pgTable(
  'trial_results',
  {
    id: identityColumn(),
    trialId: uuid('trial_id')
      .notNull()
      .references(() => trials.id, { onDelete: 'cascade' }),
    tag: text('tag').notNull(),
    storageKey: text('storage_key'),
    meta: jsonb('meta').$type<Record<string, unknown>>(),
    createdAt: createdAtColumn(),
  },
  (table) => [index('trial_results_trial_idx').on(table.trialId)],
);

/** Background work a user waits for (archive downloads), polled at /logs/{id}/on-ready/. */
export const tasks = pgTable(
  'tasks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    status: text('status').notNull().default('pending'),
    progress: real('progress').notNull().default(0),
    resultKey: text('result_key'),
    error: text('error'),
    createdAt: createdAtColumn(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [index('tasks_user_idx').on(table.userId)],
);

/** Secrets of this installation shared by every server process (the media-URL signing key). */
export const instanceSecrets = pgTable('instance_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
});

/** A phone paired with a session through its QR code; "connected" while it polled recently. */
export const sessionDevices = pgTable(
  'session_devices',
  {
    id: identityColumn(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    deviceId: text('device_id').notNull(),
    capabilities: jsonb('capabilities').$type<Record<string, unknown>>().notNull().default({}),
    connectedAt: timestamp('connected_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('session_devices_session_device_idx').on(table.sessionId, table.deviceId)],
);

/**
 * A user's lens calibration of one device model (intrinsics and distortion at one image size), used
 * instead of the board's single-view estimate when a phone of that model is calibrated. A new upload
 * for the same model (compared case-insensitively) replaces the previous one.
 */
export const lensCalibrations = pgTable(
  'lens_calibrations',
  {
    id: identityColumn(),
    userId: ownerUserId(),
    deviceModel: text('device_model').notNull(),
    imageWidth: integer('image_width').notNull(),
    imageHeight: integer('image_height').notNull(),
    /** Row-major 3 x 3 camera matrix, pixels. */
    intrinsics: jsonb('intrinsics').$type<number[]>().notNull(),
    /** OpenCV's k1, k2, p1, p2, k3. */
    distortion: jsonb('distortion').$type<number[]>().notNull(),
    rmsErrorPx: doublePrecision('rms_error_px'),
    ...timestamps(),
  },
  (table) => [uniqueIndex('lens_calibrations_user_model_idx').on(table.userId, sql`lower(${table.deviceModel})`)],
);

/**
 * One trial's analysis by one analysis function (spec §3 analysis state): the task the client polls,
 * pending until the job ends successfull (its result is the trial result `resultId`) or failed with a
 * message. Invoking again replaces the row with a new task; removing the trial drops it.
 */
export const analysisResults = pgTable(
  'analysis_results',
  {
    taskId: uuid('task_id').primaryKey().defaultRandom(),
    trialId: uuid('trial_id')
      .notNull()
      .references(() => trials.id, { onDelete: 'cascade' }),
    /** The analysis kind (contracts ANALYSIS_KINDS); one function per kind. */
    kind: text('kind').notNull(),
    status: text('status').notNull().default('pending'),
    error: text('error'),
    resultId: integer('result_id').references(() => trialResults.id, { onDelete: 'set null' }),
    ...timestamps(),
  },
  (table) => [uniqueIndex('analysis_results_trial_kind_idx').on(table.trialId, table.kind)],
);

/**
 * A remote worker's credential (issue 23), made by the operator with `npm run worker-token -- create`: its
 * name, the hash of its secret, when it last called the worker API, and when it was revoked (refused at once).
 * The job it holds is the trial whose `meta.processing_worker` is its id.
 */
export const workerTokens = pgTable(
  'worker_tokens',
  {
    id: identityColumn(),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAtColumn(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('worker_tokens_hash_idx').on(table.tokenHash),
    uniqueIndex('worker_tokens_live_name_idx')
      .on(table.name)
      .where(sql`${table.revokedAt} is null`),
  ],
);

/**
 * The rate limits' and mail throttles' events (services/rate-limiter.ts), shared by every server process on
 * the database: per key (`login:account:…`, `mail:reset:to:…`), the times of its events within the longest
 * window, in milliseconds of the servers' clock, and the latest of them, after which the row can go.
 */
export const rateLimitEvents = pgTable(
  'rate_limit_events',
  {
    key: text('key').primaryKey(),
    stampsMs: bigint('stamps_ms', { mode: 'number' }).array().notNull(),
    lastMs: bigint('last_ms', { mode: 'number' }).notNull(),
  },
  (table) => [index('rate_limit_events_last_idx').on(table.lastMs)],
);

/**
 * Which server process is writing a tus upload (http/upload-locker.ts), when several share PostgreSQL: the
 * holder renews `expires_at` while it writes, so a holder that died loses the lock when it passes; a request
 * of another process waiting for the upload sets `release_requested`, which the holder reads as it renews.
 */
export const uploadLocks = pgTable('upload_locks', {
  uploadId: text('upload_id').primaryKey(),
  holder: text('holder').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  releaseRequested: boolean('release_requested').notNull().default(false),
});
