import { z } from 'zod';
import { messages } from './messages.ts';
import { setMetadataQuerySchema } from './sessions.ts';
import { KEYPOINT_SETS } from './keypoints-2d.ts';

/**
 * Processing a trial (spec §4.2, §4.3; DESIGN §2): what its kind is, which stage it is in, and the
 * results it leaves. The runner writes `progress` into the trial's meta; the wizard screens and the
 * trial list read it.
 */

/** What a trial is processed as: decided by its name (calibration, neutral) or a movement trial. */
export const TRIAL_KINDS = ['calibration', 'neutral', 'movement'] as const;
export type TrialKind = (typeof TRIAL_KINDS)[number];
export const trialKindOf = (trialName: string): TrialKind =>
  trialName === 'calibration' ? 'calibration' : trialName === 'neutral' ? 'neutral' : 'movement';

/** Stages a user sees, in order. Calibration uses `board` and `outputs`; neutral and movement the rest. */
export const PROCESSING_STAGES = {
  queued: 'Waiting in the queue',
  waiting_for_calibration: 'Waiting for the calibration',
  waiting_for_neutral: 'Waiting for the neutral trial',
  board: 'Finding the checkerboard',
  pose: 'Detecting the person (decode and pose)',
  sync: 'Synchronising the cameras',
  triangulate: 'Triangulating 3D keypoints',
  filter: 'Filtering',
  scale_ik: 'Scaling the model and solving joint angles',
  outputs: 'Writing the results',
} as const;
export type ProcessingStage = keyof typeof PROCESSING_STAGES;
const stageKeys = Object.keys(PROCESSING_STAGES) as [ProcessingStage, ...ProcessingStage[]];

/** `trial.meta.progress` while a trial is processing (absent before and after). */
export const processingProgressSchema = z.object({
  stage: z.enum(stageKeys),
  /** Whole trial, 0 to 100. */
  percent: z.number().min(0).max(100),
  /** When processing of this attempt started (ISO time), for the elapsed time on screen. */
  started_at: z.string(),
  /** Seconds the whole trial is expected to take, from the videos' length; beyond a few times this the screens say something is wrong. */
  expected_s: z.number().nonnegative().optional(),
  /** Which attempt this is, of how many: internal failures are retried, and from the second on the screens say so. */
  attempt: z.object({ number: z.number().int().min(1), of: z.number().int().min(1) }).optional(),
});
export type ProcessingProgress = z.infer<typeof processingProgressSchema>;

/**
 * Outputs made after a trial is done (issue 24): the trial is marked done once its angles, keypoints, model,
 * viewer data and report are stored, and the slow outputs follow with their own stage and percentage.
 */
export const FOLLOW_UP_STAGES = {
  /** One video per camera re-timed to the trial's clock (and its de-identified twin): decoding each video again. */
  sync_videos: 'Preparing synchronised videos',
} as const;
export type FollowUpStage = keyof typeof FOLLOW_UP_STAGES;
export const followUpStageKeys = Object.keys(FOLLOW_UP_STAGES) as [FollowUpStage, ...FollowUpStage[]];

/**
 * `trial.meta.follow_up` of a done trial while its slow outputs are made (`running`), or when making them failed
 * (`failed`, with the message users read: the trial stays done without them). Absent once they are stored;
 * reprocessing clears it.
 */
export const followUpSchema = z.object({
  stage: z.enum(followUpStageKeys),
  status: z.enum(['running', 'failed']),
  /** Of the follow-up alone, 0 to 100. */
  percent: z.number().min(0).max(100),
  /** When the follow-up started (ISO time). */
  started_at: z.string(),
  error_msg: z.string().optional(),
});
export type FollowUp = z.infer<typeof followUpSchema>;

