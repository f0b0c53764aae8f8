import type { CameraModel } from '../camera/camera.ts';
import { detectPose2D } from '../pose/detect-pose.ts';
import { NoPersonFoundError } from '../pose/errors.ts';
import { VIDEO_KEYPOINTS } from '../pose/keypoints.ts';
import { DEFAULT_POSE_MODEL, POSE_INPUT_MAX_SIDE_PX, type PoseModelName } from '../pose/pose-model.ts';
import { PoseWorkerPool } from '../pose/pose-worker-pool.ts';
import type { Keypoints2D } from '../pose/types.ts';
import { decodeFrames } from '../video/decode.ts';
import { VideoReadError } from '../video/errors.ts';
import { probeVideo } from '../video/probe.ts';
import type { VideoInfo } from '../video/types.ts';
import { ProcessingError } from './processing-error.ts';
import { reconstructTrial, type Reconstruction, type ReconstructOptions } from './reconstruct-trial.ts';
import type { PipelineStage } from './stages.ts';

/**
 * One trial from its videos to 3D keypoints: decode → 2D pose → synchronise → triangulate →
 * filter (DESIGN §2 steps 1 and 3-6), reporting progress per stage. Decoding streams into the
 * pose model a few frames at a time, so memory does not grow with the video's length; only the
 * keypoints (a few hundred bytes a frame) are kept.
 */
export interface TrialVideo {
  /** Name of the camera, as in the calibration. */
  cameraName: string;
  path: string;
  /** Time of the first frame on the clock the phones share, seconds (from the capture page). */
  firstFrameTimeS?: number;
}

export interface ProcessTrialInput {
  trialName: string;
  /** One per video, same order. */
  cameras: readonly CameraModel[];
  videos: readonly TrialVideo[];
  calibrationErrorsPx?: readonly (number | null | undefined)[];
}

export interface ProcessTrialOptions extends Omit<
  ReconstructOptions,
  'trialName' | 'firstFrameTimesS' | 'personFound' | 'calibrationErrorsPx'
> {
  poseModel?: PoseModelName;
  /** Pose worker threads (default: one per core). */
  workers?: number;
  /** A running pose worker pool to reuse across trials (left open). */
  pool?: PoseWorkerPool;
  /** Replaces video decoding and pose detection for a camera, e.g. with keypoints from another tool. */
  estimatePose?: (video: TrialVideo, onProgress: (done: number, total: number) => void) => Promise<Keypoints2D>;
}

export interface TrialResult extends Reconstruction {
  keypoints2D: Keypoints2D[];
  /** Wall-clock seconds spent in each stage. */
  stageSeconds: Partial<Record<PipelineStage, number>>;
  cameraFrames: number;
}

export async function processTrial(input: ProcessTrialInput, options: ProcessTrialOptions = {}): Promise<TrialResult> {
  if (input.videos.length !== input.cameras.length) {
    throw new Error(`processTrial: ${input.videos.length} videos but ${input.cameras.length} cameras`);
  }
  if (input.videos.length < 2) {
    throw new ProcessingError(
      'TOO_FEW_CAMERAS',
      `Only ${input.videos.length} video was given; at least 2 cameras are needed to reconstruct in 3D.`,
    );
  }
  const stageSeconds: Partial<Record<PipelineStage, number>> = {};
  const progress = options.onProgress;

  const poseStarted = performance.now();
  const keypoints2D = options.estimatePose
    ? await estimateWith(options.estimatePose, input.videos, progress)
    : await detectAll(input.videos, options);
  stageSeconds.pose = (performance.now() - poseStarted) / 1000;

  const stageStarted = new Map<PipelineStage, number>();
  const reconstruction = reconstructTrial(input.cameras, keypoints2D, {
    ...options,
    trialName: input.trialName,
    firstFrameTimesS: input.videos.map((video) => video.firstFrameTimeS),
    personFound: keypoints2D.map((k) => k.personFound),
    calibrationErrorsPx: input.calibrationErrorsPx,
    onProgress: (stage, done, total) => {
      if (!stageStarted.has(stage)) stageStarted.set(stage, performance.now());
      if (done >= total) stageSeconds[stage] = (performance.now() - stageStarted.get(stage)!) / 1000;
      progress?.(stage, done, total);
    },
  });
  return {
    ...reconstruction,
    keypoints2D,
    stageSeconds,
    cameraFrames: keypoints2D.reduce((sum, k) => sum + k.frameCount, 0),
  };
}

