import { z } from 'zod';
import { KEYPOINT_SETS, KEYPOINTS_2D_LIMITS } from './keypoints-2d.ts';
import { CHECKERBOARD_PLACEMENTS, keysOf, POSE_RATES } from './session-settings.ts';
import { followUpStageKeys, PROCESSING_STAGES, RESULT_TAGS, TRIAL_KINDS, type ProcessingStage } from './processing.ts';

/**
 * The worker API (issue 23): what a remote worker (`npx kinetrace-worker`) and the server say to each other.
 * A worker authenticates with a worker token (made by the operator with `npm run worker-token`), leases one
 * processing job at a time per slot, heart-beats its progress, downloads its inputs by signed links, uploads
 * its results and completes or fails the job. Everything here is served under WORKER_API_PREFIX.
 */
export const WORKER_API_PREFIX = '/api/worker';

export const workerPaths = {
  /** POST: waits up to `wait_s` for a job, answers it leased (or `lease: null`). */
  lease: '/lease/',
  heartbeat: (lease: string) => `/leases/${lease}/heartbeat/`,
  inputs: (lease: string) => `/leases/${lease}/inputs/`,
  /** GET of a signed input link (no token: the link is the credential). */
  inputVideo: (lease: string, index: number | string) => `/leases/${lease}/videos/${index}/`,
  /** GET of a signed link to one file of the 2D keypoints imported with a video (no token either). */
  inputKeypoints: (lease: string, index: number | string, file: number | string) =>
    `/leases/${lease}/videos/${index}/keypoints/${file}/`,
  /** PUT, body the file (application/octet-stream), query its tag, name and camera. */
  result: (lease: string) => `/leases/${lease}/results/`,
  /** POST: the results stored so far make the trial done; with `follow_up`, the lease lasts until that ends. */
  complete: (lease: string) => `/leases/${lease}/complete/`,
  fail: (lease: string) => `/leases/${lease}/fail/`,
  /** POST: the follow-up's results, added to the done trial's (uploaded first, as for complete); ends the lease. */
  addResults: (lease: string) => `/leases/${lease}/add-results/`,
  /** POST: the follow-up failed; the trial stays done without its results. Ends the lease. */
  followUpFailed: (lease: string) => `/leases/${lease}/follow-up-failed/`,
} as const;

export const workerMessages = {
  /** The worker prints it and exits: the operator must give it a valid token. */
  tokenRefused: 'This worker token is not valid: it was revoked, or it is mistyped. Ask the operator for a new one.',
  /** A lease that stopped heart-beating (its job went back to the queue), or another worker's. */
  leaseGone:
    'This lease is not held by this worker: it expired and its job went back to the queue, or it was never its own.',
  embeddedServer:
    'This server processes trials itself (WORKERS=embedded): start it with WORKERS=remote to use remote workers.',
  inputLinkInvalid: 'This input link is invalid or has expired.',
  resultBodyMissing: 'Send the result file as the body, with Content-Type application/octet-stream.',
  resultMissing: (name: string) => `The result ${name} was not uploaded before completing.`,
} as const;

/** A lease id: the trial, the queue's job and its attempt number (`<trial>.<job>.<retry>`). */
export const leaseIdSchema = z.string().regex(/^[0-9a-f-]{36}\.[0-9a-f-]{36}\.\d{1,3}$/, 'Not a lease id');
export const leaseParamsSchema = z.object({ lease: leaseIdSchema });

export const leaseRequestSchema = z.object({
  /** How long to wait for a job (long poll), seconds. */
  wait_s: z.number().min(0).max(30).default(20),
});

