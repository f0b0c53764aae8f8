import type { CameraModel } from '../camera/camera.ts';
import { processTrial, type TrialResult } from '../pipeline/process-trial.ts';
import type { PipelineStage } from '../pipeline/stages.ts';
import type { ProcessingSettings, RunOptions, SessionVideo } from './types.ts';
import { withUnreadableVideosNamedByCamera } from './unreadable-video.ts';

/** A neutral or movement trial's videos → 3D keypoints with the session's settings (processTrial, progress mapped by the caller). */
export function reconstructSessionTrial(
  input: {
    trialName: string;
    videos: readonly SessionVideo[];
    cameras: readonly CameraModel[];
    /** Both board solutions per camera, for the neutral to choose from. */
    cameraSolutions?: { camera: CameraModel; boardRmsPx: number }[][];
    calibrationErrorsPx?: readonly (number | null | undefined)[];
    settings: ProcessingSettings;
    isGait: boolean;
    /** The neutral trial: among other people, the subject is the one standing still. */
    neutral?: boolean;
  },
  options: RunOptions,
  onProgress: (stage: PipelineStage, done: number, total: number) => void,
): Promise<TrialResult> {
  return withUnreadableVideosNamedByCamera(() =>
    processTrial(
      {
        trialName: input.trialName,
        cameras: input.cameras,
        videos: input.videos,
        calibrationErrorsPx: input.calibrationErrorsPx,
      },
      {
        pool: options.pool,
        workers: options.workers,
        estimatePose: options.estimatePose,
        poseModel: input.settings.poseModel,
        poseRate: input.settings.poseRate,
        filterFrequency: input.settings.filterFrequency,
        isGait: input.isGait,
        synchronise: input.settings.synchronise,
        maxSyncLagS: input.settings.maxSyncLagS,
        minConfidence: input.settings.minConfidence,
        cameraSolutions: input.cameraSolutions,
        neutral: input.neutral,
        onProgress,
      },
    ),
  );
}
