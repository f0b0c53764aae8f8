import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeypointSetName } from '../pose/keypoint-sets.ts';
import { DEFAULT_POSE_MODEL, type PoseModelName } from '../pose/pose-model.ts';
import { PoseWorkerPool } from '../pose/pose-worker-pool.ts';
import type { QualityReport } from '../report/quality-report.ts';
import { processMovement } from '../session/process-movement.ts';
import { processNeutral } from '../session/process-neutral.ts';
import { KEYPOINTS_ONLY_STAGES, stageProgress } from '../session/progress.ts';
import { RESULT_TAG } from '../session/result-tags.ts';
import type { OutputFile, ProcessingSettings, RunOptions, SessionProgress } from '../session/types.ts';
import { type FolderCalibration, matchCamerasToVideos, readFolderCalibration } from './folder-calibration.ts';
import { readFolderSettings, type FolderSettings } from './folder-settings.ts';
import { processTrial, type ProcessTrialOptions } from './process-trial.ts';
import { ProcessingError } from './processing-error.ts';
import { type FolderTrial, findTrials } from './trial-folder.ts';
import { writeTrialOutputs } from './write-trial-outputs.ts';

/**
 * `kinetrace process <folder>`: the chain of a session (DESIGN §2, spec §4.2) on a folder laid out
 * as docs/process.md describes, through the same functions the app's runner calls: calibration
 * (a camera file, or board videos through calibrateSession) → the neutral/static trial
 * (processNeutral: camera choice, scaled model) → every other trial (processMovement: joint
 * angles, viewer JSON, synchronised videos). Without a neutral or static trial, each trial is
 * processed to 3D keypoints only, and its report says so. Outputs go to `<folder>/output/<trial>/`.
 */
export interface ProcessFolderOptions {
  /** Where to write (default `<folder>/output`). */
  outDir?: string;
  /** Process only this trial (and the neutral trial it needs). */
  trial?: string;
  /** Overrides of settings.json. */
  poseModel?: PoseModelName;
  filterFrequency?: FolderSettings['filterFrequency'];
  workers?: number;
  /** 2D keypoints made elsewhere (default `<folder>/keypoints`, when there; trial-folder.ts). */
  keypointsDir?: string;
  /** The keypoint set of OpenPose-layout files (default: from their keypoint count). */
  keypointSet?: KeypointSetName;
  /** Frame rate of keypoints given without a video (and without times in the file). */
  keypointsFps?: number;
  estimatePose?: ProcessTrialOptions['estimatePose'];
  onTrial?: (trial: string, index: number, count: number) => void;
  /** Progress of the current trial: its stage and the fraction of the trial done. */
  onProgress?: SessionProgress;
}

export interface ProcessedTrial {
  name: string;
  /** neutral: the scaled model; movement: joint angles; keypoints: 3D keypoints only (no neutral trial in the folder). */
  kind: 'neutral' | 'movement' | 'keypoints';
  /** The files written, tagged as the app's results are; `keypoints-json` for the keypoints-only JSON. */
  files: OutputFile[];
  report: QualityReport;
  cameraFrames: number;
}

/** Neutral and static trials scale the model (DESIGN §2: calibration → neutral → dynamic). */
const isNeutral = (trialName: string) => /neutral|static/i.test(trialName);

export const NO_NEUTRAL_WARNING =
  'No neutral or static trial in this folder: 3D keypoints only. Add a trial named "neutral" (or with "static" in its name) to get the scaled model and joint angles.';

export async function processFolder(folder: string, options: ProcessFolderOptions = {}): Promise<ProcessedTrial[]> {
  const settings = readFolderSettings(folder);
  const trials = findTrials(folder, {
    dir: options.keypointsDir,
    keypointSet: options.keypointSet,
    fps: options.keypointsFps,
  });
  if (options.trial !== undefined && !trials.some((trial) => trial.name === options.trial)) {
    throw new ProcessingError('INVALID_FOLDER', `No trial named "${options.trial}" in ${join(folder, 'videos')}.`);
  }
  const outDir = options.outDir ?? join(folder, 'output');
  const calibration = await readFolderCalibration(folder, settings.board, join(outDir, 'calibration'));
  const neutral = trials.find((trial) => isNeutral(trial.name));
  const movements = trials.filter(
    (trial) => trial !== neutral && (options.trial === undefined || trial.name === options.trial),
  );
  const poseModel = options.poseModel ?? settings.poseModel ?? DEFAULT_POSE_MODEL;
  // Only cameras without keypoints need the pose model (and those with a phone's, to check them).
  const detects = [neutral, ...movements].some((trial) =>
    trial?.videos.some((video) => !video.keypoints || video.keypoints.fromPhone),
  );
  const pool =
    options.estimatePose || !detects
      ? undefined
      : await PoseWorkerPool.start({ model: poseModel, workers: options.workers });
  const run: RunOptions = { pool, estimatePose: options.estimatePose, onProgress: options.onProgress };
  try {
    if (!neutral) return await keypointsOnly(movements, calibration, settings, options, run, outDir);
    const processing = processingSettings(settings, poseModel, options);
    const count = movements.length + 1;
    options.onTrial?.(neutral.name, 0, count);
    const neutralVideos = withCameras(neutral, calibration.cameras, settings);
    const neutralOutcome = await processNeutral(
      {
        videos: neutralVideos.videos,
        cameraSolutions: neutralVideos.indices.map(
          (index) => calibration.solutions?.[index].map((solution) => solution.camera) ?? [calibration.cameras[index]],
        ),
        boardRmsPx:
          calibration.solutions &&
          neutralVideos.indices.map((index) => calibration.solutions![index].map((solution) => solution.boardRmsPx)),
        subject: settings.subject,
        settings: processing,
        outDir: join(outDir, neutral.name),
      },
      run,
    );
    const processed = [await summary(neutral.name, 'neutral', neutralOutcome.files, neutralVideos.warning)];
    for (const [i, trial] of movements.entries()) {
      options.onTrial?.(trial.name, i + 1, count);
      const { videos, indices, warning } = withCameras(trial, neutralOutcome.cameras, settings);
      const { files } = await processMovement(
        {
          videos,
          cameras: indices.map((index) => neutralOutcome.cameras[index]),
          calibrationErrorsPx: indices.map((index) => neutralOutcome.calibrationErrorsPx?.[index] ?? null),
          scaledModelOsim: neutralOutcome.scaledModelOsim,
          subject: settings.subject,
          settings: processing,
          outDir: join(outDir, trial.name),
          trialName: trial.name,
        },
        run,
      );
      processed.push(await summary(trial.name, 'movement', files, warning));
    }
    return processed;
  } finally {
    await pool?.close();
  }
}

