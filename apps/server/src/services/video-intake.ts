import { createReadStream } from 'node:fs';
import { ffprobePath } from '@kinetrace/mocap/video/binaries';
import { probeVideo } from '@kinetrace/mocap/video/probe';
import { runProcess } from '@kinetrace/mocap/video/run-process';
import type { VideoInfo } from '@kinetrace/mocap/video/types';
import { messages, VIDEO_MAX_FRAME_PIXELS, type KeypointSetName } from '@kinetrace/contracts';
import type { TrialRow, TrialsRepository, TrialVideoRow } from '../repositories/trials-repository.ts';
import type { FileStore } from '../storage/file-store.ts';
import { trialFilesPrefix } from './storage-keys.ts';
import type { CameraKeypoints } from './keypoints-intake.ts';

export type IntakeResult =
  { stored: true; info: VideoInfo } | { stored: false; reason: 'unreadable' | 'duplicate'; message: string };

/** Recording parameters a trial keeps in its meta. */
export interface RecordingMeta {
  framerate?: number;
  start_at_ms?: number;
  stop_at_ms?: number;
  limit_s?: number;
  expected_devices?: string[];
  stopped_at_limit?: boolean;
  error_msg?: string;
}

export const recordingMetaOf = (trial: TrialRow) => trial.meta as RecordingMeta & Record<string, unknown>;

/** Where a phone's 2D keypoints of a trial wait for its video (issue 24); a second upload overwrites the first. */
export const phoneKeypointsKey = (trial: TrialRow, deviceId: string) =>
  `${trialFilesPrefix(trial.sessionId, trial.id)}/phone-keypoints/${deviceId}.json`;

/** How a video's 2D keypoints are kept in its parameters (server-trial-io.ts importedKeypointsOf reads them). */
export interface StoredKeypointsParameters {
  layout: 'openpose' | 'kinetrace';
  keys: string[];
  keypoint_set: KeypointSetName | null;
  /** 'phone': found by the phone that recorded the video, checked by the engine before use; else imported, used as given. */
  origin?: 'phone';
}

/**
 * Reads a video's header and checks that its frames are all there: an MP4 whose index (moov) comes
 * first still opens when its end is cut off, so the frames the index lists are counted against the
 * frames the file really holds. (A WebM, which has no frame count in its header, is taken as read.)
 */
async function probeWholeVideo(path: string): Promise<VideoInfo> {
  const info = await probeVideo(path);
  const count = await runProcess(ffprobePath(), [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-count_packets',
    '-show_entries',
    'stream=nb_frames,nb_read_packets',
    '-of',
    'json',
    path,
  ]);
  const stream = (JSON.parse(count.stdout || '{}') as { streams?: { nb_frames?: string; nb_read_packets?: string }[] })
    .streams?.[0];
  const listed = Number(stream?.nb_frames);
  const present = Number(stream?.nb_read_packets);
  if (Number.isFinite(listed) && listed > 0 && Number.isFinite(present) && present < listed) {
    throw new Error(`${path}: ${present} of the ${listed} frames its index lists are in the file (truncated)`);
  }
  return info;
}

/**
 * Where every video enters: probed with ffprobe (a file that is not a readable video is refused
 * with a message on the trial and nothing else is lost), stored once per camera, and when the last
 * expected camera's video is in, the trial is handed to processing.
 */
