import {
  DEFAULT_RECORDING_LIMIT_S,
  POLLING_INTERVAL_MS,
  RECORDING_LIMIT_S,
  messages,
  type Session,
} from '@kinetrace/contracts';
import { Button, Group, Paper, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import {
  cancelTrial,
  fetchCalibratedCameraCount,
  fetchRecordingStatus,
  startRecording,
  stopRecording,
} from '../../../api/capture.ts';
import { ApiError } from '../../../app/api-client.ts';
import { reportError } from '../../../app/report-error.ts';
import { speak, useAuditoryFeedback } from '../../../capture/auditory-feedback.ts';
import { formatElapsed } from '../../../capture/elapsed-time.ts';
import { PoorCalibrationWarning } from '../../../components/CalibrationQuality.tsx';
import { toast } from '../../../components/toasts.tsx';
import { newTrialNameError } from '../../../components/trial-name.ts';
import { waitForCalibratedCameras } from './camera-wait.ts';

type RecorderState = 'ready' | 'starting' | 'recording' | 'processing';

/**
 * §2.13 / §4.3 the session's recorder (owner only): a trial name, then Start recording → Stop recording
 * mm:ss → Cancel Upload while the videos upload → ready again. Waits for every calibrated camera before
 * recording, stops by itself at the frame rate's time limit, and speaks start and end when the profile's
 * auditory feedback is on.
 */
export function SessionRecorder({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const auditoryFeedback = useAuditoryFeedback();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [state, setState] = useState<RecorderState>('ready');
  const [elapsedMs, setElapsedMs] = useState(0);
  const [uploads, setUploads] = useState<{ uploaded: number; expected: number } | null>(null);
  const startedAt = useRef(0);
  const stopping = useRef(false);
  const limitS = RECORDING_LIMIT_S[session.meta.settings?.framerate ?? 0] ?? DEFAULT_RECORDING_LIMIT_S;
  const refreshSession = () => void queryClient.invalidateQueries({ queryKey: ['session'] });
  const nameError = newTrialNameError(name, session.trials);

  // The elapsed time, and the automatic stop at the time limit (§4.3).
  useEffect(() => {
    if (state !== 'recording') return;
    const timer = setInterval(() => {
      const elapsed = Date.now() - startedAt.current;
      setElapsedMs(elapsed);
      if (elapsed >= limitS * 1000 && !stopping.current) {
        toast.info(messages.recordingTimeLimit);
        void stop();
      }
    }, 250);
    return () => clearInterval(timer);
  }, [state, limitS]);

  // While the videos upload, follow the recorder every 2 s until it is ready again (§9).
  useEffect(() => {
    if (state !== 'processing') return;
    let cancelled = false;
    const follow = async () => {
      try {
        const status = await fetchRecordingStatus(session.id);
        if (cancelled) return;
        setUploads({ uploaded: status.n_videos_uploaded, expected: status.n_videos_expected });
        const uploading =
          status.status === 'recording' || status.trial_status === 'uploading' || status.trial_status === 'recording';
        if (!uploading) {
          if (status.trial_status === 'error' && status.n_videos_uploaded < status.n_videos_expected)
            toast.error(messages.videosMissing(status.n_videos_expected, status.n_videos_uploaded));
          if (auditoryFeedback) speak('Upload finished.');
          setState('ready');
          setUploads(null);
          refreshSession();
        }
      } catch (error) {
        reportError(error, 'Could not follow the upload.');
      }
    };
    void follow();
    const timer = setInterval(() => void follow(), POLLING_INTERVAL_MS.recorderStatus);
    return () => {
      cancelled = true;
      clearInterval(timer);
    };
  }, [state, session.id]);

  async function start() {
    setTouched(true);
    if (nameError) return;
    setState('starting');
    try {
      const calibrated = await fetchCalibratedCameraCount(session.id);
      if (calibrated === 0) {
        toast.error(messages.noCalibratedCamerasForTrial);
        setState('ready');
        return;
      }
      await startRecording(session.id, { name });
      if (!(await waitForCalibratedCameras(session.id, calibrated))) {
        await stopRecording(session.id).catch(() => undefined);
        await cancelTrial(session.id);
        toast.error(messages.camerasConnectionTimeout);
        setState('ready');
        refreshSession();
        return;
      }
      startedAt.current = Date.now();
      stopping.current = false;
      setElapsedMs(0);
      setState('recording');
      if (auditoryFeedback) speak('Recording started.');
      refreshSession();
    } catch (error) {
      setState('ready');
      if (error instanceof ApiError && error.status === 400) setTouched(true);
      reportError(error, 'Could not start the recording.');
    }
  }

  async function stop() {
    stopping.current = true;
    try {
      await stopRecording(session.id);
      if (auditoryFeedback) speak('Recording stopped.');
      setState('processing');
      setName('');
      setTouched(false);
    } catch (error) {
      reportError(error, 'Could not stop the recording.');
      setState('ready');
    }
    refreshSession();
  }

  async function cancelUpload() {
    try {
      await cancelTrial(session.id);
    } catch (error) {
      reportError(error, 'Could not cancel the upload.');
    }
    setState('ready');
    setUploads(null);
    refreshSession();
  }

  const button =
    state === 'recording' ? (
      <Button color="red" onClick={() => void stop()}>
        Stop recording {formatElapsed(elapsedMs)}
      </Button>
    ) : state === 'processing' ? (
      <Button color="orange" variant="light" onClick={() => void cancelUpload()}>
        Cancel Upload
      </Button>
    ) : (
      <Button onClick={() => void start()} loading={state === 'starting'}>
        Start recording
      </Button>
    );

  return (
    <Paper withBorder radius="md" p="md" mb="md" data-testid="session-recorder">
      {state === 'ready' && <PoorCalibrationWarning session={session} />}
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="Trial name"
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          onBlur={() => setTouched(name !== '')}
          // While recording, the trial being recorded is in the session: its name is not an error then.
          error={touched && state === 'ready' ? nameError : undefined}
          disabled={state !== 'ready'}
          w={260}
        />
        {button}
        {uploads && (
          <Text c="dimmed" data-testid="recorder-uploads">
            {uploads.uploaded} of {uploads.expected} videos uploaded
          </Text>
        )}
      </Group>
    </Paper>
  );
}