export const leaseSchema = z.object({
  id: leaseIdSchema,
  trial_id: z.string().uuid(),
  kind: z.enum(TRIAL_KINDS),
  /** No retry follows an internal failure of this attempt. */
  final_attempt: z.boolean(),
  /** The attempt fails as an internal error after this long. */
  time_limit_s: z.number().positive(),
  /** Heart-beat at least this often, seconds; a lease silent for `lease_timeout_s` expires. */
  heartbeat_s: z.number().positive(),
  lease_timeout_s: z.number().positive(),
});
export type Lease = z.infer<typeof leaseSchema>;
export const leaseResponseSchema = z.object({ lease: leaseSchema.nullable() });

const stageKeys = Object.keys(PROCESSING_STAGES) as [ProcessingStage, ...ProcessingStage[]];
/** The progress a heartbeat carries: the processing's stage, or, once the trial is done, its follow-up's. */
export const heartbeatRequestSchema = z.union([
  z.object({ stage: z.enum(stageKeys), percent: z.number().min(0).max(100) }).strict(),
  z.object({ follow_up: z.enum(followUpStageKeys), percent: z.number().min(0).max(100) }).strict(),
]);
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;
export const workerAckSchema = z.object({ ok: z.literal(true) });

/*
 * A trial's inputs as the runner's TrialInputs (packages/processing trial-io.ts) with numbers in arrays
 * instead of typed arrays, each video (and each file of the 2D keypoints imported with it) a signed link
 * instead of a local file, and the operator-installed
 * files (augmenter weights, OpenSim model) by name: a worker looks for them under its own install folder.
 */
const numbers = (length?: number) => (length ? z.array(z.number()).length(length) : z.array(z.number()).max(16));
const imageSizeSchema = z.object({ width: z.number().int().positive(), height: z.number().int().positive() });
export const wireCameraSchema = z.object({
  name: z.string().max(200),
  imageSize: imageSizeSchema,
  intrinsics: numbers(9),
  distortion: numbers(),
  rotationCameraFromWorld: numbers(9),
  translationCameraFromWorldM: numbers(3),
});
export const wireLensSchema = z.object({ intrinsics: numbers(9), distortion: numbers(), imageSize: imageSizeSchema });
/** A name in the worker's work folder: one plain name, never a way out of it (`..`). */
const workFileNameSchema = z.string().regex(/^(?!\.+$)[A-Za-z0-9_.-]{1,200}$/);
/** A signed, expiring link to a stored input: absolute, or on the server the worker calls. */
const inputLinkSchema = z.string().min(1).max(4000);
/**
 * 2D keypoints imported with a video or sent by its phone (issue 24), which the worker uses instead of detecting: its files
 * go into the work folder as the engine reads them (packages/processing keypoints-files.ts).
 */
export const wireKeypointsSchema = z
  .object({
    /** One Kinetrace keypoints .json, or OpenPose files (one per frame) in a folder. */
    layout: z.enum(['kinetrace', 'openpose']),
    /** The Kinetrace file's name in the work folder, or the OpenPose files' folder's. */
    name: workFileNameSchema,
    keypointSet: z.enum(KEYPOINT_SETS).optional(),
    /** Found by the camera's phone (issue 24): the engine checks them against its own detector before it uses them. */
    fromPhone: z.boolean().optional(),
    /** The OpenPose files in frame order, each with its name in the folder; the one Kinetrace file. */
    files: z
      .array(z.object({ url: inputLinkSchema, fileName: workFileNameSchema }))
      .min(1)
      .max(KEYPOINTS_2D_LIMITS.maxImportFiles),
  })
  .refine((keypoints) => keypoints.layout === 'openpose' || keypoints.files.length === 1, {
    message: 'A Kinetrace keypoints file is one file',
    path: ['files'],
  });
