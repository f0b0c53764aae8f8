import {
  DEFAULT_FRAMERATE,
  DEFAULT_RECORDING_LIMIT_S,
  importMessages,
  messages,
  MIN_CALIBRATED_CAMERAS,
  RECORDING_LIMIT_S,
  recordingLimitS,
  RESERVED_TRIAL_NAMES,
  trialNameField,
  type KeypointSetName,
  type RecordingStatus,
  type RecordQuery,
  type TrialStatus,
} from '@kinetrace/contracts';
import { badRequest, HttpError, invalidFields, notFound } from '../http/http-errors.ts';
import type { DevicesRepository } from '../repositories/devices-repository.ts';
import type { SessionRowDb } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';
import type { AuthContext } from './auth-service.ts';
import type { UploadedFile } from './calibration-import-service.ts';
import type { MediaUrlSigner } from './media-urls.ts';
import type { Removal } from './removal.ts';
import { calibratedCamerasOf } from './session-calibration.ts';
import type { SessionService } from './session-service.ts';
import type { StagedUploads } from './staged-uploads.ts';
import { checkImportedKeypoints } from './keypoints-intake.ts';
import { recordingMetaOf, type VideoIntake } from './video-intake.ts';

/** A phone is connected while it polled within this time (it polls every 0.5 s). */
export const DEVICE_CONNECTED_WINDOW_MS = 5_000;
/**
 * A phone that recorded but has not been seen for this long, while the server was up, and has not begun
 * its upload will not upload: the trial fails with §8's message.
 */
export const DEVICE_LOST_AFTER_MS = 15_000;
/** Phones start together this long after the order, so that every one has polled it (they poll every 0.5 s). */
export const RECORDING_LEAD_MS = 1_500;
/** An imported video's length beyond its rate's recording limit that is still taken (a container's rounding). */
const IMPORT_DURATION_SLACK_S = 0.5;
/** Calibration and neutral videos are taken at 30 fps whatever the session's rate. */
const STILL_TRIAL_FRAMERATE = 30;

const isReserved = (name: string) => (RESERVED_TRIAL_NAMES as readonly string[]).includes(name);
/** A video file's name without its extension: the camera it shows, when named after it. */
const fileStem = (fileName: string) => fileName.replace(/\.[^.]*$/, '');

/**
 * The calibrated camera each imported video shows: by name (file stem = camera name, ignoring case)
 * when every video names a different camera, else in order (upload order, calibration order) when
 * there is one video per camera; undefined when neither pairs them.
 */
export function pairVideosWithCameras(fileNames: string[], cameraNames: string[]): string[] | undefined {
  const byName = fileNames.map((fileName) =>
    cameraNames.find((camera) => camera.toLowerCase() === fileStem(fileName).toLowerCase()),
  );
  if (byName.every((camera) => camera !== undefined) && new Set(byName).size === byName.length)
    return byName as string[];
  return fileNames.length === cameraNames.length ? [...cameraNames] : undefined;
}

