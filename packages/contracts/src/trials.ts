import { z } from 'zod';
import { alphaDashName } from './fields.ts';
import { wrongTypeError } from './error-map.ts';
import { messages } from './messages.ts';

/** §3 Trial statuses. */
export const TRIAL_STATUSES = [
  'recording',
  'uploading',
  'processing',
  'reprocess',
  'stopped',
  'done',
  'error',
  'ready',
] as const;
export type TrialStatus = (typeof TRIAL_STATUSES)[number];
/** A trial in these states cannot be renamed or re-tagged (§5). */
export const BUSY_TRIAL_STATUSES: readonly TrialStatus[] = ['recording', 'uploading', 'processing', 'reprocess'];

export const RESERVED_TRIAL_NAMES = ['calibration', 'neutral'] as const;

/** A trial name: required, letters, digits, hyphen and underscore (§5). */
export const trialNameField = alphaDashName(100);

export const trialResultSchema = z.object({
  /** Null for a file made from the session when asked (OpenCap's `session_metadata`, `camera_mapping`). */
  id: z.number().int().nullable(),
  tag: z.string(),
  media: z.string().nullable(),
  /** The phone a per-camera result belongs to (as OpenCap's client reads it), else null. */
  device_id: z.string().nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
});

export const trialVideoSchema = z.object({
  id: z.number().int(),
  device_id: z.string(),
  video: z.string().nullable(),
  parameters: z.record(z.string(), z.unknown()),
});

export const trialSchema = z.object({
  id: z.string(),
  session: z.string(),
  /** The session again, under the name OpenCap's client reads. */
  session_id: z.string(),
  name: z.string(),
  status: z.enum(TRIAL_STATUSES),
  trashed: z.boolean(),
  trashed_at: z.string().nullable(),
  tags: z.array(z.string()),
  meta: z.record(z.string(), z.unknown()),
  results: z.array(trialResultSchema),
  videos: z.array(trialVideoSchema),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Trial = z.infer<typeof trialSchema>;

export const renameTrialRequestSchema = z.object({ trialNewName: trialNameField });
export const modifyTrialTagsRequestSchema = z.object({
  trialNewTags: z.array(z.string().trim().min(1).max(100), wrongTypeError(messages.tagsNotArray)).max(50),
});

export const trialTagItemSchema = z.object({ tag: z.string() });
