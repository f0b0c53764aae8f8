import { POLLING_INTERVAL_MS, type RecordQuery, type RecordingStatus, type TrialStatus } from '@kinetrace/contracts';
import { fetchRecordingStatus, fetchTrial, startRecording, stopRecording } from '../../api/capture.ts';

/**
 * How long the wizard lets the phones record a calibration or neutral trial before it stops them. Both are
 * still scenes (a board on a tripod, a person standing still): a couple of seconds of video is plenty, and
 * the phones start about a second after the order (their common start on the server's clock).
 */
export const WIZARD_CAPTURE_MS = { calibration: 3_000, neutral: 4_000 } as const;

export interface WizardTrialEvents {
  /** The trial's status changed (recording, uploading, processing, ...). */
  onTrialStatus(status: TrialStatus): void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('Aborted', 'AbortError'));
    });
  });

async function trialStatusOf(sessionId: string, trialId: string): Promise<{ status: TrialStatus; recorder: RecordingStatus }> {
  const recorder = await fetchRecordingStatus(sessionId);
  if (recorder.trial_id === trialId && recorder.trial_status) return { status: recorder.trial_status, recorder };
  return { status: (await fetchTrial(trialId)).status, recorder };
}

/**
 * §4.2: records a 'calibration' or 'neutral' trial, stops it after WIZARD_CAPTURE_MS, then polls the status
 * every second until the trial is done or in error. Resolves to the trial id and its final status.
 */
export async function runWizardTrial(
  sessionId: string,
  request: RecordQuery & { name: 'calibration' | 'neutral' },
  events: WizardTrialEvents,
  signal: AbortSignal,
): Promise<{ trialId: string; status: 'done' | 'error'; recorder: RecordingStatus }> {
  const { id: trialId } = await startRecording(sessionId, request);
  events.onTrialStatus('recording');
  await sleep(WIZARD_CAPTURE_MS[request.name], signal);
  await stopRecording(sessionId);
  let last: TrialStatus = 'recording';
  for (;;) {
    const { status, recorder } = await trialStatusOf(sessionId, trialId);
    if (status !== last) events.onTrialStatus(status);
    last = status;
    if (status === 'done' || status === 'error') return { trialId, status, recorder };
    await sleep(request.name === 'neutral' ? POLLING_INTERVAL_MS.neutralStatus : POLLING_INTERVAL_MS.calibrationStatus, signal);
  }
}