async function estimateWith(
  estimate: NonNullable<ProcessTrialOptions['estimatePose']>,
  videos: readonly TrialVideo[],
  progress: ProcessTrialOptions['onProgress'],
): Promise<Keypoints2D[]> {
  const results: Keypoints2D[] = [];
  for (const [i, video] of videos.entries()) {
    results.push(await estimate(video, (done, total) => progress?.('pose', i * total + done, videos.length * total)));
  }
  return results;
}

async function detectAll(videos: readonly TrialVideo[], options: ProcessTrialOptions): Promise<Keypoints2D[]> {
  const infos: VideoInfo[] = [];
  const unreadable: { cameraName: string; reason: string }[] = [];
  for (const video of videos) {
    try {
      infos.push(await probeVideo(video.path));
    } catch (error) {
      if (!(error instanceof VideoReadError)) throw error;
      unreadable.push({ cameraName: video.cameraName, reason: error.message });
    }
  }
  if (unreadable.length > 0) {
    throw new ProcessingError(
      'VIDEO_UNREADABLE',
      unreadable.map(({ cameraName, reason }) => `Camera ${cameraName}: ${reason}`).join('\n'),
      unreadable.map(({ cameraName }) => cameraName),
    );
  }
  const totalFrames = infos.reduce((sum, info) => sum + info.frameCount, 0);
  const pool =
    options.pool ??
    (await PoseWorkerPool.start({ model: options.poseModel ?? DEFAULT_POSE_MODEL, workers: options.workers }));
  // Every camera at once: the pool's workers take frames from whichever camera has one ready, so one
  // camera's decoder starting up or its last frames draining leave no worker idle. Each camera tracks
  // its person over its own frames in order, so its keypoints do not depend on the others' timing.
  const doneFrames = videos.map(() => 0);
  const detectCamera = async (camera: number): Promise<Keypoints2D> => {
    const [video, info] = [videos[camera], infos[camera]];
    const frames = decodeFrames(video.path, {
      info,
      pixelFormat: 'rgb24',
      maxWidth: POSE_INPUT_MAX_SIDE_PX,
      maxHeight: POSE_INPUT_MAX_SIDE_PX,
    });
    try {
      return await detectPose2D(frames, {
        pool,
        imageSize: { width: info.width, height: info.height },
        fps: info.fps,
        frameCount: info.frameCount,
        cameraName: video.cameraName,
        onProgress: (done) => {
          doneFrames[camera] = Math.min(done, info.frameCount);
          options.onProgress?.(
            'pose',
            doneFrames.reduce((sum, frames) => sum + frames, 0),
            totalFrames,
          );
        },
      });
    } catch (error) {
      if (error instanceof VideoReadError)
        throw new ProcessingError('VIDEO_UNREADABLE', error.message, [video.cameraName]);
      if (!(error instanceof NoPersonFoundError)) throw error;
      // Nobody in this camera: keep it as an empty series; reconstruction decides whether the others suffice.
      return emptyKeypoints(info);
    }
  };
  try {
    // Settled, not raced: the pool closes only once no camera uses it any more.
    const settled = await Promise.allSettled(videos.map((_, camera) => detectCamera(camera)));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((result) => (result as PromiseFulfilledResult<Keypoints2D>).value);
  } finally {
    if (!options.pool) await pool.close();
  }
}

function emptyKeypoints(info: VideoInfo): Keypoints2D {
  const frameCount = info.timestampsS.length;
  const data = new Float32Array(frameCount * VIDEO_KEYPOINTS.length * 3);
  for (let i = 0; i < data.length; i += 3) data.fill(Number.NaN, i, i + 2);
  return {
    keypointNames: VIDEO_KEYPOINTS,
    frameCount,
    fps: info.fps,
    timestampsS: info.timestampsS,
    imageSize: { width: info.width, height: info.height },
    data,
    personFound: new Uint8Array(frameCount),
  };
}
