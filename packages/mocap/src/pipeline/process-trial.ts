import type { CameraModel } from '../camera/camera.ts';
import { type CameraDetection, readKeypoints2D } from '../formats/keypoints-2d-files.ts';
import { detectPose2D } from '../pose/detect-pose.ts';
import { NoPersonFoundError } from '../pose/errors.ts';
import { VIDEO_KEYPOINTS } from '../pose/keypoints.ts';
import { DEFAULT_POSE_MODEL, POSE_INPUT_MAX_SIDE_PX, type PoseModelName } from '../pose/pose-model.ts';
import {
  type PhoneFrames,
  type PhoneKeypointsUse,
  phoneCheckFrames,
  phoneKeypointsAgreement,
  phoneKeypointsDensity,
} from '../pose/phone-keypoints.ts';
import { framesPerInference, onEveryVideoFrame, type PoseRate } from '../pose/pose-rate.ts';
import { PoseWorkerPool, poolSizeOf, type PoseInference } from '../pose/pose-worker-pool.ts';
import { KEYPOINT_VALUES, type Keypoints2D, noKeypoints } from '../pose/types.ts';
import { isGaitTrialName, resolveCutoffHz } from '../filter/cutoff.ts';
import type { CameraQuality } from '../report/quality-report.ts';
import { decodeFrames } from '../video/decode.ts';
import { VideoReadError } from '../video/errors.ts';
import { probeVideo } from '../video/probe.ts';
import type { VideoInfo } from '../video/types.ts';
import type { SessionVideo } from '../session/types.ts';
import { NobodyInViewWatch, personSearchFrames } from './nobody-in-view.ts';
import { ProcessingError } from './processing-error.ts';
import { reconstructTrial, type Reconstruction, type ReconstructOptions } from './reconstruct-trial.ts';
import type { PipelineStage } from './stages.ts';

/**
 * One trial from its videos to 3D keypoints: decode → 2D pose → synchronise → triangulate →
 * filter (DESIGN §2 steps 1 and 3-6), reporting progress per stage. Decoding streams into the
 * pose model a few frames at a time, so memory does not grow with the video's length; only the
 * keypoints (a few hundred bytes a frame) are kept.
 */
