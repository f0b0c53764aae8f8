import { writeFile } from 'node:fs/promises';
import type { TrialKind } from '@kinetrace/contracts';
import type { CameraDetection } from '@kinetrace/mocap/formats/keypoints-2d-files';
import { keypoints2DToJson } from '@kinetrace/mocap/formats/keypoints-2d-json';
import { cameraDetectionOf, detectCameraKeypoints } from '@kinetrace/mocap/pipeline/process-trial';
import type { PoseInference } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { ProcessingSettings } from '@kinetrace/mocap/session/types';
import { probeVideo } from '@kinetrace/mocap/video/probe';

/** The trial a video arrived for, as its processing will detect it. */
export interface ArrivingTrial {
  kind: Exclude<TrialKind, 'calibration'>;
  /** The trial's name: a movement's cutoff depends on it (gait or not). */
  name: string;
  settings: ProcessingSettings;
}

/**
 * How processing will detect a camera of `trial` with `pool` (what process-neutral.ts and process-movement.ts
 * give processTrial: the neutral is never gait, a movement is gait by its name unless the settings say).
 */
function detectionChoicesOf(trial: ArrivingTrial, pool: PoseInference) {
  const { poseModel, poseRate, filterFrequency, isGait } = trial.settings;
  return {
    poseModel,
    poseRate,
    filterFrequency,
    isGait: trial.kind === 'neutral' ? false : isGait,
    pool,
  };
}

/**
 * One camera's 2D keypoints detected while the trial's other videos are still arriving (issue 24), exactly as
 * processing will detect that camera (detectCameraKeypoints with the trial's pose model, frames per inference and
 * a pool of the size processing uses), written to `outPath` as the engine's keypoints JSON (every person the
 * tracker saw, the frame times: lossless). Answers how they were made, for the engine to use them only when
 * it detects the same way (processTrial, KeypointsSource.detectedWith).
 */
export async function detectOnArrival(
  video: { cameraName: string; path: string },
  trial: ArrivingTrial,
  pool: PoseInference,
  outPath: string,
): Promise<CameraDetection> {
  const info = await probeVideo(video.path);
  const choices = detectionChoicesOf(trial, pool);
  const detection = cameraDetectionOf(info, trial.name, choices);
  const keypoints = await detectCameraKeypoints(video, info, pool, {
    framesPerInference: detection.framesPerInference,
  });
  await writeFile(outPath, JSON.stringify(keypoints2DToJson(keypoints)));
  return detection;
}
