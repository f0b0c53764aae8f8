import { Alert, Badge, Container, Group, Progress, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useParams } from 'react-router';
import {
  CaptureController,
  type KeypointsView,
  type PhoneView,
  type UploadView,
} from '../../capture/capture-controller.ts';
import { formatElapsed } from '../../capture/elapsed-time.ts';

const PHASE_LABELS: Record<PhoneView['phase'], { label: string; color: string }> = {
  starting: { label: 'Connecting…', color: 'gray' },
  connected: { label: 'Connected', color: 'teal' },
  reconnecting: { label: 'Connection lost, reconnecting…', color: 'orange' },
  failed: { label: 'Not connected', color: 'red' },
};

function UploadRow({ upload }: { upload: UploadView }) {
  const percent = upload.totalBytes > 0 ? Math.round((100 * upload.sentBytes) / upload.totalBytes) : 0;
  const caption =
    upload.status === 'done' ? 'uploaded' : upload.status === 'failed' ? 'upload failed' : `uploading ${percent}%`;
  return (
    <Stack gap={4} data-testid="phone-upload">
      <Text size="sm">
        Video of {upload.trialName}: {caption}
      </Text>
      <Progress
        value={upload.status === 'done' ? 100 : percent}
        color={upload.status === 'failed' ? 'red' : 'teal'}
        aria-label={`Upload of ${upload.trialName}`}
      />
      {upload.message && (
        <Text size="sm" c="red">
          {upload.message}
        </Text>
      )}
    </Stack>
  );
}

/** What the phone's own keypoints come to: the rate it keeps up with, and whether they go with the video. */
function keypointsCaption(keypoints: KeypointsView): string | null {
  if (keypoints.status === 'unavailable') return keypoints.message;
  if (keypoints.ratePerSecond === null)
    return keypoints.status === 'loading'
      ? 'Preparing keypoints…'
      : 'Keypoints: this phone finds them while it records.';
  // A slow phone's rate in tenths: "0 per second" would hide that it runs at all.
  const perSecond =
    keypoints.ratePerSecond < 10 ? keypoints.ratePerSecond.toFixed(1) : Math.round(keypoints.ratePerSecond);
  const rate = `Keypoints on this phone: ${perSecond} per second`;
  if (keypoints.message) return `${rate}. ${keypoints.message}`;
  if (keypoints.sent === true) return `${rate}, sent with the video.`;
  if (keypoints.sent === false) return `${rate}: too few to help, the server finds them itself.`;
  return rate;
}

/**
 * The phone's page, opened from the session's QR code (no login, no app): the camera preview, whether the
 * phone is connected, the session and its counts, the recording with its elapsed time, and upload progress.
 */
export function CaptureScreen() {
  const { pairingToken = '' } = useParams();
  const previewRef = useRef<HTMLVideoElement>(null);
  const [controller] = useState(() => new CaptureController(pairingToken, () => previewRef.current));
  const view = useSyncExternalStore(controller.subscribe, controller.snapshot);

  useEffect(() => {
    void controller.start();
    return () => controller.close();
  }, [controller]);

  useEffect(() => {
    const preview = previewRef.current;
    if (preview && view.stream && preview.srcObject !== view.stream) preview.srcObject = view.stream;
  }, [view.stream]);

  const phase = PHASE_LABELS[view.phase];
  return (
    <Container size="xs" py="md">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={3}>Kinetrace camera</Title>
          <Badge color={phase.color} variant="light" data-testid="phone-connection">
            {phase.label}
          </Badge>
        </Group>
        {view.sessionName && <Text data-testid="phone-session">Session: {view.sessionName}</Text>}
        {view.error && (
          <Alert color="red" title="Problem" data-testid="phone-error">
            {view.error}
          </Alert>
        )}
        <video
          ref={previewRef}
          autoPlay
          muted
          playsInline
          aria-label="Camera preview"
          style={{ width: '100%', background: '#000', borderRadius: 8, aspectRatio: '9 / 16', objectFit: 'contain' }}
        />
        {view.phase !== 'failed' && (
          <Group gap="lg">
            <Text size="sm" data-testid="phone-cameras">
              Cameras connected: {view.camerasConnected}
            </Text>
            <Text size="sm" data-testid="phone-videos">
              Videos uploaded: {view.videosUploaded}
            </Text>
          </Group>
        )}
        {view.recording ? (
          <Alert color="red" variant="filled" data-testid="phone-recording">
            {view.recording.waitingForStart
              ? `Starting the recording of ${view.recording.trialName}…`
              : `Recording ${view.recording.trialName} ${formatElapsed(view.recording.elapsedMs)}`}
          </Alert>
        ) : (
          view.phase === 'connected' && (
            <Text size="sm" c="dimmed" data-testid="phone-idle">
              Ready. Keep this page open: the phone records when the researcher starts a recording.
            </Text>
          )
        )}
        {view.phase === 'connected' && keypointsCaption(view.keypoints) && (
          <Text size="sm" c="dimmed" data-testid="phone-keypoints">
            {keypointsCaption(view.keypoints)}
          </Text>
        )}
        {view.uploads.map((upload) => (
          <UploadRow key={upload.trialId} upload={upload} />
        ))}
      </Stack>
    </Container>
  );
}