/** A trial's videos paired with the cameras (by name, else in order), with their start times from settings.json. */
function withCameras(trial: FolderTrial, cameras: FolderCalibration['cameras'], settings: FolderSettings) {
  const { indices, warning } = matchCamerasToVideos(
    cameras,
    trial.videos.map((video) => video.cameraName),
  );
  const videos = trial.videos.map((video) => ({
    ...video,
    firstFrameTimeS: settings.firstFrameTimesS[video.cameraName],
  }));
  return { videos, indices, warning };
}

function processingSettings(
  settings: FolderSettings,
  poseModel: PoseModelName,
  options: ProcessFolderOptions,
): ProcessingSettings {
  const filter = options.filterFrequency ?? settings.filterFrequency;
  return {
    board: settings.board,
    poseModel,
    // A text that is not a number goes through as NaN: the cutoff rule then warns and uses the default.
    filterFrequency: filter === 'default' || typeof filter === 'number' ? filter : Number(filter),
    isGait: settings.movement === undefined ? undefined : settings.movement === 'gait',
    poseRate: settings.poseRate,
    scalingSetup: settings.scalingSetup,
    modelPath: settings.modelPath,
    requestedModel: settings.modelName,
    augmenterDir: settings.augmenterDir,
    synchronise: settings.synchronise,
    maxSyncLagS: settings.maxSyncLagS,
    minConfidence: settings.minConfidence,
  };
}

/** The trial as the command line reports it: its files, and its quality report read back (with the pairing warning, if any). */
async function summary(
  name: string,
  kind: ProcessedTrial['kind'],
  files: OutputFile[],
  pairingWarning: string | undefined,
): Promise<ProcessedTrial> {
  const reportFile = files.find((file) => file.tag === RESULT_TAG.qualityReport)!;
  const report = JSON.parse(await readFile(reportFile.path, 'utf8')) as QualityReport;
  if (pairingWarning) report.warnings.unshift(pairingWarning);
  return {
    name,
    kind,
    files,
    report,
    cameraFrames: report.cameras.reduce((sum, camera) => sum + camera.framesTotal, 0),
  };
}

/**
 * Without a neutral trial: each trial to 3D keypoints. With board calibrations the first trial
 * decides which of each camera's two board poses is right; later trials keep that choice.
 */
async function keypointsOnly(
  trials: FolderTrial[],
  calibration: FolderCalibration,
  settings: FolderSettings,
  options: ProcessFolderOptions,
  run: RunOptions,
  outDir: string,
): Promise<ProcessedTrial[]> {
  let cameraSolutions = calibration.solutions;
  const calibrated = [...calibration.cameras];
  const boardErrorsPx: (number | null)[] = calibrated.map(() => null);
  const processed: ProcessedTrial[] = [];
  for (const [trialIndex, trial] of trials.entries()) {
    options.onTrial?.(trial.name, trialIndex, trials.length);
    const progress = stageProgress(KEYPOINTS_ONLY_STAGES, options.onProgress);
    const { videos, indices, warning } = withCameras(trial, calibrated, settings);
    const result = await processTrial(
      {
        trialName: trial.name,
        cameras: indices.map((index) => calibrated[index]),
        videos,
        calibrationErrorsPx: indices.map((index) => boardErrorsPx[index]),
      },
      {
        pool: run.pool,
        estimatePose: run.estimatePose,
        filterFrequency: options.filterFrequency ?? settings.filterFrequency,
        isGait: settings.movement === undefined ? undefined : settings.movement === 'gait',
        poseRate: settings.poseRate,
        synchronise: settings.synchronise,
        maxSyncLagS: settings.maxSyncLagS,
        minConfidence: settings.minConfidence,
        cameraSolutions: cameraSolutions && indices.map((index) => cameraSolutions![index]),
        onProgress: progress,
      },
    );
    result.report.warnings.unshift(NO_NEUTRAL_WARNING);
    if (warning) result.report.warnings.unshift(warning);
    if (cameraSolutions) {
      indices.forEach((index, i) => {
        calibrated[index] = result.cameras[i];
        boardErrorsPx[index] =
          result.report.cameras.find((camera) => camera.name === calibrated[index].name)?.calibrationErrorPx ?? null;
      });
      cameraSolutions = undefined;
    }
    progress('outputs', 0, 1);
    const files = await writeTrialOutputs(result, trial.name, join(outDir, trial.name));
    progress('outputs', 1, 1);
    processed.push({
      name: trial.name,
      kind: 'keypoints',
      files: [
        { tag: RESULT_TAG.markerData, path: files.trc },
        { tag: 'keypoints-json', path: files.keypointsJson },
        { tag: RESULT_TAG.qualityReport, path: files.report },
      ],
      report: result.report,
      cameraFrames: result.cameraFrames,
    });
  }
  return processed;
}
