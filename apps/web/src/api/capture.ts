import {
  captureStateSchema,
  capturePaths,
  connectDeviceResponseSchema,
  dataPaths,
  recordResponseSchema,
  recordingStatusSchema,
  serverTimeSchema,
  sessionSettingsResponseSchema,
  setMetadataResponseSchema,
  trialSchema,
  type ConnectDeviceRequest,
  type RecordQuery,
  type SetMetadataQuery,
} from '@kinetrace/contracts';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest, queryString } from '../app/api-client.ts';

/**
 * The capture calls: the phone's (the pairing token is its credential) and the researcher's recording calls
 * of §7 (the owner's token). Plain functions: the wizard screens call them from their own polling loops.
 */

// Phone side

export const connectDevice = (pairingToken: string, request: ConnectDeviceRequest) =>
  apiRequest(capturePaths.connect(pairingToken), {
    body: request,
    schema: connectDeviceResponseSchema,
  });

export const fetchCaptureState = (pairingToken: string, deviceId: string) =>
  apiRequest(`${capturePaths.state(pairingToken)}${queryString({ device_id: deviceId })}`, {
    schema: captureStateSchema,
  });

export const fetchServerTime = () => apiRequest(capturePaths.time, { schema: serverTimeSchema });

// Researcher side

/** The session's pairing QR code (an image data URL); it does not change, so it is fetched once. */
export const useSessionQrCode = (sessionId: string | null) =>
  useQuery({
    queryKey: ['session-qr', sessionId],
    queryFn: async () =>
      (await apiRequest(dataPaths.sessionAction(sessionId!, 'get_qr'), { schema: z.object({ qr: z.string() }) })).qr,
    enabled: sessionId !== null,
    staleTime: Infinity,
  });

/** The recorder's status, polled every `intervalMs` (the wizard steps and the session recorder, §9). */
export const useRecordingStatus = (sessionId: string | null, intervalMs: number | false) =>
  useQuery({
    queryKey: ['recording-status', sessionId],
    queryFn: () => fetchRecordingStatus(sessionId!),
    enabled: sessionId !== null,
    refetchInterval: intervalMs,
  });

export const startRecording = (sessionId: string, request: RecordQuery) =>
  apiRequest(`${dataPaths.sessionAction(sessionId, 'record')}${queryString(request)}`, {
    schema: recordResponseSchema,
  });

export const fetchRecordingStatus = (sessionId: string, withTrials = false) =>
  apiRequest(`${dataPaths.sessionAction(sessionId, 'status')}${withTrials ? '?ret_session=true' : ''}`, {
    schema: recordingStatusSchema,
  });

export const stopRecording = (sessionId: string) =>
  apiRequest(dataPaths.sessionAction(sessionId, 'stop'), { schema: z.object({ status: z.string() }) });

export const cancelTrial = (sessionId: string) =>
  apiRequest(dataPaths.sessionAction(sessionId, 'cancel_trial'), { schema: z.object({ status: z.string() }) });

export const fetchCalibratedCameraCount = async (sessionId: string) =>
  (
    await apiRequest(dataPaths.sessionAction(sessionId, 'get_n_calibrated_cameras'), {
      schema: z.object({ data: z.number() }),
    })
  ).data;

const imagesSchema = z.object({ status: z.string(), images: z.array(z.string()).default([]) });

/** The checkerboard images of the last calibration, or the neutral-pose images of the last neutral trial. */
export const fetchTrialImages = (sessionId: string, kind: 'calibration' | 'neutral') =>
  apiRequest(dataPaths.sessionAction(sessionId, kind === 'calibration' ? 'calibration_img' : 'neutral_img'), {
    schema: imagesSchema,
  });

export const setSessionMetadata = (sessionId: string, metadata: SetMetadataQuery) =>
  apiRequest(`${dataPaths.sessionAction(sessionId, 'set_metadata')}${queryString(metadata)}`, {
    schema: setMetadataResponseSchema,
  });

export const setSessionSubject = (sessionId: string, subjectId: number) =>
  apiRequest(`${dataPaths.sessionAction(sessionId, 'set_subject')}${queryString({ subject_id: subjectId })}`, {
    schema: z.unknown(),
  });

/** The frame rates this server records at (§9: only those are offered), and what each processing choice runs on it (issue 21). */
export const fetchSessionSettings = (sessionId: string) =>
  apiRequest(dataPaths.sessionAction(sessionId, 'get_session_settings'), { schema: sessionSettingsResponseSchema });

export const fetchTrial = (trialId: string) => apiRequest(dataPaths.trial(trialId), { schema: trialSchema });

/** Existing videos (one file per camera) as a new trial of the session. */
export function importVideos(sessionId: string, trialName: string, videos: readonly File[]) {
  const form = new FormData();
  form.set('name', trialName);
  for (const video of videos) form.append('video', video, video.name);
  return apiRequest(dataPaths.sessionAction(sessionId, 'import'), { method: 'POST', body: form, schema: trialSchema });
}
