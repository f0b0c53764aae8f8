/**
 * The seam between the engine and the processing runner (docs: briefs engine-api; spec §4.2,
 * DESIGN §2): one function per trial kind — calibrateSession, processNeutral, processMovement —
 * and the types they share. Nothing here knows of HTTP, databases or contracts; camera models
 * cross the seam as Kinetrace camera JSON (camera/formats/kinetrace-json.ts) and user errors as
 * ProcessingError (pipeline/processing-error.ts), whose message is shown as is.
 */
import type { CameraModel } from '../camera/camera.ts';
import type { BoardSpec, CalibrationSolution } from '../calibration/camera-calibration.ts';
import type { KeypointsSource } from '../formats/keypoints-2d-files.ts';
import type { ProcessTrialOptions } from '../pipeline/process-trial.ts';
import type { PoseModelName } from '../pose/pose-model.ts';
import type { PoseRate } from '../pose/pose-rate.ts';
import type { PoseInference, PoseWorkerPool } from '../pose/pose-worker-pool.ts';

export type { BoardSpec, CalibrationSolution, CameraModel, PoseModelName, PoseWorkerPool };

/** Stage names equal the keys of PROCESSING_STAGES in packages/contracts/src/processing.ts. */
export type SessionStage = 'board' | 'pose' | 'sync' | 'triangulate' | 'filter' | 'scale_ik' | 'outputs';
/** `fraction` is of the whole trial, 0..1, never decreasing. */
export type SessionProgress = (stage: SessionStage, fraction: number) => void;

export interface SessionVideo {
  cameraName: string;
  /** The camera's video; may be left out when `keypoints` are given with their frame times or rate. */
  path?: string;
  /** 2D keypoints made elsewhere (another detector, the phone): used instead of detecting them in the video. */
  keypoints?: KeypointsSource;
  /** Time of the first frame on the clock the phones share, seconds. */
  firstFrameTimeS?: number;
}

/** A device model's lens calibration, used instead of the board's single-view estimate. */
export interface LensIntrinsics {
  intrinsics: Float64Array;
  distortion: Float64Array;
  imageSize: { width: number; height: number };
}

export interface ProcessingSettings {
  /** rows, cols (inner corners), squareSizeMm, placement. */
  board: BoardSpec;
  /** Our pose model actually used. */
  poseModel: PoseModelName;
  /** What the session asked for (hrnet | openpose), for main_settings. */
  requestedPoseModel?: string;
  filterFrequency: 'default' | number;
  isGait?: boolean;
  /**
   * How often the pose model runs on a camera's frames (pose-rate.ts): every frame (the default, as `kinetrace
   * process` runs), or 'filter', at the rate the trial's filter needs, the frames between filled (the server's
   * default, issue 24).
   */
  poseRate?: PoseRate;
  scalingSetup: 'upright_standing_pose' | 'any_pose';
  /** Installed augmenter weights for the session's augmenter_model, if the operator provided them. */
  augmenterDir?: string;
  requestedAugmenter?: string;
  /** An installed .osim to use instead of Kinetrace's default model. */
  modelPath?: string;
  requestedModel?: string;
  /** Folder processing (`kinetrace process` settings.json) only; the app leaves these unset. See ReconstructOptions. */
  synchronise?: boolean;
  maxSyncLagS?: number;
  minConfidence?: number;
}

/** A file the engine wrote into `outDir`; `tag` equals a RESULT_TAGS value of packages/contracts/src/processing.ts. */
export interface OutputFile {
  tag: string;
  path: string;
  cameraName?: string;
}

export interface RunOptions {
  onProgress?: SessionProgress;
  /** A running pose worker pool to reuse (left open). */
  pool?: PoseInference;
  /** Pose worker threads when no pool is given (default: one per core). */
  workers?: number;
  /** Replaces decoding and pose detection, e.g. with keypoints from another tool (folder processing, tests). */
  estimatePose?: ProcessTrialOptions['estimatePose'];
}

/** A board video (calibration always has one), with the device's lens calibration when known. */
export type CalibrationVideo = SessionVideo & { path: string; lens?: LensIntrinsics };

export interface CalibrationInput {
  videos: CalibrationVideo[];
  board: BoardSpec;
  outDir: string;
}

export interface CalibratedCamera {
  cameraName: string;
  /** Both IPPE solutions of the planar board, best board RMS first (1 when only one exists). */
  solutions: CalibrationSolution[];
  intrinsicsEstimated: boolean;
  boardRmsPx: number;
  /** JPEG: the frame used, detected corners and the world axes drawn. */
  imagePath: string;
}

export interface CalibrationOutcome {
  cameras: CalibratedCamera[];
}

export interface Subject {
  heightM: number;
  massKg: number;
}

export interface NeutralInput {
  videos: SessionVideo[];
  /** Per video (same order): the calibration's candidate cameras (2 from a board, 1 when imported). */
  cameraSolutions: CameraModel[][];
  /** Optional, same shape as cameraSolutions: each candidate's board reprojection error (CalibrationSolution.boardRmsPx), px, for the quality report. */
  boardRmsPx?: number[][];
  subject: Subject;
  settings: ProcessingSettings;
  outDir: string;
}

export interface NeutralOutcome {
  /** The chosen solution per video (same order); kept for the session's other trials. */
  cameras: CameraModel[];
  /** marker_data (.trc), opensim_model (scaled .osim), main_settings (.json), quality_report (.json), neutral-img (one JPEG per camera). */
  files: OutputFile[];
  /** The scaled model as .osim text (also in files), for the movement trials. */
  scaledModelOsim: string;
  /** The chosen cameras' board reprojection errors when known (same order), px: MovementInput.calibrationErrorsPx. */
  calibrationErrorsPx?: (number | null)[];
}

export interface MovementInput {
  videos: SessionVideo[];
  /** The neutral's chosen cameras, same order as videos. */
  cameras: CameraModel[];
  /** Optional, same order: the chosen cameras' board reprojection errors, px, for the quality report. */
  calibrationErrorsPx?: (number | null)[];
  scaledModelOsim: string;
  subject: Subject;
  settings: ProcessingSettings;
  outDir: string;
  trialName: string;
}

/** A movement trial's results without its synchronised videos, and the step that writes those (processMovementResultsFirst). */
export interface MovementResultsFirst {
  /** MovementOutcome's files but video-sync and video-sync-deidentified. */
  files: OutputFile[];
  /** Writes the synchronised videos into outDir (may be called again after a failure); `onProgress` per camera. */
  writeSyncVideos(onProgress?: (done: number, total: number) => void): Promise<OutputFile[]>;
}

export interface MovementOutcome {
  /**
   * visualizerTransforms-json, ik_results (.mot, degrees), IK-json, marker_data (.trc),
   * opensim_model (.osim), video-sync (one H.264 mp4 per camera, cameraName set) and video-sync-deidentified
   * (the same with faces blurred), main_settings,
   * quality_report.
   */
  files: OutputFile[];
}