/** The recording side of the session screen and the wizard (§4.2, §4.3, §7 recording calls). */
export function createRecordingService(deps: {
  trials: TrialsRepository;
  devices: DevicesRepository;
  subjects: SubjectsRepository;
  sessionService: SessionService;
  intake: VideoIntake;
  media: MediaUrlSigner;
  removal: Removal;
  stagedUploads: StagedUploads;
  /** When this server came up: a phone cannot have been seen while it was down. */
  startedAt: Date;
  now: () => Date;
}) {
  const { trials, devices, subjects, sessionService, intake, media, removal, stagedUploads, now } = deps;

  const connectedSince = () => new Date(now().getTime() - DEVICE_CONNECTED_WINDOW_MS);

  /** The session's newest live trial: what the recorder shows. */
  async function currentTrial(sessionId: string): Promise<TrialRow | undefined> {
    const live = (await trials.ofSession(sessionId)).filter((trial) => !trial.trashed);
    return live.at(-1);
  }

  /**
   * The phones of `waitingFor` that have gone away: not seen for DEVICE_LOST_AFTER_MS of the time the
   * server was up (a restart, however long, gives every phone that time again to come back), and with no
   * upload of the trial begun (a phone sending its video waits however long its connection drops).
   */
  async function lostDevices(trial: TrialRow, waitingFor: string[], time: number): Promise<string[]> {
    if (time - deps.startedAt.getTime() < DEVICE_LOST_AFTER_MS) return [];
    const seen = new Set(
      (await devices.connected(trial.sessionId, new Date(time - DEVICE_LOST_AFTER_MS))).map(
        (device) => device.deviceId,
      ),
    );
    const lost: string[] = [];
    for (const device of waitingFor)
      if (!seen.has(device) && !(await stagedUploads.isUploading(trial.id, device))) lost.push(device);
    return lost;
  }

  /**
   * Moves a trial on when time says so: a recording past its limit stops by itself; an upload whose
   * missing phones have gone away fails with the spec's message instead of waiting forever.
   */
  async function advance(trial: TrialRow): Promise<TrialRow> {
    const meta = recordingMetaOf(trial);
    const time = now().getTime();
    if (trial.status === 'recording' && meta.start_at_ms !== undefined && meta.limit_s !== undefined) {
      if (time > meta.start_at_ms + meta.limit_s * 1000 + 1000) {
        return trials.update(trial.id, {
          status: 'uploading',
          meta: { ...meta, stop_at_ms: time, stopped_at_limit: true },
        });
      }
    }
    // Imported videos arrive in the import's own request, from no phone: nobody can have gone away.
    if (trial.status === 'uploading' && meta.imported !== true) {
      const expected = meta.expected_devices ?? [];
      const uploaded = new Set((await trials.videosOf(trial.id)).map((video) => video.deviceId));
      const waitingFor = expected.filter((device) => !uploaded.has(device));
      if (waitingFor.length > 0 && (await lostDevices(trial, waitingFor, time)).length > 0) {
        const message = messages.videosMissing(expected.length, uploaded.size);
        return trials.update(trial.id, { status: 'error', meta: { ...meta, error_msg: message } });
      }
    }
    return trial;
  }

  /** A name for a new trial: calibration or neutral (they replace their predecessor), or a valid name no live trial has. */
  async function assertNewTrialName(sessionId: string, name: string): Promise<void> {
    if (isReserved(name)) return;
    const check = trialNameField.safeParse(name);
    if (!check.success) throw invalidFields({ name: check.error.issues.map((issue) => issue.message) });
    const taken = (await trials.ofSession(sessionId)).some(
      (trial) => !trial.trashed && trial.name.toLowerCase() === name.toLowerCase(),
    );
    if (taken) throw invalidFields({ name: [messages.uniqueTrialName] });
  }

  async function calibratedCameras(sessionId: string): Promise<number> {
    return (await calibratedCamerasOf(trials, sessionId)).length;
  }

  /** A new calibration or neutral replaces the previous one (kept in the recycle bin); `successorId` is the new one. */
  async function trashPredecessors(sessionId: string, name: string, successorId?: string): Promise<void> {
    if (!isReserved(name)) return;
    for (const trial of await trials.ofSession(sessionId)) {
      if (trial.name === name && !trial.trashed && trial.id !== successorId)
        await trials.update(trial.id, { trashed: true, trashedAt: now() });
    }
  }

  /** An imported neutral is of the session's subject, whose height and mass scale the model. */
  async function sessionSubject(session: SessionRowDb) {
    const subject = session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
    if (!subject) throw badRequest(importMessages.neutralNeedsSubject);
    return {
      id: subject.id,
      mass_kg: subject.weightKg,
      height_m: subject.heightM,
      sex: subject.sexAtBirth,
      gender: subject.gender,
    };
  }

  /** The camera of each imported video: its file name for a calibration's board videos, else a calibrated camera. */
  async function importedCameraNames(sessionId: string, name: string, files: UploadedFile[]): Promise<string[]> {
    const fileNames = files.map((file) => file.fileName);
    const calibrated = (await calibratedCamerasOf(trials, sessionId)).map((camera) => camera.cameraName);
    if (name === 'calibration' || calibrated.length === 0) return fileNames.map(fileStem);
    const paired = pairVideosWithCameras(fileNames, calibrated);
    if (!paired) throw invalidFields({ video: [importMessages.videosNotPaired(files.length, calibrated)] });
    return paired;
  }

  return {
    advance,
    currentTrial,
    calibratedCameras,

    async record(context: AuthContext, sessionId: string, query: RecordQuery): Promise<{ id: string }> {
      const session = await sessionService.ownSession(context, sessionId);
      const name = query.name;
      await assertNewTrialName(sessionId, name);
      const current = await currentTrial(sessionId);
      if (current && (await advance(current)).status === 'recording')
        throw new HttpError(409, { detail: messages.recordingInProgress });

      const connected = await devices.connected(sessionId, connectedSince());
      if (connected.length < MIN_CALIBRATED_CAMERAS)
        throw badRequest(messages.devicesRequiredForCalibration(connected.length));

      await trashPredecessors(sessionId, name);
      const framerate = isReserved(name) ? STILL_TRIAL_FRAMERATE : sessionFramerate(session);
      const trial = await trials.insert({
        sessionId,
        name,
        status: 'recording',
        meta: {
          framerate,
          start_at_ms: now().getTime() + RECORDING_LEAD_MS,
          limit_s: RECORDING_LIMIT_S[framerate] ?? DEFAULT_RECORDING_LIMIT_S,
          expected_devices: connected.map((device) => device.deviceId),
          ...(name === 'neutral' && {
            subject: {
              id: query.subject_id ?? session.subjectId,
              mass_kg: query.subject_mass,
              height_m: query.subject_height,
              sex: query.subject_sex,
              gender: query.subject_gender,
              data_sharing: query.subject_data_sharing,
              pose_model: query.subject_pose_model,
            },
          }),
        },
      });
      return { id: trial.id };
    },

    async status(context: AuthContext, sessionId: string, withSession: boolean): Promise<RecordingStatus> {
      await sessionService.ownSession(context, sessionId);
      const found = await currentTrial(sessionId);
      const trial = found && (await advance(found));
      const videos = trial ? await trials.videosOf(trial.id) : [];
      const connected = await devices.connected(sessionId, connectedSince());
      const status: RecordingStatus['status'] =
        trial?.status === 'recording' ? 'recording' : trial?.status === 'uploading' ? 'processing' : 'ready';
      const result: RecordingStatus = {
        status,
        trial_id: trial?.id ?? null,
        trial_status: (trial?.status as TrialStatus | undefined) ?? null,
        n_videos_uploaded: videos.length,
        n_cameras_connected: connected.length,
        n_videos_expected: trial ? (recordingMetaOf(trial).expected_devices?.length ?? 0) : 0,
      };
      if (withSession) {
        const session = await sessionService.get({ user: context.user }, sessionId);
        result.session = { trials: session.trials };
      }
      return result;
    },

    async stop(context: AuthContext, sessionId: string): Promise<{ status: string }> {
      await sessionService.ownSession(context, sessionId);
      const trial = await currentTrial(sessionId);
      if (!trial || trial.status !== 'recording') return { status: trial?.status ?? 'ready' };
      const stopped = await trials.update(trial.id, {
        status: 'uploading',
        meta: { ...trial.meta, stop_at_ms: now().getTime() },
      });
      return { status: stopped.status };
    },

    /** Drops the trial being recorded or uploaded: phones discard their video; the row goes to the recycle bin. */
    async cancel(context: AuthContext, sessionId: string): Promise<{ status: 'ready' }> {
      await sessionService.ownSession(context, sessionId);
      const trial = await currentTrial(sessionId);
      if (trial && (trial.status === 'recording' || trial.status === 'uploading')) {
        await trials.update(trial.id, { status: 'stopped', trashed: true, trashedAt: now() });
      }
      return { status: 'ready' };
    },

    async images(
      context: AuthContext,
      sessionId: string,
      trialName: 'calibration' | 'neutral',
    ): Promise<{ status: string; images: string[] }> {
      await sessionService.ownSession(context, sessionId);
      const trial = (await trials.ofSession(sessionId)).filter((row) => row.name === trialName && !row.trashed).at(-1);
      if (!trial) throw notFound(messages.trialNotFound);
      const tag = trialName === 'calibration' ? 'calibration-img' : 'neutral-img';
      const results = (await trials.resultsOf(trial.id)).filter((result) => result.tag === tag && result.storageKey);
      return {
        status: (await advance(trial)).status,
        images: results.map((result) => media.url(result.storageKey!, undefined, { id: result.id })),
      };
    },

    /**
     * A trial from existing video files, one per camera (labs with other cameras, earlier recordings),
     * each paired with its calibrated camera (`parameters.camera_name`); `neutral` is the session's
     * neutral trial, of the session's subject. `deviceModel` names the cameras' model, so that a board
     * calibration uses its lens calibration.
     */
    async importVideos(
      context: AuthContext,
      sessionId: string,
      name: string,
      files: UploadedFile[],
      deviceModel?: string,
      /** 2D keypoints given with the videos (keypoints-intake.ts). */
      keypoints: { files: UploadedFile[]; keypointSet?: KeypointSetName } = { files: [] },
    ) {
      const session = await sessionService.ownSession(context, sessionId);
      await assertNewTrialName(sessionId, name);
      if (files.length < MIN_CALIBRATED_CAMERAS)
        throw invalidFields({ video: [importMessages.videosTooFew(files.length)] });
      const subject = name === 'neutral' ? await sessionSubject(session) : undefined;
      const cameraNames = await importedCameraNames(sessionId, name, files);
      // Every video is read before anything changes: a refused import leaves no trial, no file, and
      // the calibration or neutral it would have replaced in place.
      const infos = [];
      for (const file of files) {
        const inspected = await intake.inspect(file.fileName, file.path);
        if ('message' in inspected) throw invalidFields({ video: [inspected.message] });
        // A trial is at most what a phone records at the video's rate, so that nobody holds the queue for hours.
        const { durationS, fps } = inspected.info;
        const limitS = recordingLimitS(fps);
        if (durationS > limitS + IMPORT_DURATION_SLACK_S)
          throw invalidFields({ video: [importMessages.videoTooLong(file.fileName, durationS, fps, limitS)] });
        infos.push(inspected.info);
      }
      const keypointsByCamera = await checkImportedKeypoints(
        keypoints.files,
        cameraNames,
        infos.map((info) => info.frameCount),
      );
      const deviceIds = files.map(
        (file, index) => `import-${index}-${file.fileName.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40)}`,
      );
      const trial = await trials.insert({
        sessionId,
        name,
        status: 'uploading',
        meta: { expected_devices: deviceIds, imported: true, ...(subject && { subject }) },
      });
      try {
        for (const [index, file] of files.entries()) {
          const result = await intake.accept(trial, deviceIds[index], file.path, {
            cameraName: cameraNames[index],
            deviceModel,
            info: infos[index],
            keypoints: keypointsByCamera.has(cameraNames[index])
              ? { ...keypointsByCamera.get(cameraNames[index])!, keypointSet: keypoints.keypointSet }
              : undefined,
          });
          if (!result.stored) throw invalidFields({ video: [result.message] });
        }
      } catch (error) {
        await removal.trial(sessionId, trial.id);
        throw error;
      }
      // Only a complete import replaces its predecessor: a failed one leaves the previous calibration or neutral in use.
      await trashPredecessors(sessionId, name, trial.id);
      return (await trials.findById(trial.id))!;
    },
  };
}

function sessionFramerate(session: SessionRowDb): number {
  const framerate = (session.meta as { settings?: { framerate?: unknown } }).settings?.framerate;
  return typeof framerate === 'number' ? framerate : DEFAULT_FRAMERATE;
}

export type RecordingService = ReturnType<typeof createRecordingService>;
