import { z } from 'zod';
import { fromNumberText } from './fields.ts';
import { serialId } from './ids.ts';
import { TRIAL_STATUSES } from './trials.ts';

/**
 * The capture side (§2.9–2.13, §4.2–4.3, §7 recording calls): phones pair with a session through the
 * pairing token of its QR code, follow its state, record when told to and upload their video.
 */

/** A stable id the phone keeps in its local storage. */
export const deviceIdField = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'Invalid device id.');

export const deviceCapabilitiesSchema = z.object({
  /** What the browser reports of the phone, e.g. "Pixel 8 (Android 15), Chrome 140". */
  model: z.string().trim().max(300),
  /** The phone's model alone where the browser tells it (e.g. "Pixel 8"): lens calibrations are looked up by it. */
  device_model: z.string().trim().max(100).nullable().optional(),
  max_width: z.number().int().min(1).max(16384),
  max_height: z.number().int().min(1).max(16384),
  /** Frame rates the camera offers at that size. */
  framerates: z.array(z.number().positive().max(1000)).max(20),
  /** MediaRecorder types the browser can record, best first. */
  mime_types: z.array(z.string().max(100)).max(20),
});
export type DeviceCapabilities = z.infer<typeof deviceCapabilitiesSchema>;

export const connectDeviceRequestSchema = z.object({
  device_id: deviceIdField,
  capabilities: deviceCapabilitiesSchema,
});
export type ConnectDeviceRequest = z.infer<typeof connectDeviceRequestSchema>;

/** The server's answer to a phone's pairing (POST /capture/{token}/connect/). */
export const connectDeviceResponseSchema = z.object({
  session_id: z.string(),
  session_name: z.string(),
  device_id: z.string(),
  server_time_ms: z.number(),
  /** Whether this session's phones find 2D keypoints (issue 24): the phone loads the pose model only then. */
  phone_keypoints: z.boolean(),
});

/** What the phone records when the session records: absolute start on the server's clock. */
export const recordingOrderSchema = z.object({
  trial_id: z.string(),
  trial_name: z.string(),
  framerate: z.number().int(),
  /** When every phone starts, in server milliseconds since the epoch (a little after the order). */
  start_at_ms: z.number(),
  /** The phone stops by itself after this long (§9 time limits). */
  limit_s: z.number(),
  /**
   * Whether the phone should find its 2D keypoints in what it records and upload them before its video
   * (issue 24; see PHONE_KEYPOINTS_UPLOAD): on when the operator's PHONE_KEYPOINTS is on and the session's
   * Advanced Settings leave it on (session setting `phone_keypoints`); never for a calibration (a board, nobody).
   */
  phone_keypoints: z.boolean(),
});
export type RecordingOrder = z.infer<typeof recordingOrderSchema>;

export const captureStateSchema = z.object({
  session_id: z.string(),
  session_name: z.string(),
  /** The order while a trial is recording; null otherwise. */
  recording: recordingOrderSchema.nullable(),
  /** Trials this phone recorded that still wait for its video (after stop). */
  uploads_expected: z.array(z.object({ trial_id: z.string(), trial_name: z.string() })),
  /** Trials cancelled by the researcher: the phone drops what it recorded for them. */
  cancelled_trial_ids: z.array(z.string()),
  n_cameras_connected: z.number().int(),
  n_videos_uploaded: z.number().int(),
  server_time_ms: z.number(),
});
export type CaptureState = z.infer<typeof captureStateSchema>;

export const serverTimeSchema = z.object({ server_time_ms: z.number() });

/** The header every tus request of a phone's upload carries its session's pairing token in (the upload's credential). */
export const PAIRING_TOKEN_HEADER = 'x-pairing-token';

/**
 * What a phone uploads through the tus endpoint: its video, or the 2D keypoints its browser found in that
 * video (issue 24). The keypoints upload (PHONE_KEYPOINTS_UPLOAD) carries the same metadata as the video's
 * plus `kind: 'keypoints'`; absent or 'video' is the video.
 */
export const UPLOAD_KINDS = ['video', 'keypoints'] as const;
export type UploadKind = (typeof UPLOAD_KINDS)[number];

