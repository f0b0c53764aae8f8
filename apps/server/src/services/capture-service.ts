import { createReadStream } from 'node:fs';
import {
  messages,
  PHONE_KEYPOINTS_UPLOAD,
  phoneKeypoints2dSchema,
  phoneKeypointsMessages,
  sessionMetaSchema,
  trialKindOf,
  uploadMetadataSchema,
  type CaptureState,
  type ConnectDeviceRequest,
  type UploadKind,
} from '@kinetrace/contracts';
import { HttpError, notFound } from '../http/http-errors.ts';
import type { FileStore } from '../storage/file-store.ts';
import { parsedKeypointsFile } from './keypoints-intake.ts';
import type { DevicesRepository } from '../repositories/devices-repository.ts';
import type { SessionRowDb, SessionsRepository } from '../repositories/sessions-repository.ts';
import type { TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';
import { sessionNameOf } from './presenters.ts';
import { DEVICE_CONNECTED_WINDOW_MS, type RecordingService } from './recording-service.ts';
import { phoneKeypointsKey, recordingMetaOf, type IntakeResult, type VideoIntake } from './video-intake.ts';

/** How long a cancelled trial stays in the phones' drop list. */
const CANCELLED_VISIBLE_MS = 10 * 60_000;

/**
 * Whether the phones of `session` find 2D keypoints (issue 24): the operator allows it (PHONE_KEYPOINTS) and
 * the session's Advanced Settings do not turn it off. A phone told so at pairing loads the pose model.
 */
function phoneKeypointsAllowed(operatorAllows: boolean, session: SessionRowDb): boolean {
  return operatorAllows && sessionMetaSchema.safeParse(session.meta).data?.settings?.phone_keypoints !== 'off';
}

/** Whether the phones recording `trialName` send their keypoints: allowed, and never for a calibration, which films a board and nobody. */
function phoneKeypointsWanted(operatorAllows: boolean, session: SessionRowDb, trialName: string): boolean {
  return phoneKeypointsAllowed(operatorAllows, session) && trialKindOf(trialName) !== 'calibration';
}

/** The phone side of capture: pairing by the QR code's token, the state phones follow, their uploads. */
export function createCaptureService(deps: {
  sessions: SessionsRepository;
  trials: TrialsRepository;
  devices: DevicesRepository;
  files: FileStore;
  recording: RecordingService;
  intake: VideoIntake;
  /** Whether this server takes keypoints from the phones (PHONE_KEYPOINTS). */
  phoneKeypoints: boolean;
  now: () => Date;
}) {
  const { sessions, trials, devices, files, recording, intake, now } = deps;

  async function pairedSession(pairingToken: string): Promise<SessionRowDb> {
    const session = await sessions.findByPairingToken(pairingToken);
    if (!session || session.trashed) throw notFound(messages.pairingInvalid);
    return session;
  }

  /**
   * Checks an upload before its first byte: the trial waits for this phone's video (its keypoints come before
   * it, PHONE_KEYPOINTS_UPLOAD, and only where the phones were told to send them); `sizeBytes` is the upload's
   * length when known.
   */
  async function uploadTarget(
    metadata: Record<string, string | null | undefined>,
    sizeBytes?: number,
  ): Promise<{
    trial: TrialRow;
    session: SessionRowDb;
    kind: UploadKind;
    deviceId: string;
    firstFrameMs?: number;
    mimeType?: string;
  }> {
    const parsed = uploadMetadataSchema.safeParse(metadata);
    if (!parsed.success)
      throw new HttpError(400, {
        detail: `Invalid upload metadata: ${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')}`,
      });
    const session = await pairedSession(parsed.data.pairing_token);
    const trial = await trials.findById(parsed.data.trial_id);
    if (!trial || trial.sessionId !== session.id) throw notFound(messages.trialNotFound);
    const expected = recordingMetaOf(trial).expected_devices ?? [];
    if (
      trial.trashed ||
      !expected.includes(parsed.data.device_id) ||
      !['recording', 'uploading'].includes(trial.status)
    ) {
      throw new HttpError(410, { detail: messages.trialNotRecording });
    }
    if ((await trials.videosOf(trial.id)).some((video) => video.deviceId === parsed.data.device_id)) {
      throw new HttpError(410, { detail: messages.videoAlreadyUploaded });
    }
    const kind = parsed.data.kind ?? 'video';
    if (kind === 'keypoints') {
      if (!phoneKeypointsWanted(deps.phoneKeypoints, session, trial.name))
        throw new HttpError(410, { detail: messages.phoneKeypointsNotWanted });
      if (sizeBytes !== undefined && sizeBytes > PHONE_KEYPOINTS_UPLOAD.maxBytes)
        throw new HttpError(413, { detail: messages.phoneKeypointsTooLarge(PHONE_KEYPOINTS_UPLOAD.maxBytes) });
    }
    return {
      trial,
      session,
      kind,
      deviceId: parsed.data.device_id,
      firstFrameMs: parsed.data.first_frame_ms,
      mimeType: parsed.data.filetype,
    };
  }

  return {
    async connect(pairingToken: string, request: ConnectDeviceRequest) {
      const session = await pairedSession(pairingToken);
      await devices.upsert(session.id, request.device_id, request.capabilities, now());
      return {
        session_id: session.id,
        session_name: sessionNameOf(session),
        device_id: request.device_id,
        server_time_ms: now().getTime(),
        phone_keypoints: phoneKeypointsAllowed(deps.phoneKeypoints, session),
      };
    },

    /** What a phone polls (its heartbeat too): the recording order, its pending uploads, the counts. */
    async state(pairingToken: string, deviceId: string): Promise<CaptureState> {
      const session = await pairedSession(pairingToken);
      if (!(await devices.touch(session.id, deviceId, now()))) throw notFound(messages.pairingInvalid);
      const all = await trials.ofSession(session.id);
      const current = all.filter((trial) => !trial.trashed).at(-1);
      const trial = current && (await recording.advance(current));
      const meta = trial ? recordingMetaOf(trial) : undefined;
      const uploadsExpected: CaptureState['uploads_expected'] = [];
      for (const candidate of all) {
        const expected = recordingMetaOf(candidate).expected_devices ?? [];
        if (candidate.trashed || candidate.status !== 'uploading' || !expected.includes(deviceId)) continue;
        const done = (await trials.videosOf(candidate.id)).some((video) => video.deviceId === deviceId);
        if (!done) uploadsExpected.push({ trial_id: candidate.id, trial_name: candidate.name });
      }
      const time = now().getTime();
      const connected = await devices.connected(session.id, new Date(time - DEVICE_CONNECTED_WINDOW_MS));
      return {
        session_id: session.id,
        session_name: sessionNameOf(session),
        recording:
          trial?.status === 'recording' && meta?.expected_devices?.includes(deviceId)
            ? {
                trial_id: trial.id,
                trial_name: trial.name,
                framerate: meta.framerate ?? 60,
                start_at_ms: meta.start_at_ms ?? time,
                limit_s: meta.limit_s ?? 60,
                phone_keypoints: phoneKeypointsWanted(deps.phoneKeypoints, session, trial.name),
              }
            : null,
        uploads_expected: uploadsExpected,
        cancelled_trial_ids: all
          .filter((row) => row.status === 'stopped' && time - row.updatedAt.getTime() < CANCELLED_VISIBLE_MS)
          .map((row) => row.id),
        n_cameras_connected: connected.length,
        n_videos_uploaded: trial ? (await trials.videosOf(trial.id)).length : 0,
        server_time_ms: time,
      };
    },

    uploadTarget,

    /**
     * The upload is complete at `path`. A video: probe it, store it (with the phone's keypoints when they came
     * first), hand the trial on when it was the last one. Keypoints: check them (a field-keyed 400) and store
     * them, replacing any the phone sent before, for its video to pick up.
     */
    async finishUpload(
      metadata: Record<string, string | null | undefined>,
      path: string,
    ): Promise<IntakeResult | { stored: true }> {
      const { trial, kind, deviceId, firstFrameMs, mimeType } = await uploadTarget(metadata);
      const keypointsKey = phoneKeypointsKey(trial, deviceId);
      if (kind === 'keypoints') {
        await parsedKeypointsFile(
          { fileName: 'keypoints.json', path },
          phoneKeypoints2dSchema,
          PHONE_KEYPOINTS_UPLOAD.maxBytes,
          phoneKeypointsMessages.notJson,
        );
        await files.put(keypointsKey, createReadStream(path));
        return { stored: true };
      }
      const deviceModel = (await devices.find(trial.sessionId, deviceId))?.capabilities.device_model;
      return intake.accept(trial, deviceId, path, {
        firstFrameMs,
        mimeType,
        deviceModel: typeof deviceModel === 'string' ? deviceModel : undefined,
        ...((await files.size(keypointsKey)) !== null && { phoneKeypointsKey: keypointsKey }),
      });
    },
  };
}

export type CaptureService = ReturnType<typeof createCaptureService>;
