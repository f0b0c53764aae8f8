import { join } from 'node:path';
import { DEFAULT_POSE_MODEL, type PoseModelName } from '../pose/pose-model.ts';
import { PoseWorkerPool } from '../pose/pose-worker-pool.ts';
import type { QualityReport } from '../report/quality-report.ts';
import { matchCamerasToVideos, readFolderCalibration } from './folder-calibration.ts';
import { readFolderSettings, type FolderSettings } from './folder-settings.ts';
import { processTrial, type ProcessTrialOptions } from './process-trial.ts';
import { ProcessingError } from './processing-error.ts';
import type { PipelineStage } from './stages.ts';
import { findTrials } from './trial-folder.ts';
import { writeTrialOutputs, type TrialOutputFiles } from './write-trial-outputs.ts';

/**
 * `kinetrace process <folder>`: every trial of a folder laid out as docs/process.md describes,
 * processed with its calibration and settings, outputs written to `<folder>/output/<trial>/`.
 */
export interface ProcessFolderOptions {
  /** Where to write (default `<folder>/output`). */
  outDir?: string;
  /** Process only this trial. */
  trial?: string;
  /** Overrides of settings.json. */
  poseModel?: PoseModelName;
  filterFrequency?: FolderSettings['filterFrequency'];
  workers?: number;
  estimatePose?: ProcessTrialOptions['estimatePose'];
  onTrial?: (trial: string, index: number, count: number) => void;
  onProgress?: (stage: PipelineStage, done: number, total: number) => void;
}

export interface ProcessedTrial {
  name: string;
  files: TrialOutputFiles;
  report: QualityReport;
  stageSeconds: Partial<Record<PipelineStage, number>>;
  cameraFrames: number;
}

/** Neutral and static trials are processed first (DESIGN §2: calibration → neutral → dynamic). */
const isStatic = (trialName: string) => /neutral|static/i.test(trialName);

export async function processFolder(folder: string, options: ProcessFolderOptions = {}): Promise<ProcessedTrial[]> {
  const settings = readFolderSettings(folder);
  let trials = findTrials(folder);
  if (options.trial !== undefined) {
    trials = trials.filter((trial) => trial.name === options.trial);
    if (trials.length === 0) throw new ProcessingError('INVALID_FOLDER', `No trial named "${options.trial}" in ${join(folder, 'videos')}.`);
  }
  const calibration = await readFolderCalibration(folder, settings.board);
  // With board calibrations the first trial (a neutral or static one when there is one) decides
  // which of each camera's two board poses is right; later trials keep that choice.
  trials.sort((a, b) => Number(isStatic(b.name)) - Number(isStatic(a.name)));
  let cameraSolutions = calibration.solutions;
  const calibrated = [...calibration.cameras];
  const boardErrorsPx: (number | null)[] = calibrated.map(() => null);
  const outDir = options.outDir ?? join(folder, 'output');
  const pool = options.estimatePose
    ? undefined
    : await PoseWorkerPool.start({ model: options.poseModel ?? settings.poseModel ?? DEFAULT_POSE_MODEL, workers: options.workers });
  try {
    const processed: ProcessedTrial[] = [];
    for (const [trialIndex, trial] of trials.entries()) {
      options.onTrial?.(trial.name, trialIndex, trials.length);
      const { indices, warning } = matchCamerasToVideos(calibrated, trial.videos.map((video) => video.cameraName));
      const cameras = indices.map((index) => calibrated[index]);
      const result = await processTrial(
        {
          trialName: trial.name,
          cameras,
          videos: trial.videos.map((video) => ({ ...video, firstFrameTimeS: settings.firstFrameTimesS[video.cameraName] })),
          calibrationErrorsPx: indices.map((index) => boardErrorsPx[index]),
        },
        {
          pool,
          estimatePose: options.estimatePose,
          filterFrequency: options.filterFrequency ?? settings.filterFrequency,
          isGait: settings.movement === undefined ? undefined : settings.movement === 'gait',
          synchronise: settings.synchronise,
          maxSyncLagS: settings.maxSyncLagS,
          minConfidence: settings.minConfidence,
          cameraSolutions: cameraSolutions && indices.map((index) => cameraSolutions![index]),
          onProgress: options.onProgress,
        },
      );
      if (warning) result.report.warnings.unshift(warning);
      if (cameraSolutions) {
        indices.forEach((index, i) => {
          calibrated[index] = result.cameras[i];
          boardErrorsPx[index] = result.report.cameras.find((camera) => camera.name === calibrated[index].name)?.calibrationErrorPx ?? null;
        });
        cameraSolutions = undefined;
      }
      options.onProgress?.('outputs', 0, 1);
      const files = await writeTrialOutputs(result, trial.name, join(outDir, trial.name));
      options.onProgress?.('outputs', 1, 1);
      processed.push({ name: trial.name, files, report: result.report, stageSeconds: result.stageSeconds, cameraFrames: result.cameraFrames });
    }
    return processed;
  } finally {
    await pool?.close();
  }
}