/**
 * The contract of a phone's keypoints upload (issue 24), when its recording order says `phone_keypoints`:
 * - Body: one Kinetrace keypoints 2D JSON (`phoneKeypoints2dSchema`, packages/contracts/src/keypoints-2d.ts):
 *   format 'kinetrace-keypoints-2d', version 1, keypointNames = the engine's VIDEO_KEYPOINTS names in order,
 *   imageSize = the recorded video's pixel size, timestampsS = each processed frame's time in seconds on the
 *   video's own timeline (0 = the video's first frame), frames = one per processed frame (null where nobody was
 *   found); optionally `producer` (model, backend, achieved rate).
 * - Order: sent BEFORE the phone's video (the keypoints are ready when recording stops). Keypoints after that
 *   phone's video, or for a trial not recording or uploading, are refused like videos (410); a second keypoints
 *   upload of the same phone for the same trial replaces the first. Keypoints never start processing: the last
 *   video does.
 * - Checked when complete: more than `maxBytes` is refused at creation (413); a body that is not such a file
 *   gets a 400 whose `keypoints` field says what is wrong (`{ keypoints: ['"keypoints.json": frames.3: …'] }`).
 */
export const PHONE_KEYPOINTS_UPLOAD = {
  kind: 'keypoints' satisfies UploadKind,
  /** A 60 s trial at 60 fps (3,600 frames, the longest, RECORDING_LIMIT_S) is about 2.5 MB of JSON: room for 6x that. */
  maxBytes: 16 * 1024 ** 2,
} as const;

/** tus Upload-Metadata of a phone's video or keypoints (values are strings, as tus carries them). */
export const uploadMetadataSchema = z.object({
  /** 'keypoints' for the phone's 2D keypoints (PHONE_KEYPOINTS_UPLOAD); absent or 'video' for its video. */
  kind: z.enum(UPLOAD_KINDS).optional(),
  pairing_token: z.string().min(10).max(200),
  trial_id: z.string().uuid(),
  device_id: deviceIdField,
  /** When the first frame was really taken, in server milliseconds (the phone's clock corrected by its offset). */
  first_frame_ms: fromNumberText(z.number()).optional(),
  filetype: z.string().max(100).optional(),
});
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;

/** The researcher's view of the recorder (GET /sessions/{id}/status/). */
export const RECORDER_STATUSES = ['ready', 'recording', 'processing'] as const;
export const recordingStatusSchema = z.object({
  status: z.enum(RECORDER_STATUSES),
  trial_id: z.string().nullable(),
  trial_status: z.enum(TRIAL_STATUSES).nullable(),
  n_videos_uploaded: z.number().int(),
  n_cameras_connected: z.number().int(),
  n_videos_expected: z.number().int(),
  session: z.object({ trials: z.array(z.unknown()) }).optional(),
});
export type RecordingStatus = z.infer<typeof recordingStatusSchema>;

export const recordQuerySchema = z.object({
  name: z.string().trim().min(1).max(100),
  subject_id: serialId.optional(),
  subject_mass: fromNumberText(z.number().positive().max(1000)).optional(),
  subject_height: fromNumberText(z.number().positive().max(10)).optional(),
  subject_sex: z.string().max(50).optional(),
  subject_gender: z.string().max(50).optional(),
  subject_data_sharing: z.string().max(200).optional(),
  subject_pose_model: z.string().max(50).optional(),
});
export type RecordQuery = z.input<typeof recordQuerySchema>;
export const recordResponseSchema = z.object({ id: z.string() });

/** A sample of the phone's clock against the server's: local send and receive times around one reading. */
export interface ClockSample {
  sentAtLocalMs: number;
  serverTimeMs: number;
  receivedAtLocalMs: number;
}

/**
 * Server clock minus phone clock, from several round trips: the sample with the shortest round trip
 * bounds the error best (Cristian 1989, "Probabilistic clock synchronization"), its server reading
 * taken as made half-way through.
 */
export function estimateClockOffsetMs(samples: readonly ClockSample[]): { offsetMs: number; uncertaintyMs: number } {
  if (samples.length === 0) throw new Error('No clock samples');
  const best = samples.reduce((a, b) =>
    b.receivedAtLocalMs - b.sentAtLocalMs < a.receivedAtLocalMs - a.sentAtLocalMs ? b : a,
  );
  const roundTripMs = best.receivedAtLocalMs - best.sentAtLocalMs;
  return { offsetMs: best.serverTimeMs - (best.sentAtLocalMs + roundTripMs / 2), uncertaintyMs: roundTripMs / 2 };
}