/** Result tags (spec §3 names the first four). */
export const RESULT_TAGS = {
  visualizerTransforms: 'visualizerTransforms-json',
  ikResults: 'ik_results',
  ikJson: 'IK-json',
  videoSync: 'video-sync',
  /**
   * A synchronised video with every face the pose model found blurred, one per camera beside its
   * video-sync: what readers of a session shared with de-identified videos get as its video-sync
   * (docs/data-sharing.md); nobody else is shown it.
   */
  videoSyncDeidentified: 'video-sync-deidentified',
  markerData: 'marker_data',
  opensimModel: 'opensim_model',
  mainSettings: 'main_settings',
  qualityReport: 'quality_report',
  /** The trial's 3D markers (keypoints, or augmented markers) as C3D, for Visual3D, Mokka and lab software. */
  c3d: 'c3d',
  /** The joint angles of the .mot as CSV (same columns), for spreadsheets. */
  ikCsv: 'ik-csv',
  /** One per calibrated camera (Kinetrace camera JSON); meta.device_id names the phone. */
  cameraParameters: 'camera-parameters',
  calibrationImage: 'calibration-img',
  neutralImage: 'neutral-img',
  /** OpenCap's sessionMetadata.yaml, on each processed neutral; made from the session when asked, not stored. */
  sessionMetadata: 'session_metadata',
  /** OpenCap's mappingCamDevice.pickle (`{device id: camera index}`), on the calibration; made when asked. */
  cameraMapping: 'camera_mapping',
} as const;
export type ResultTag = (typeof RESULT_TAGS)[keyof typeof RESULT_TAGS];

export const processingPaths = {
  /** POST: queue one trial again with the session's current settings (status `reprocess`). */
  reprocessTrial: (trialId: string) => `/trials/${trialId}/reprocess/`,
  /** POST: queue every processed trial of the session again (calibration first, then neutral, then movement). */
  reprocessSession: (sessionId: string) => `/sessions/${sessionId}/reprocess/`,
  /** POST multipart `file` (repeatable): camera calibration files that make the session calibrated. */
  importCalibration: (sessionId: string) => `/sessions/${sessionId}/import-calibration/`,
  /** GET: a new session with this one's calibration and phones, for the next subject (spec §7). */
  newSubject: (sessionId: string) => `/sessions/${sessionId}/new_subject/`,
  /** GET list / POST multipart `device_model` + `file` (a `kinetrace calibrate` JSON or board images). */
  lensCalibrations: '/lens-calibrations/',
} as const;

/** What the runner tells users when processing cannot start or fails through no fault of theirs. */
export const processingMessages = {
  /** An internal failure after its last retry: never the error's own text, a stack or a path. */
  internalFailure:
    'Processing failed because of a problem on the server, not with your recording. Try Reprocess; if it fails again, report it with the trial id.',
  calibrationMissing:
    'This session has no calibrated cameras yet. Record (or import) the calibration first, then reprocess this trial.',
  neutralMissing:
    'This session has no processed neutral trial. Record the neutral pose first, then reprocess this trial.',
  camerasNotCalibrated: (cameras: string[]) =>
    `No calibration for camera${cameras.length === 1 ? '' : 's'} ${cameras.join(', ')}. Calibrate the session again with the cameras that recorded this trial.`,
  subjectMissing:
    "The subject's mass and height are needed to scale the model. Choose the session's subject, then reprocess the neutral trial.",
  notProcessable: 'Only a trial that has finished processing (done or error) can be reprocessed.',
  notProcessedInRecycleBin:
    'This trial was moved to the recycle bin before it was processed. Restore it and choose Reprocess to process it.',
  /** The synchronised videos failed after the trial was done (tried twice when the fault was ours): it stays done without them. */
  syncVideosFailed:
    'The synchronised videos could not be prepared because of a problem on the server; the results above are complete. Try Reprocess to make the videos; if it fails again, report it with the trial id.',
  /** In a downloaded archive, where the videos would be, while they are made. */
  syncVideosPending: (trialName: string, percent: number) =>
    `The synchronised videos of trial ${trialName} were still being prepared (${percent}%) when this archive was made. Download the data again once the trial shows them.`,
  /** The process making them stopped (a worker killed, a server restarted) after the trial was done. */
  syncVideosInterrupted:
    'The synchronised videos were not prepared: processing stopped after the results were stored. Try Reprocess to make the videos.',
  /** An attempt after an internal failure, while it waits or runs. */
  retrying: (attempt: number, of: number) => `retrying (${attempt} of ${of})`,
  /** A movement trial behind a neutral that failed: it runs once a neutral succeeds (re-recorded or reprocessed). */
  waitingAfterFailedNeutral: (neutralError: string) =>
    `Waiting for a neutral pose (the last one failed: ${neutralError})`,
} as const;

