import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type FollowUpStage,
  processingMessages,
  RESULT_TAGS,
  sessionMetaSchema,
  trialKindOf,
  type ProcessingProgress,
  type ProcessingStage,
} from '@kinetrace/contracts';
import { readKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import type { CameraDetection, KeypointsSource } from '@kinetrace/mocap/formats/keypoints-2d-files';
import type {
  CameraModel,
  LensIntrinsics,
  ProcessingSettings,
  SessionVideo,
  Subject,
} from '@kinetrace/mocap/session/types';
import { placeKeypoints, type KeypointsFiles } from '@kinetrace/processing/keypoints-files';
import { resolveProcessingSettings, boardOf } from '@kinetrace/processing/processing-settings';
import { resultFileNames } from '@kinetrace/processing/result-names';
import {
  TrialInputError,
  type ResultFile,
  type TrialFailure,
  type TrialInputs,
  type TrialIO,
} from '@kinetrace/processing/trial-io';
import type { SessionRowDb } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialResultRow, TrialRow, TrialsRepository, TrialVideoRow } from '../repositories/trials-repository.ts';
import { trialFilesPrefix } from '../services/storage-keys.ts';
import type { StoredKeypointsParameters } from '../services/video-intake.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { NewResult, ProcessingRepository } from './processing-repository.ts';

export interface ServerTrialIODeps {
  trials: TrialsRepository;
  subjects: SubjectsRepository;
  files: FileStore;
  repository: ProcessingRepository;
  /** Where operators install augmenter weights and models (DATA_DIR). */
  installDir: string;
  /** Every failure goes to the log with its own error (paths, a tool's output): users read only its message. */
  logFailure: (trialId: string, failure: TrialFailure) => void;
  /** The owner's lens calibration of a device model, when lens calibrations are kept. */
  lensFor?: (userId: number, deviceModel: string) => Promise<LensIntrinsics | undefined>;
  /** Once the detections of the trial's videos begun on their arrival have ended (detections-on-arrival.ts). */
  detectionsOnArrivalEnded?: (trialId: string) => Promise<void>;
}

/** Where a stored video goes for the engine: the path (or link) the engine's input names. */
export type VideoPlacer = (stored: { storageKey: string; index: number }, fileName: string) => Promise<string>;

/** A video's imported 2D keypoints, each file by its key in the store. */
export type StoredKeypoints = KeypointsFiles<{ storageKey: string }>;
/** Where the keypoints of the video at `index` go for the engine: the source (or what stands for its links) the input names. */
export type KeypointsPlacer = (keypoints: StoredKeypoints, index: number) => Promise<KeypointsSource>;

/** A name for the work folder, made of a phone's or an import's device id. */
const workFileName = (name: string) => name.replace(/[^A-Za-z0-9_.-]+/g, '_');

/** The 2D keypoints imported with a video (services/keypoints-intake.ts) or sent by its phone, stored by video-intake.ts, if any. */
export function importedKeypointsOf(video: TrialVideoRow): StoredKeypoints | undefined {
  const stored = video.parameters.keypoints as Partial<StoredKeypointsParameters> | undefined;
  if (!stored?.keys?.length) return undefined;
  const layout = stored.layout === 'kinetrace' ? 'kinetrace' : 'openpose';
  const name = workFileName(`${video.deviceId}_keypoints`);
  return {
    layout,
    name: layout === 'kinetrace' ? `${name}.json` : name,
    ...(stored.keypoint_set && { keypointSet: stored.keypoint_set }),
    // A phone's keypoints are checked by the engine before they replace its detection.
    ...(stored.origin === 'phone' && { fromPhone: true }),
    // Stored under their frame numbers, zero-padded: name order is frame order.
    files: stored.keys.map((storageKey) => ({ storageKey, fileName: basename(storageKey) })),
  };
}

/**
 * The keypoints the server detected in a video as it arrived (processing/detections-on-arrival.ts), if any: the
 * engine's keypoints JSON, with how they were made, which the engine checks against how it detects.
 */
