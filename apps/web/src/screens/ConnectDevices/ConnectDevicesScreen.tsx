import { POLLING_INTERVAL_MS, TOAST_DURATION_MS, messages } from '@kinetrace/contracts';
import { Alert, Button, Code, Container, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useRecordingStatus } from '../../api/capture.ts';
import { useInstanceInfo } from '../../api/instance.ts';
import { useNewSession } from '../../api/sessions.ts';
import { activeSessionStore, useActiveSessionId } from '../../app/active-session.ts';
import { reportError } from '../../app/report-error.ts';
import { toast } from '../../components/toasts.tsx';
import { WizardStepper } from '../../components/WizardStepper.tsx';
import { captureAddressProblem } from './capture-address.ts';
import { SessionQrCode } from './SessionQrCode.tsx';

/**
 * The session in the URL (made active by the guard once loaded), else the one in progress; without either,
 * opening the step starts a new session (§2.8 New session), or takes up the empty one a first login left.
 */
function useSessionToConnect(): string | null {
  const { id } = useParams();
  const navigate = useNavigate();
  const activeSessionId = useActiveSessionId();
  const newSession = useNewSession();
  const requested = useRef(false);

  useEffect(() => {
    if (id || activeSessionId || requested.current) return;
    requested.current = true;
    newSession.mutate(undefined, {
      onSuccess: (session) => {
        activeSessionStore.set(session.id);
        // The address names the session, as when the session list's New session opens this step.
        void navigate(`/${session.id}/connect-devices`, { replace: true });
      },
      onError: (error) => reportError(error, 'Could not create a session.'),
    });
  }, [id, activeSessionId, newSession, navigate]);
  return id ?? activeSessionId;
}

/** §2.9 wizard step 1: pair the phones by QR code, then go on to the calibration. */
export function ConnectDevicesScreen() {
  const navigate = useNavigate();
  const sessionId = useSessionToConnect();
  const status = useRecordingStatus(sessionId, POLLING_INTERVAL_MS.calibrationStatus);
  const publicUrl = useInstanceInfo().data?.public_url;
  const addressProblem = publicUrl ? captureAddressProblem(publicUrl) : null;

  useEffect(() => toast.info(messages.captureAppNotice, TOAST_DURATION_MS.appStoreNotice), []);

  return (
    <Container size="md" my="md">
      <WizardStepper sessionId={sessionId} step="Connect devices" />
      <Title order={2} mb="md">
        Connect devices
      </Title>
      {addressProblem && (
        <Alert color="orange" title="Phones cannot use this QR code" mb="md" data-testid="capture-address-warning">
          {/* Commands and settings are quoted in backticks. */}
          {addressProblem.split('`').map((part, index) => (index % 2 === 1 ? <Code key={index}>{part}</Code> : part))}
        </Alert>
      )}
      <Paper withBorder radius="md" p="lg">
        <Group align="flex-start" gap="xl" wrap="wrap">
          <Stack flex={1} miw={280}>
            <List type="ordered" spacing="xs">
              <List.Item>Open the camera app of a phone (any phone with a browser: nothing to install).</List.Item>
              <List.Item>Scan the QR code and allow the camera in the page that opens.</List.Item>
              <List.Item>Mount the phone on a tripod, in portrait or landscape, and keep the page open.</List.Item>
              <List.Item>Repeat for all phones.</List.Item>
              <List.Item>Check that the person is in view of at least 2 cameras.</List.Item>
            </List>
            {status.data && (
              <Text data-testid="devices-connected">
                {status.data.n_cameras_connected} device{status.data.n_cameras_connected === 1 ? '' : 's'} connected
              </Text>
            )}
          </Stack>
          {sessionId && <SessionQrCode sessionId={sessionId} />}
        </Group>
        <Group justify="flex-end" mt="lg">
          <Button disabled={!sessionId} onClick={() => sessionId && void navigate(`/${sessionId}/calibration`)}>
            Next
          </Button>
        </Group>
      </Paper>
    </Container>
  );
}