export function createVideoIntake(deps: {
  trials: TrialsRepository;
  files: FileStore;
  /**
   * Where a trial goes once its videos are in (processing/processing-service.ts), and where a recorded trial's
   * video goes while it waits for the others (its keypoints detected meanwhile, issue 24).
   */
  processing: { enqueue(trial: TrialRow): Promise<void>; videoArrived?(trial: TrialRow, video: TrialVideoRow): void };
  /** Where a refused video's internals (server paths, ffprobe's output) go: never to the trial's readers. */
  log: { warn(details: object, message: string): void };
  now: () => Date;
}) {
  const { trials, files, processing } = deps;

  /** Hands the trial to processing when every expected video is in; answers whether it did. */
  async function handOffWhenComplete(trial: TrialRow): Promise<boolean> {
    const expected = recordingMetaOf(trial).expected_devices ?? [];
    const videos = await trials.videosOf(trial.id);
    const uploaded = new Set(videos.map((video) => video.deviceId));
    if (trial.status === 'uploading' && expected.length > 0 && expected.every((device) => uploaded.has(device))) {
      await startProcessing(trial);
      return true;
    }
    return false;
  }

  const startProcessing = (trial: TrialRow) => processing.enqueue(trial);

  /** The video's header, or the message that refuses it (its internals, server paths and ffprobe's text, only logged; frames over 8K). */
  async function inspect(camera: string, path: string): Promise<{ info: VideoInfo } | { message: string }> {
    let info: VideoInfo;
    try {
      info = await probeWholeVideo(path);
    } catch (error) {
      deps.log.warn({ err: error, camera }, 'uploaded video could not be read');
      return { message: messages.videoUnreadable(camera, 'the file is incomplete or not a video') };
    }
    if (info.width * info.height > VIDEO_MAX_FRAME_PIXELS)
      return { message: messages.videoUnreadable(camera, messages.videoFramesTooLarge(info.width, info.height)) };
    return { info };
  }

  return {
    startProcessing,
    inspect,

    /**
     * Takes one camera's video file for a trial. The file at `path` is read, not moved; `info` is
     * its header when the caller has already inspected it.
     */
    async accept(
      trial: TrialRow,
      deviceId: string,
      path: string,
      extras: {
        firstFrameMs?: number;
        mimeType?: string;
        cameraName?: string;
        deviceModel?: string;
        info?: VideoInfo;
        /** 2D keypoints imported with the video (keypoints-intake.ts), used instead of detecting them. */
        keypoints?: CameraKeypoints & { keypointSet?: KeypointSetName };
        /** The stored key of the keypoints the phone sent before its video (capture-service.ts). */
        phoneKeypointsKey?: string;
      },
    ): Promise<IntakeResult> {
      const inspected = extras.info ? { info: extras.info } : await inspect(deviceId, path);
      if ('message' in inspected) {
        await trials.update(trial.id, { status: 'error', meta: { ...trial.meta, error_msg: inspected.message } });
        return { stored: false, reason: 'unreadable', message: inspected.message };
      }
      const { info } = inspected;
      const extension = info.container.includes('webm') ? 'webm' : 'mp4';
      const key = `${trialFilesPrefix(trial.sessionId, trial.id)}/videos/${deviceId}.${extension}`;
      const existing = (await trials.videosOf(trial.id)).find((video) => video.deviceId === deviceId);
      if (existing) return { stored: false, reason: 'duplicate', message: messages.videoAlreadyUploaded };
      await files.put(key, createReadStream(path));
      // Stored before the video's row: the row completing the trial hands it to processing at once.
      const keypointKeys: string[] = [];
      for (const [index, file] of (extras.keypoints?.files ?? []).entries()) {
        const keypointKey = `${trialFilesPrefix(trial.sessionId, trial.id)}/keypoints/${deviceId}/${String(index).padStart(6, '0')}.json`;
        await files.put(keypointKey, createReadStream(file.path));
        keypointKeys.push(keypointKey);
      }
      const keypoints: StoredKeypointsParameters | undefined = extras.keypoints
        ? { layout: extras.keypoints.layout, keys: keypointKeys, keypoint_set: extras.keypoints.keypointSet ?? null }
        : extras.phoneKeypointsKey
          ? { layout: 'kinetrace', keys: [extras.phoneKeypointsKey], keypoint_set: null, origin: 'phone' }
          : undefined;
      const row = await trials.insertVideo({
        trialId: trial.id,
        deviceId,
        storageKey: key,
        parameters: {
          first_frame_ms: extras.firstFrameMs ?? null,
          mime_type: extras.mimeType ?? null,
          /** Imported videos: the calibrated camera the video was paired with (recorded ones pair by device_id). */
          camera_name: extras.cameraName ?? null,
          /** The phone's model, whose lens calibration the calibration uses when the owner uploaded one. */
          device_model: extras.deviceModel ?? null,
          width: info.width,
          height: info.height,
          fps: info.fps,
          frame_count: info.frameCount,
          duration_s: info.durationS,
          codec: info.codec,
          rotation_deg: info.rotationDeg,
          ...(keypoints && { keypoints }),
        },
      });
      if (!row) return { stored: false, reason: 'duplicate', message: messages.videoAlreadyUploaded };
      const current = await trials.findById(trial.id);
      const handedOff = current ? await handOffWhenComplete(current) : false;
      // A recorded trial waiting for its other phones: this video's keypoints can be detected meanwhile (issue 24),
      // unless it came with some. An import's videos arrive together: nothing to gain there.
      if (current?.status === 'uploading' && !handedOff && !keypoints && current.meta.imported !== true)
        processing.videoArrived?.(current, row);
      return { stored: true, info };
    },

    handOffWhenComplete,
  };
}

export type VideoIntake = ReturnType<typeof createVideoIntake>;