export const reprocessResponseSchema = z.object({ trials: z.array(z.string()) });

/** A device model's lens calibration (intrinsics used instead of the board estimate). */
export const lensCalibrationSchema = z.object({
  device_model: z.string(),
  image_size: z.object({ width: z.number().int(), height: z.number().int() }),
  rms_error_px: z.number().nullable(),
  created_at: z.string(),
});
export type LensCalibration = z.infer<typeof lensCalibrationSchema>;

export const deviceModelField = z
  .string({ error: 'Name the device model.' })
  .trim()
  .min(1, 'Name the device model.')
  .max(100);

/** Calibration files `importCalibration` reads, by how the file name ends (lower case). */
export const CALIBRATION_FILE_EXTENSIONS = ['.json', '.toml', '.qca.txt', '.pickle', '.pkl'] as const;
/**
 * A calibration or lens file (not a board photo) is at most 1 MB: a camera takes about 1.2 KB (the Pose2Sim
 * demo's 4-camera Calib.qca.txt is 4.8 KB), so this is some 800 cameras; past it a file is numbers nobody
 * measured (issue 20: 2 MB of them kept a reader busy 2.7 s, 64 such files per import).
 */
export const CALIBRATION_FILE_MAX_BYTES = 1024 * 1024;
/** Lens-calibration board images `lensCalibrations` reads (or one `kinetrace calibrate` .json). */
export const LENS_IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png', '.bmp', '.tif', '.tiff', '.webp'] as const;
/** Lens calibration needs the board in this many images at least (Zhang's method, as `kinetrace calibrate`). */
export const LENS_MIN_VIEWS = 3;
/** Board photos up to 64 megapixels (phones save 12-50); a larger image is refused before it is decoded. */
export const LENS_MAX_IMAGE_PIXELS = 64_000_000;

/** POST importCalibration answers with the calibration trial and its cameras (imported videos pair with these names). */
export const importCalibrationResponseSchema = z.object({
  trial_id: z.string(),
  cameras: z.array(z.string()),
});
export type ImportCalibrationResponse = z.infer<typeof importCalibrationResponseSchema>;

/** POST lensCalibrations multipart fields besides `file`; the board (inner corners) is only used for images. */
export const lensCalibrationFieldsSchema = setMetadataQuerySchema
  .pick({ cb_rows: true, cb_cols: true, cb_square: true })
  .extend({ device_model: deviceModelField });
export type LensCalibrationFields = z.infer<typeof lensCalibrationFieldsSchema>;
export const lensCalibrationsResponseSchema = z.array(lensCalibrationSchema);

/** POST /sessions/{id}/import/ multipart fields besides `video` (one per camera). */
export const importVideosFieldsSchema = z.object({
  name: z.string().trim().min(1, messages.required),
  /** The cameras' model, when a lens calibration of it should be used (board calibrations). */
  device_model: deviceModelField.optional(),
  /** The keypoint set of OpenPose-layout `keypoints` files (default: from their keypoint count). */
  keypoint_set: z.enum(KEYPOINT_SETS).optional(),
});