export function detectedOnArrivalOf(video: TrialVideoRow): StoredKeypoints | undefined {
  const stored = video.parameters.detected_on_arrival as { key?: unknown; detection?: CameraDetection } | undefined;
  if (typeof stored?.key !== 'string' || !stored.detection) return undefined;
  return {
    layout: 'kinetrace',
    name: `${workFileName(`${video.deviceId}_detected`)}.json`,
    detectedWith: stored.detection,
    files: [{ storageKey: stored.key, fileName: basename(stored.key) }],
  };
}

/** The engine's settings for a trial: its session's, the filter kept below half of its recording rate. */
export async function trialSettingsOf(
  trials: TrialsRepository,
  trial: TrialRow,
  session: SessionRowDb,
  installDir: string,
): Promise<ProcessingSettings> {
  const recorded = (trial.meta as { framerate?: unknown }).framerate;
  const [video] = await trials.videosOf(trial.id);
  const framerate =
    typeof recorded === 'number' ? recorded : typeof video?.parameters.fps === 'number' ? video.parameters.fps : 30;
  return resolveProcessingSettings(sessionMetaSchema.parse(session.meta), framerate, installDir);
}

/** A result file stored under the attempt: its tag, its name there (resultFileNames), its camera. */
export interface StoredResult {
  tag: string;
  name: string;
  cameraName?: string;
}

/** One attempt at one trial: who it is and where its progress starts from. */
export interface Attempt {
  id: string;
  trial: TrialRow;
  session: SessionRowDb;
  progress: ProcessingProgress;
}

/**
 * The server's side of a TrialIO over the database and the file store: the in-process runner's whole TrialIO,
 * and what the worker API does for a remote worker (inputs with links, results uploaded one by one). Cameras are named by the
 * phones' device ids (an imported video by the calibrated camera it was paired with); the session's calibration is the newest done 'calibration' trial's
 * camera-parameters results (one Kinetrace camera file per camera with its candidate poses, best
 * first), whether a board calibration or an imported one stored the same way.
 */