export type WireKeypoints = z.infer<typeof wireKeypointsSchema>;
export const wireVideoSchema = z.object({
  cameraName: z.string().max(200),
  url: inputLinkSchema,
  /** The file's name for the work folder (its extension tells the decoder the container). */
  fileName: workFileNameSchema,
  firstFrameTimeS: z.number().optional(),
  lens: wireLensSchema.optional(),
  keypoints: wireKeypointsSchema.optional(),
});
const boardSchema = z.object({
  rows: z.number().int().positive(),
  cols: z.number().int().positive(),
  squareSizeMm: z.number().positive(),
  placement: z.enum(CHECKERBOARD_PLACEMENTS),
});
const subjectSchema = z.object({ heightM: z.number().positive(), massKg: z.number().positive() });
export const wireSettingsSchema = z.object({
  board: boardSchema,
  poseModel: z.enum(['blazepose-lite', 'blazepose-full', 'blazepose-heavy']),
  requestedPoseModel: z.string().optional(),
  filterFrequency: z.union([z.literal('default'), z.number().positive()]),
  /** How often the worker runs the pose model (a worker that dropped it would infer every frame). */
  poseRate: z.enum(keysOf(POSE_RATES)).optional(),
  scalingSetup: z.enum(['upright_standing_pose', 'any_pose']),
  requestedAugmenter: z.string().optional(),
  /** The server has the requested augmenter weights installed: the worker must have them too. */
  augmenterInstalled: z.boolean(),
  requestedModel: z.string().optional(),
  modelInstalled: z.boolean(),
});
export const trialInputsManifestSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('calibration'), videos: z.array(wireVideoSchema).max(20), board: boardSchema }),
  z.object({
    kind: z.literal('neutral'),
    videos: z.array(wireVideoSchema).max(20),
    cameraSolutions: z.array(z.array(wireCameraSchema).max(4)).max(20),
    boardRmsPx: z.array(z.array(z.number())).optional(),
    subject: subjectSchema,
    settings: wireSettingsSchema,
  }),
  z.object({
    kind: z.literal('movement'),
    trialName: z.string(),
    videos: z.array(wireVideoSchema).max(20),
    cameras: z.array(wireCameraSchema).max(20),
    calibrationErrorsPx: z.array(z.number().nullable()).optional(),
    scaledModelOsim: z.string(),
    subject: subjectSchema,
    settings: wireSettingsSchema,
  }),
]);
export type TrialInputsManifest = z.infer<typeof trialInputsManifestSchema>;

const resultTags = Object.values(RESULT_TAGS) as [string, ...string[]];
/** One result file: its tag, its name (unique within the attempt), and the camera of a per-camera result. */
export const resultFileRefSchema = z.object({
  tag: z.enum(resultTags),
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,200}$/, 'Letters, digits, dots, dashes and underscores only'),
  camera_name: z.string().max(200).optional(),
});
export type ResultFileRef = z.infer<typeof resultFileRefSchema>;
export const completeRequestSchema = z.object({
  results: z.array(resultFileRefSchema).max(200),
  /** Slow outputs the worker makes after this (their results then come by addResults). */
  follow_up: z.enum(followUpStageKeys).optional(),
});
export type CompleteRequest = z.infer<typeof completeRequestSchema>;
export const addResultsRequestSchema = z.object({ results: z.array(resultFileRefSchema).max(200) });

export const failRequestSchema = z.discriminatedUnion('kind', [
  /** The user can act on it: the trial ends in error with this message (no retry). */
  z.object({ kind: z.literal('user'), message: z.string().min(1).max(2000) }),
  /** Ours: retried while attempts remain; the text goes to the server's log only. */
  z.object({ kind: z.literal('internal'), error: z.string().max(10_000) }),
]);
export type FailRequest = z.infer<typeof failRequestSchema>;

/** GET of a signed input link: expiry (ms since the epoch) and signature. */
export const inputLinkParamsSchema = z.object({ lease: leaseIdSchema, index: z.coerce.number().int().min(0).max(19) });
export const inputKeypointsParamsSchema = inputLinkParamsSchema.extend({
  file: z.coerce
    .number()
    .int()
    .min(0)
    .max(KEYPOINTS_2D_LIMITS.maxImportFiles - 1),
});
export const inputLinkQuerySchema = z.object({
  expires: z.coerce.number().int().positive(),
  signature: z.string().max(200),
});