/** A camera's video and/or its 2D keypoints made elsewhere (SessionVideo). */
export type TrialVideo = SessionVideo;

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
  pool?: PoseInference;
  /**
   * How often the pose model runs on a camera's frames (default every frame): 'filter' runs it at the rate the
   * trial's low-pass filter needs and fills the frames between (pose-rate.ts).
   */
  poseRate?: PoseRate;
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
  const {
    keypoints: keypoints2D,
    phoneUse,
    detectedHz,
    onArrival,
  } = options.estimatePose
    ? {
        keypoints: await estimateWith(options.estimatePose, input.videos, progress),
        phoneUse: [],
        detectedHz: [],
        onArrival: [],
      }
    : await keypointsOfAll(input, options);
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
  // The report has the cameras that saw the person, by name: where each one's keypoints came from.
  const sourceOf = (
    name: string,
  ): Pick<CameraQuality, 'keypoints2D' | 'phoneKeypoints' | 'detectedHz' | 'detectedOnArrival'> => {
    if (options.estimatePose !== undefined) return { keypoints2D: 'given' };
    const index = input.cameras.findIndex((camera) => camera.name === name);
    const phone = phoneUse[index];
    const detected = detectedHz[index] !== undefined ? { detectedHz: detectedHz[index] } : {};
    if (phone) return { keypoints2D: phone.used ? 'phone' : 'detected', phoneKeypoints: phone, ...detected };
    if (onArrival[index]) return { keypoints2D: 'detected', ...detected, detectedOnArrival: true };
    const given = input.videos[index]?.keypoints !== undefined && detectedHz[index] === undefined;
    return { keypoints2D: given ? 'given' : 'detected', ...detected };
  };
  const cameras = reconstruction.report.cameras.map((camera) => ({ ...camera, ...sourceOf(camera.name) }));
  return {
    ...reconstruction,
    report: { ...reconstruction.report, cameras },
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

/**
 * Each camera's 2D keypoints: read from the keypoints given for it (on its video's frame times, when
 * it has a video), else detected in its video. A phone's keypoints (issue 24) are used only when they
 * pass checkPhoneKeypoints; otherwise that camera is detected too. `phoneUse` says, per camera with a
 * phone's keypoints, whether they were used and why not. Keypoints the server detected as the video
 * arrived (`detectedWith`) are used only when made as this trial detects (detectedOnArrival), else, or
 * when they cannot be read, the camera is detected here; `onArrival` says which were used.
 */
async function keypointsOfAll(
  input: ProcessTrialInput,
  options: ProcessTrialOptions,
): Promise<{
  keypoints: Keypoints2D[];
  phoneUse: (PhoneKeypointsUse | undefined)[];
  detectedHz: (number | undefined)[];
  onArrival: boolean[];
}> {
  const withoutVideo = input.videos.filter((video) => !video.keypoints && video.path === undefined);
  if (withoutVideo.length > 0) {
    const names = withoutVideo.map((video) => video.cameraName);
    throw new ProcessingError(
      'INVALID_FOLDER',
      `Camera ${names.join(', ')}: neither a video nor 2D keypoints were given.`,
      names,
    );
  }
  const videoInfos = await probeAll(input.videos);
  // The given keypoints first: a file that cannot be read stops the trial before the long detection.
  const given: (Awaited<ReturnType<typeof readKeypoints2D>> | undefined)[] = [];
  const onArrival: boolean[] = [];
  for (const [camera, video] of input.videos.entries()) {
    const clock = { video: videoInfos[camera], imageSize: input.cameras[camera].imageSize };
    const early = video.keypoints?.detectedWith && (await detectedOnArrival(video, clock, input.trialName, options));
    onArrival.push(early !== undefined);
    given.push(
      video.keypoints &&
        (video.keypoints.detectedWith ? early : await readKeypoints2D(video.keypoints, video.cameraName, clock)),
    );
  }
  let started: PoseWorkerPool | undefined;
  const pool = async () =>
    options.pool ??
    (started ??= await PoseWorkerPool.start({
      model: options.poseModel ?? DEFAULT_POSE_MODEL,
      workers: options.workers,
    }));
  try {
    const phoneUse: (PhoneKeypointsUse | undefined)[] = [];
    for (const [camera, video] of input.videos.entries()) {
      const phone = given[camera]?.placedFrom;
      const use =
        video.keypoints?.fromPhone && phone && video.path !== undefined
          ? await checkPhoneKeypoints(
              { ...given[camera]!, placedFrom: phone },
              { ...video, path: video.path },
              videoInfos[camera]!,
              input,
              options,
              pool,
            )
          : undefined;
      phoneUse.push(use);
      if (use && !use.used) given[camera] = undefined;
    }
    const toDetect = input.videos.flatMap((_, camera) => (given[camera] ? [] : [camera]));
    // A trial nobody is in stops once every camera's first seconds show nobody (nobody-in-view.ts).
    const stopDetection = new AbortController();
    const watch = new NobodyInViewWatch(
      input.videos.map((video, camera) => {
        const { frameCount, fps } = given[camera] ?? videoInfos[camera]!;
        return { name: video.cameraName, fps, searchFrames: personSearchFrames(frameCount, fps) };
      }),
      (error) => stopDetection.abort(error),
    );
    given.forEach((keypoints, camera) =>
      keypoints?.personFound.forEach((found, frame) => watch.frameResult(camera, frame, found === 1)),
    );
    const steps = toDetect.map((camera) => framesPerInferenceOf(videoInfos[camera]!, input.trialName, options));
    const detected =
      toDetect.length === 0
        ? []
        : await detectAll(
            toDetect.map((camera, index) => ({
              video: input.videos[camera] as TrialVideo & { path: string },
              info: videoInfos[camera]!,
              framesPerInference: steps[index],
              onFrameResult: (frame: number, personFound: boolean) => watch.frameResult(camera, frame, personFound),
            })),
            await pool(),
            { ...options, signal: stopDetection.signal },
          );
    const keypoints = given.map((read, camera): Keypoints2D => {
      if (!read) return detected[toDetect.indexOf(camera)];
      const { placedFrom: _, ...placed } = read;
      return placed;
    });
    const detectedHz = input.videos.map((_, camera) => {
      const index = toDetect.indexOf(camera);
      if (onArrival[camera])
        return videoInfos[camera]!.fps / input.videos[camera].keypoints!.detectedWith!.framesPerInference;
      return index < 0 ? undefined : videoInfos[camera]!.fps / steps[index];
    });
    if (toDetect.length === 0) options.onProgress?.('pose', 1, 1);
    return { keypoints, phoneUse, detectedHz, onArrival };
  } finally {
    await started?.close();
  }
}

/** What decides how a trial detects its cameras, besides each video (processTrial's options). */
export type DetectionChoices = Pick<
  ProcessTrialOptions,
  'poseModel' | 'poseRate' | 'filterFrequency' | 'isGait' | 'pool' | 'workers'
>;

/**
 * Video frames from one run of the pose model to the next on a camera's video: 1 unless the trial asks for
 * the rate its filter needs (poseRate 'filter'), at the cutoff the filter stage will use.
 */
export function framesPerInferenceOf(
  info: Pick<VideoInfo, 'fps'>,
  trialName: string,
  options: DetectionChoices,
): number {
  if (options.poseRate !== 'filter') return 1;
  const { cutoffHz, passThrough } = filterOf(info, trialName, options);
  return framesPerInference(info.fps, cutoffHz, passThrough);
}

/** The low-pass filter the filter stage will run on a camera's keypoints (its cutoff, or none applied). */
function filterOf(info: Pick<VideoInfo, 'fps'>, trialName: string, options: DetectionChoices) {
  const isGait = options.isGait ?? isGaitTrialName(trialName);
  return resolveCutoffHz(options.filterFrequency, info.fps, isGait);
}

/** How a trial with these options detects a camera of `info` (what keypoints detected on arrival must match). */
export function cameraDetectionOf(
  info: Pick<VideoInfo, 'fps'>,
  trialName: string,
  options: DetectionChoices,
): CameraDetection {
  return {
    poseModel: options.poseModel ?? DEFAULT_POSE_MODEL,
    framesPerInference: framesPerInferenceOf(info, trialName, options),
    poolSize: options.pool?.size ?? poolSizeOf(options.workers),
  };
}

/**
 * A camera's keypoints detected by the server as its video arrived (issue 24), when they were made as this
 * trial detects (same model, frames per inference and pool size: detectCameraKeypoints on the same video then gives
 * the same keypoints) and read back whole; else undefined, and the camera is detected as if they were not there.
 */
async function detectedOnArrival(
  video: TrialVideo,
  clock: Parameters<typeof readKeypoints2D>[2],
  trialName: string,
  options: DetectionChoices,
): Promise<Keypoints2D | undefined> {
  const made = video.keypoints?.detectedWith;
  if (!made || !clock.video) return undefined;
  const now = cameraDetectionOf(clock.video, trialName, options);
  if (
    made.poseModel !== now.poseModel ||
    made.framesPerInference !== now.framesPerInference ||
    made.poolSize !== now.poolSize
  )
    return undefined;
  try {
    return await readKeypoints2D(video.keypoints!, video.cameraName, clock);
  } catch {
    return undefined;
  }
}

/**
 * Whether a phone's keypoints serve for its camera (issue 24): dense enough for the trial's filter
 * (phoneKeypointsDensity, at the cutoff the filter stage will use), in the video's pixels, and agreeing with
 * the server's own detection of a sample of the frames where the phone found the person
 * (phoneKeypointsAgreement: each frame detected afresh, as the detector finds the person without tracking).
 */
async function checkPhoneKeypoints(
  read: Keypoints2D & { placedFrom: PhoneFrames },
  video: TrialVideo & { path: string },
  info: VideoInfo,
  input: ProcessTrialInput,
  options: ProcessTrialOptions,
  pool: () => Promise<PoseInference>,
): Promise<PhoneKeypointsUse> {
  const { cutoffHz } = filterOf(info, input.trialName, options);
  const firstS = info.timestampsS[0] ?? 0;
  const frameS = info.fps > 0 ? 1 / info.fps : 0;
  const durationS = info.frameCount > 0 ? info.timestampsS[info.frameCount - 1] - firstS + frameS : 0;
  const density = phoneKeypointsDensity(read.placedFrom.timesS, durationS, cutoffHz);
  if (density.reason) return { used: false, ...density };
  if (read.imageSize.width !== info.width || read.imageSize.height !== info.height)
    return {
      used: false,
      ...density,
      reason: `their image size ${read.imageSize.width}x${read.imageSize.height} is not the video's ${info.width}x${info.height}`,
    };
  // Each sampled phone frame on the video frame at its time (a frame the phone processed is one of the video's).
  const samples = phoneCheckFrames(read.placedFrom.personFound).flatMap((sample) => {
    const time = read.placedFrom.timesS[sample] + firstS;
    const frame = nearestIndex(info.timestampsS, time);
    return Math.abs(info.timestampsS[frame] - time) <= frameS / 2 ? [{ sample, frame }] : [];
  });
  const uniqueFrames = [...new Set(samples.map(({ frame }) => frame))].sort((a, b) => a - b);
  const inference = await pool();
  const serverByFrame = new Map<number, Float32Array | null>();
  const decoded = decodeFrames(video.path, {
    info,
    frames: uniqueFrames,
    pixelFormat: 'rgb24',
    maxWidth: POSE_INPUT_MAX_SIDE_PX,
    maxHeight: POSE_INPUT_MAX_SIDE_PX,
  });
  for await (const frame of decoded) {
    const [scaleX, scaleY] = [info.width / frame.width, info.height / frame.height];
    const estimate = await inference.infer(frame, { region: null, preferNear: null });
    if (estimate.found)
      for (let k = 0; k < estimate.keypoints.length; k += KEYPOINT_VALUES) {
        estimate.keypoints[k] *= scaleX;
        estimate.keypoints[k + 1] *= scaleY;
      }
    serverByFrame.set(frame.index, estimate.found ? estimate.keypoints : null);
  }
  const stride = VIDEO_KEYPOINTS.length * KEYPOINT_VALUES;
  const agreement = phoneKeypointsAgreement(
    samples.map(({ sample }) => read.placedFrom.data.subarray(sample * stride, (sample + 1) * stride)),
    samples.map(({ frame }) => serverByFrame.get(frame) ?? null),
  );
  return { used: !agreement.reason, ...density, ...agreement };
}

/** The index of the value in increasing `values` nearest to `value`. */
function nearestIndex(values: Float64Array, value: number): number {
  let [low, high] = [0, values.length - 1];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (values[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low > 0 && Math.abs(values[low - 1] - value) <= Math.abs(values[low] - value) ? low - 1 : low;
}

/** Each video's probe (undefined for a camera given without one); unreadable videos are named together. */
async function probeAll(videos: readonly TrialVideo[]): Promise<(VideoInfo | undefined)[]> {
  const infos: (VideoInfo | undefined)[] = [];
  const unreadable: { cameraName: string; reason: string }[] = [];
  for (const video of videos) {
    try {
      infos.push(video.path === undefined ? undefined : await probeVideo(video.path));
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
  return infos;
}

/** What one camera's detection needs besides its video and the pose pool. */
export interface CameraDetectionOptions {
  /** Video frames from one run of the pose model to the next (1: every frame; framesPerInferenceOf). */
  framesPerInference: number;
  /** Each video frame the model ran on, and whether it found the person there. */
  onFrameResult?: (frame: number, personFound: boolean) => void;
  /** The video frames done so far. */
  onProgress?: (doneFrames: number) => void;
  signal?: AbortSignal;
}

/**
 * One camera's 2D keypoints detected in its video, as processTrial detects each camera: its frames decoded at the
 * model's input size, the model run on every `framesPerInference`-th (and the last) with the person tracked
 * through them, the frames between filled. A camera tracks its person over its own frames in order, so its
 * keypoints depend only on its video, the model, the pool's size and the frames per inference: the server
 * detects a trial's first videos this way while the last is still arriving (issue 24), and processTrial uses
 * them (KeypointsSource.detectedWith). A camera where nobody is found gives an empty series.
 */
export async function detectCameraKeypoints(
  video: { cameraName: string; path: string },
  info: VideoInfo,
  pool: PoseInference,
  options: CameraDetectionOptions,
): Promise<Keypoints2D> {
  const step = options.framesPerInference;
  // The frames the model runs on (every step-th and the last, so the end is covered); the n-th of them is the video's frame n * step or the last.
  const videoFrameOf = (inferred: number) => Math.min(inferred * step, info.frameCount - 1);
  const frames = decodeFrames(video.path, {
    info,
    pixelFormat: 'rgb24',
    maxWidth: POSE_INPUT_MAX_SIDE_PX,
    maxHeight: POSE_INPUT_MAX_SIDE_PX,
    step,
    withLastFrame: true,
  });
  try {
    const detected = await detectPose2D(frames, {
      pool,
      imageSize: { width: info.width, height: info.height },
      fps: info.fps,
      frameCount: Math.ceil(info.frameCount / step),
      cameraName: video.cameraName,
      onFrameResult: (inferred, personFound) => options.onFrameResult?.(videoFrameOf(inferred), personFound),
      signal: options.signal,
      onProgress: (done) => options.onProgress?.(videoFrameOf(done - 1) + 1),
    });
    return step === 1 ? detected : onEveryVideoFrame(detected, info.timestampsS);
  } catch (error) {
    if (error instanceof VideoReadError)
      throw new ProcessingError('VIDEO_UNREADABLE', error.message, [video.cameraName]);
    if (!(error instanceof NoPersonFoundError)) throw error;
    // Nobody in this camera: keep it as an empty series; reconstruction decides whether the others suffice.
    return emptyKeypoints(info);
  }
}

async function detectAll(
  cameras: readonly {
    video: TrialVideo & { path: string };
    info: VideoInfo;
    framesPerInference: number;
    onFrameResult: (frame: number, personFound: boolean) => void;
  }[],
  pool: PoseInference,
  options: ProcessTrialOptions & { signal: AbortSignal },
): Promise<Keypoints2D[]> {
  const totalFrames = cameras.reduce((sum, { info }) => sum + info.frameCount, 0);
  // Every camera at once: the pool's workers take frames from whichever camera has one ready, so one
  // camera's decoder starting up or its last frames draining leave no worker idle. Each camera tracks
  // its person over its own frames in order, so its keypoints do not depend on the others' timing.
  const doneFrames = cameras.map(() => 0);
  const detectCamera = ({ video, info, framesPerInference, onFrameResult }: (typeof cameras)[number], camera: number) =>
    detectCameraKeypoints(video, info, pool, {
      framesPerInference,
      onFrameResult,
      signal: options.signal,
      onProgress: (done) => {
        doneFrames[camera] = done;
        options.onProgress?.(
          'pose',
          doneFrames.reduce((sum, frames) => sum + frames, 0),
          totalFrames,
        );
      },
    });
  // Settled, not raced: the pool closes only once no camera uses it any more.
  const settled = await Promise.allSettled(cameras.map(detectCamera));
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<Keypoints2D>).value);
}

function emptyKeypoints(info: VideoInfo): Keypoints2D {
  const frameCount = info.timestampsS.length;
  const data = noKeypoints(frameCount, VIDEO_KEYPOINTS.length);
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