export function createServerTrialIO(deps: ServerTrialIODeps, attempt: Attempt) {
  const { trials, subjects, files, repository } = deps;
  const { trial, session } = attempt;
  const meta = sessionMetaSchema.parse(session.meta);

  /** The camera name a video is given: an imported video's calibrated camera, else its phone. */
  const cameraNameOf = (video: TrialVideoRow) => {
    const given = video.parameters.camera_name;
    return typeof given === 'string' && given ? given : video.deviceId;
  };
  /** Each camera's device, by the camera name its video was given. */
  const deviceOf = new Map<string, string>();
  let devicesRead: Promise<void> | undefined;
  const readDevices = () =>
    (devicesRead ??= trials
      .videosOf(trial.id)
      .then((videos) => videos.forEach((video) => deviceOf.set(cameraNameOf(video), video.deviceId))));

  /**
   * The trial's videos, each put where the engine will read it (`place`), with the 2D keypoints imported
   * with them where `placeKeypoints` puts them (a calibration uses none).
   */
  async function placeVideos(
    place: VideoPlacer,
    placeKeypoints?: KeypointsPlacer,
  ): Promise<(SessionVideo & { path: string; deviceModel?: string })[]> {
    await readDevices();
    const videos = await trials.videosOf(trial.id);
    return Promise.all(
      videos.map(async (video, index) => {
        const { first_frame_ms: firstFrameMs, device_model: deviceModel } = video.parameters;
        const cameraName = cameraNameOf(video);
        if (!video.storageKey) throw new Error(`The stored video of ${video.deviceId} is missing`);
        const fileName = workFileName(`${video.deviceId}.${video.storageKey.split('.').at(-1)}`);
        const imported = placeKeypoints && (importedKeypointsOf(video) ?? detectedOnArrivalOf(video));
        const keypoints = imported && (await placeKeypoints(imported, index));
        return {
          cameraName,
          path: await place({ storageKey: video.storageKey, index }, fileName),
          ...(keypoints && { keypoints }),
          ...(typeof firstFrameMs === 'number' && { firstFrameTimeS: firstFrameMs / 1000 }),
          ...(typeof deviceModel === 'string' && deviceModel && { deviceModel }),
        };
      }),
    );
  }

  async function copyStored(storageKey: string, path: string): Promise<void> {
    const stored = await files.read(storageKey);
    if (!stored) throw new Error(`The stored input ${storageKey} is missing`);
    await pipeline(stored.stream, createWriteStream(path));
  }

  /** In-process: each video copied from the store into the work folder. */
  const copyInto =
    (workDir: string): VideoPlacer =>
    async ({ storageKey }, fileName) => {
      await mkdir(workDir, { recursive: true });
      const path = join(workDir, fileName);
      await copyStored(storageKey, path);
      return path;
    };
  /** In-process: each video's imported keypoints copied from the store, as a remote worker downloads them. */
  const copyKeypointsInto =
    (workDir: string): KeypointsPlacer =>
    (keypoints) =>
      placeKeypoints(workDir, keypoints, ({ storageKey }, path) => copyStored(storageKey, path));

  /** Calibration videos with the lens calibration of their phone's model, when the owner keeps one. */
  async function withLenses(videos: (SessionVideo & { path: string; deviceModel?: string })[]) {
    return Promise.all(
      videos.map(async ({ deviceModel, ...video }) => {
        const lens = deviceModel && deps.lensFor ? await deps.lensFor(session.userId, deviceModel) : undefined;
        return lens ? { ...video, lens } : video;
      }),
    );
  }

  /** The newest done trial of that name in the session, if any. */
  async function newestDone(name: 'calibration' | 'neutral'): Promise<TrialRow | undefined> {
    return (await trials.ofSession(trial.sessionId))
      .filter((row) => row.name === name && !row.trashed && row.status === 'done')
      .at(-1);
  }

  async function storedText(result: TrialResultRow): Promise<string> {
    const stored = result.storageKey ? await files.read(result.storageKey) : null;
    if (!stored) throw new Error(`The stored result ${result.id} is missing`);
    const chunks: Buffer[] = [];
    for await (const chunk of stored.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /**
   * The camera-parameters of `source` for each video: by camera name or phone; when none matches (an
   * imported calibration named otherwise) and the counts agree, in order.
   */
  async function camerasFor(
    source: TrialRow,
    videos: SessionVideo[],
  ): Promise<{ candidates: CameraModel[]; boardRmsPx?: number[] }[]> {
    const results = (await trials.resultsOf(source.id)).filter((result) => result.tag === RESULT_TAGS.cameraParameters);
    const shows = (result: TrialResultRow, video: SessionVideo) =>
      result.meta?.camera_name === video.cameraName || result.meta?.device_id === deviceOf.get(video.cameraName);
    let paired = videos.map((video) => results.find((result) => shows(result, video)));
    if (paired.every((result) => result === undefined) && results.length === videos.length) paired = results;
    const missing = videos.filter((_, index) => !paired[index]).map((video) => video.cameraName);
    if (missing.length > 0) throw new TrialInputError(processingMessages.camerasNotCalibrated(missing));
    return Promise.all(
      paired.map(async (result, index) => {
        const text = await storedText(result!);
        const candidates = readKinetraceCameras(text).map((camera) => ({ ...camera, name: videos[index].cameraName }));
        // The calibration's own figures, kept beside the cameras (run-trial.ts writeCameraFile).
        const boardRmsPx = (JSON.parse(text) as { calibration?: { boardRmsPx?: unknown } }).calibration?.boardRmsPx;
        const known =
          Array.isArray(boardRmsPx) &&
          boardRmsPx.length === candidates.length &&
          boardRmsPx.every((value) => typeof value === 'number');
        return { candidates, ...(known && { boardRmsPx: boardRmsPx as number[] }) };
      }),
    );
  }

  /** Mass and height given with the neutral recording, else the session's subject's. */
  async function subjectOf(neutral: TrialRow): Promise<Subject> {
    const given = (neutral.meta as { subject?: { mass_kg?: unknown; height_m?: unknown } }).subject;
    if (typeof given?.mass_kg === 'number' && typeof given.height_m === 'number')
      return { massKg: given.mass_kg, heightM: given.height_m };
    const subject = session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
    if (!subject) throw new TrialInputError(processingMessages.subjectMissing);
    return { massKg: subject.weightKg, heightM: subject.heightM };
  }

  /** Under this attempt's folder: results of a retry never overwrite the files of the results they replace. */
  const resultKey = (tag: string, name: string) =>
    `${trialFilesPrefix(trial.sessionId, trial.id)}/results/${attempt.id.replace(/[^A-Za-z0-9_-]+/g, '_')}/${tag}/${name}`;

  /** The rows registering the attempt's stored results, and their keys. */
  async function rowsOf(refs: StoredResult[]): Promise<{ keys: string[]; rows: NewResult[] }> {
    await readDevices();
    const keys = refs.map((ref) => resultKey(ref.tag, ref.name));
    // Per-camera results name their phone, so the session counts its calibrated cameras (session-calibration.ts).
    const cameraMeta = (cameraName: string | undefined) =>
      cameraName === undefined ? null : { device_id: deviceOf.get(cameraName) ?? cameraName, camera_name: cameraName };
    const rows = refs.map((ref, index) => ({
      tag: ref.tag,
      storageKey: keys[index],
      meta: cameraMeta(ref.cameraName),
    }));
    return { keys, rows };
  }

  /** Registers results through `register`; their files are removed when it fails or answers null (superseded). */
  async function registered(keys: string[], register: () => Promise<string[] | null>): Promise<boolean> {
    const replaced = await register().catch(async (error: unknown) => {
      await Promise.all(keys.map((key) => files.remove(key))).catch(() => undefined);
      throw error;
    });
    // Superseded meanwhile: this attempt's files go, the current attempt's results stand.
    const unused = replaced === null ? keys : replaced.filter((key) => !keys.includes(key));
    await Promise.all(unused.map((key) => files.remove(key)));
    return replaced !== null;
  }

  /**
   * Registers the attempt's stored results and marks the trial done (with `followUp`, that stage running); false
   * (its files removed) when the attempt is no longer the trial's current one.
   */
  async function commit(refs: StoredResult[], followUp?: FollowUpStage): Promise<boolean> {
    const { keys, rows } = await rowsOf(refs);
    const running = followUp && {
      stage: followUp,
      status: 'running' as const,
      percent: 0,
      started_at: new Date().toISOString(),
    };
    return registered(keys, () => repository.commitResults(trial.id, attempt.id, rows, running));
  }

  /** Registers the follow-up's stored results beside the done trial's; false (its files removed) when the attempt no longer holds it. */
  async function commitFollowUp(refs: StoredResult[]): Promise<boolean> {
    const { keys, rows } = await rowsOf(refs);
    return registered(keys, async () => ((await repository.addResults(trial.id, attempt.id, rows)) ? [] : null));
  }

  /** Stores result files from the work folder under the attempt, as a remote worker uploads them. */
  async function storeFiles(results: ResultFile[]): Promise<StoredResult[]> {
    const names = resultFileNames(results);
    for (const [index, result] of results.entries())
      await files.put(resultKey(result.tag, names[index]), createReadStream(result.path));
    return results.map((result, index) => ({ tag: result.tag, name: names[index], cameraName: result.cameraName }));
  }

  async function inputsWith(place: VideoPlacer, placeKeypoints: KeypointsPlacer): Promise<TrialInputs> {
    const kind = trialKindOf(trial.name);
    if (kind === 'calibration')
      return { kind, videos: await withLenses(await placeVideos(place)), board: boardOf(meta) };
    const settings = await trialSettingsOf(trials, trial, session, deps.installDir);
    if (kind === 'neutral') {
      const calibration = await newestDone('calibration');
      if (!calibration) throw new TrialInputError(processingMessages.calibrationMissing);
      await deps.detectionsOnArrivalEnded?.(trial.id);
      const videos = (await placeVideos(place, placeKeypoints)).map(({ deviceModel: _, ...video }) => video);
      const cameras = await camerasFor(calibration, videos);
      return {
        kind,
        videos,
        cameraSolutions: cameras.map((camera) => camera.candidates),
        ...(cameras.every((camera) => camera.boardRmsPx) && {
          boardRmsPx: cameras.map((camera) => camera.boardRmsPx!),
        }),
        subject: await subjectOf(trial),
        settings,
      };
    }
    const neutral = await newestDone('neutral');
    if (!neutral) throw new TrialInputError(processingMessages.neutralMissing);
    const model = (await trials.resultsOf(neutral.id)).find((result) => result.tag === RESULT_TAGS.opensimModel);
    if (!model) throw new TrialInputError(processingMessages.neutralMissing);
    await deps.detectionsOnArrivalEnded?.(trial.id);
    const videos = (await placeVideos(place, placeKeypoints)).map(({ deviceModel: _, ...video }) => video);
    const cameras = await camerasFor(neutral, videos);
    return {
      kind,
      trialName: trial.name,
      videos,
      cameras: cameras.map((camera) => camera.candidates[0]),
      calibrationErrorsPx: cameras.map((camera) => camera.boardRmsPx?.[0] ?? null),
      scaledModelOsim: await storedText(model),
      subject: await subjectOf(neutral),
      settings,
    };
  }

  return {
    inputsWith,
    readInputs: (workDir: string) => inputsWith(copyInto(workDir), copyKeypointsInto(workDir)),

    async progress(stage: ProcessingStage, percent: number) {
      await repository.setProgress(trial.id, attempt.id, { ...attempt.progress, stage, percent });
    },

    async storeResult(ref: StoredResult, data: Readable) {
      await files.put(resultKey(ref.tag, ref.name), data);
    },

    /** Whether every result was stored (a remote worker uploads them before completing). */
    async stored(refs: StoredResult[]): Promise<StoredResult | undefined> {
      for (const ref of refs) if ((await files.size(resultKey(ref.tag, ref.name))) === null) return ref;
      return undefined;
    },

    commit,
    commitFollowUp,

    async complete(results: ResultFile[], options?: { followUp?: FollowUpStage }) {
      await commit(await storeFiles(results), options?.followUp);
    },

    async followUpProgress(percent: number) {
      await repository.setFollowUpProgress(trial.id, attempt.id, percent);
    },

    async addResults(results: ResultFile[]) {
      await commitFollowUp(await storeFiles(results));
    },

    /** The trial stays done; its follow-up shows what went wrong (the log has the error). */
    async followUpFailed(failure: TrialFailure) {
      deps.logFailure(trial.id, failure);
      await repository.failFollowUp(
        trial.id,
        attempt.id,
        failure.kind === 'user'
          ? failure.message
          : failure.interrupted
            ? processingMessages.syncVideosInterrupted
            : processingMessages.syncVideosFailed,
      );
    },

    async fail(failure: TrialFailure): Promise<void> {
      deps.logFailure(trial.id, failure);
      if (failure.kind === 'user') return repository.markError(trial.id, attempt.id, failure.message);
      if (failure.willRetry) {
        // Back in the queue for the next attempt, which the screens announce ("retrying (2 of 3)").
        const { number = 1, of = number + 1 } = attempt.progress.attempt ?? {};
        await repository.setProgress(trial.id, attempt.id, {
          ...attempt.progress,
          stage: 'queued',
          percent: 0,
          attempt: { number: number + 1, of },
        });
        return;
      }
      return repository.markError(trial.id, attempt.id, processingMessages.internalFailure);
    },
  } satisfies TrialIO & Record<string, unknown>;
}