/** What the import and lens-calibration calls say when they refuse a file (field `file`, or `video` for imports). */
export const importMessages = {
  calibrationFileType: (fileName: string) =>
    `"${fileName}" is not a calibration file Kinetrace reads: use a Kinetrace .json, Pose2Sim .toml, Qualisys .qca.txt or OpenCap .pickle file.`,
  calibrationFileUnreadable: (fileName: string, format: string) =>
    `"${fileName}" could not be read as a ${format} calibration file. Upload the file your calibration software exported, unchanged.`,
  /** A calibration or lens file whose tables, keys or attributes are named __proto__, constructor or prototype (issue 20). */
  fileUnsafeName: (fileName: string) =>
    `"${fileName}" names a table, key or attribute __proto__, constructor or prototype, which Kinetrace refuses: upload the file your calibration software exported, unchanged.`,
  /** A file whose reading went past its time or memory limit (issue 20: a 52-byte pickle asked for gigabytes). */
  calibrationFileTooLarge: (fileName: string) =>
    `"${fileName}" is larger than ${CALIBRATION_FILE_MAX_BYTES / 1024 / 1024} MB, far more than a calibration file ever is: upload the file your calibration software exported, unchanged.`,
  fileTooDemanding: (fileName: string) =>
    `"${fileName}" needs more time or memory to read than a calibration file ever does, so it was not read: upload the file your calibration software exported, unchanged.`,
  /** `problem`: which camera of the file and the camera schema's messages (cameraMessages), e.g. 'camera "cam1": The rotation must be …'. */
  calibrationCameraInvalid: (fileName: string, problem: string) => `"${fileName}", ${problem}`,
  calibrationCameraTwice: (camera: string, fileName: string) =>
    `Camera "${camera}" is calibrated twice (again in "${fileName}"): upload each camera's calibration once.`,
  calibrationTooFewCameras: (count: number) =>
    `The files hold ${count} camera${count === 1 ? '' : 's'}, but at least 2 calibrated cameras are necessary.`,
  newSubjectWhileRecording: (trialName: string) =>
    `Trial "${trialName}" is still being recorded or uploaded: wait until its videos are in, then start the next subject.`,
  neutralNeedsSubject:
    "Choose the session's subject before importing a neutral trial: scaling the model needs the subject's height and mass.",
  /** A `keypoints` file of an import: `problem` names the field at fault (keypoints-2d.ts schemas). */
  keypointsInvalid: (fileName: string, problem: string) => `"${fileName}": ${problem}`,
  keypointsNotJson: (fileName: string) =>
    `"${fileName}" is not a keypoints file: upload Kinetrace keypoints .json files (one per camera, named after it) or OpenPose files (<camera>_<frame>_keypoints.json).`,
  keypointsTooLarge: (fileName: string, maxMb: number) => `"${fileName}" is larger than ${maxMb} MB.`,
  keypointsWithoutVideo: (camera: string, cameras: string[]) =>
    `Keypoints are given for camera "${camera}", which has no video in this import (${cameras.join(', ')}): name the keypoints files after the videos' cameras.`,
  keypointsTwice: (camera: string) =>
    `Camera "${camera}" has keypoints in both layouts: give one Kinetrace .json file or its OpenPose files, not both.`,
  videosTooFew: (videoCount: number) =>
    `${videoCount} video${videoCount === 1 ? '' : 's'} chosen: import at least 2 videos of the trial, one per camera of the session's calibration.`,
  videoTooLong: (fileName: string, durationS: number, framerate: number, limitS: number) =>
    `"${fileName}" is ${Math.round(durationS)} s long; a trial at ${Math.round(framerate)} fps is at most ${limitS} s (60 s at 60 fps, 30 s at 120 fps, 15 s at 240 fps). Cut the video to the movement and import it again.`,
  videosNotPaired: (videoCount: number, cameras: string[]) =>
    `${videoCount} videos cannot be paired with the ${cameras.length} calibrated cameras (${cameras.join(', ')}): name each video after its camera (e.g. ${cameras[0]}.mp4), or import one video per calibrated camera.`,
  lensFileType: (fileName: string) =>
    `"${fileName}" is neither a \`kinetrace calibrate\` .json file nor a board image (${LENS_IMAGE_EXTENSIONS.join(', ')}).`,
  lensOneJson: 'Upload one `kinetrace calibrate` .json file, or board images, not both.',
  lensJsonUnreadable: (fileName: string) =>
    `"${fileName}" is not a \`kinetrace calibrate\` file: it must be the Kinetrace camera .json the command wrote, with one camera.`,
  lensImageUnreadable: (fileName: string) => `"${fileName}" could not be read as an image.`,
  lensImageTooLarge: (fileName: string) =>
    `"${fileName}" has more than ${LENS_MAX_IMAGE_PIXELS / 1_000_000} megapixels: photograph the board at the camera's usual resolution.`,
  lensImageSizes: (fileName: string) =>
    `"${fileName}" has another size or orientation than the first image: take every image with the same camera, held the same way.`,
  lensTooFewViews: (found: number, total: number, cols: number, rows: number) =>
    `The ${cols} x ${rows} board (inner corners) was found in ${found} of ${total} images; at least ${LENS_MIN_VIEWS} are needed. ` +
    'Check the board size (inner corners, not squares), and photograph the whole board from several angles (tilted 20-45°, near the image corners too).',
  lensFailed: 'The lens calibration did not converge: take sharper images of a flat board from more varied angles.',
} as const;
