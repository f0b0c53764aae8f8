import type { FollowUpStage, ProcessingStage, ResultTag } from '@kinetrace/contracts';
import type {
  BoardSpec,
  CameraModel,
  CalibrationVideo,
  ProcessingSettings,
  SessionVideo,
  Subject,
} from '@kinetrace/mocap/session/types';

/**
 * Everything one trial's processing reads and writes, behind one interface: the server implements it
 * over its database and file store for the in-process runner, a remote worker over the API, and
 * runTrial (run-trial.ts) is the same for both. Videos are local files named by camera; camera
 * models travel as Kinetrace camera JSON files (engine: camera/formats/kinetrace-json.ts).
 */
export type TrialInputs = CalibrationTrialInputs | NeutralTrialInputs | MovementTrialInputs;

export interface CalibrationTrialInputs {
  kind: 'calibration';
  /** One per camera; `lens` when a lens calibration of that device model is known. */
  videos: CalibrationVideo[];
  board: BoardSpec;
}

export interface NeutralTrialInputs {
  kind: 'neutral';
  videos: SessionVideo[];
  /** Per video (same order): the session calibration's candidate cameras (2 from a board, 1 when imported). */
  cameraSolutions: CameraModel[][];
  /** Same shape: each candidate's board reprojection error, px, when the calibration recorded it. */
  boardRmsPx?: number[][];
  subject: Subject;
  settings: ProcessingSettings;
}

export interface MovementTrialInputs {
  kind: 'movement';
  trialName: string;
  videos: SessionVideo[];
  /** The neutral's chosen camera per video (same order). */
  cameras: CameraModel[];
  /** Same order: their board reprojection errors, px, when known (for the quality report). */
  calibrationErrorsPx?: (number | null)[];
  scaledModelOsim: string;
  subject: Subject;
  settings: ProcessingSettings;
}

/**
 * One result file in the work directory. `cameraName` is the video's camera for per-camera results
 * (camera-parameters, calibration-img, neutral-img, video-sync).
 */
export interface ResultFile {
  tag: ResultTag;
  path: string;
  cameraName?: string;
}

/**
 * How an attempt failed: a message the user can act on (with the error it came from, for the log),
 * or our fault (retried while attempts remain).
 */
export type TrialFailure =
  | { kind: 'user'; message: string; error: unknown }
  /** `interrupted`: the server stopped it, which is no fault of the trial's nor of ours. */
  | { kind: 'internal'; error: unknown; willRetry: boolean; interrupted?: boolean };

/** The trial cannot be processed until the user does something (calibrate, record the neutral): the message says what. */
export class TrialInputError extends Error {
  override name = 'TrialInputError';
}

export interface TrialIO {
  /**
   * Fetches the trial's videos into `workDir` and resolves everything else it needs. Throws a
   * TrialInputError when the user must act first (no calibrated cameras, say).
   */
  readInputs(workDir: string): Promise<TrialInputs>;
  /** Stage and whole-trial percentage (0–100), for the screens. */
  progress(stage: ProcessingStage, percent: number): Promise<void>;
  /**
   * Stores the results, replacing any earlier attempt's at once (an earlier follow-up's too), and marks the
   * trial done. With `followUp`, slower outputs follow (issue 24): the trial is shown done with that stage
   * running, and this attempt keeps the trial (a remote worker its lease) until addResults or followUpFailed.
   */
  complete(results: ResultFile[], options?: { followUp?: FollowUpStage }): Promise<void>;
  fail(failure: TrialFailure): Promise<void>;
  /** The follow-up's percentage (0–100, of the follow-up alone), for the screens; also its heartbeat. */
  followUpProgress(percent: number): Promise<void>;
  /** Stores the follow-up's results beside the done trial's and ends the follow-up. */
  addResults(results: ResultFile[]): Promise<void>;
  /** The follow-up failed for good: the trial stays done without its results, and says so where they would be. */
  followUpFailed(failure: TrialFailure): Promise<void>;
}
