import type { Session, Trial } from '@kinetrace/contracts';
import { Alert, Button, Group, Image, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useNavigate } from 'react-router';
import {
  latestCalibrationOf,
  poorCameras,
  useCalibrationQuality,
  type CameraCalibration,
} from './calibration-quality.ts';
import { LightBadge } from './LightBadge.tsx';
import { BOARD_ERROR_LIMITS_PX } from './quality-lights.ts';

const boardError = (camera: CameraCalibration) =>
  camera.boardErrorPx === null ? 'not measured (imported)' : `${camera.boardErrorPx.toFixed(2)} px`;

/** What a poor calibration means and what to do, naming its cameras. */
function poorCalibrationText(poor: readonly CameraCalibration[]): string {
  const which = poor.map((camera) => `${camera.camera} (${boardError(camera)})`).join(', ');
  return (
    `The calibration of ${which} is poor: a good one stays under ${BOARD_ERROR_LIMITS_PX.good} px of board error, ` +
    'and 3D results from this one will be off. Check that the board is flat, still and fully in view of every camera, ' +
    'then calibrate again before recording.'
  );
}

/**
 * The warning before recording (issue 21): shown on the steps that record while the session's calibration is
 * poor, with the way back to the calibration step.
 */
export function PoorCalibrationWarning({ session }: { session: Session }) {
  const navigate = useNavigate();
  const quality = useCalibrationQuality(latestCalibrationOf(session));
  const poor = poorCameras(quality.data);
  if (poor.length === 0) return null;
  return (
    <Alert color="orange" title="The calibration is poor" data-testid="poor-calibration" mb="sm">
      <Text size="sm">{poorCalibrationText(poor)}</Text>
      <Button size="compact-sm" variant="light" mt="xs" onClick={() => void navigate(`/${session.id}/calibration`)}>
        Calibrate again
      </Button>
    </Alert>
  );
}

/**
 * The calibration step's result (issue 21): each camera's board image and board error, and a warning when poor.
 * A good calibration goes on to Neutral at once (§4.2), where a poor one is also warned about before recording;
 * the step shows its result whenever the user comes back to it (Back, the stepper, Calibrate again).
 */
export function CalibrationResult({ calibration }: { calibration: Trial }) {
  const quality = useCalibrationQuality(calibration);
  if (!quality.data || quality.data.length === 0) return null;
  const poor = poorCameras(quality.data);
  return (
    <section aria-label="Calibration result">
      <Stack gap="xs">
        <Title order={4}>Calibration result</Title>
        {poor.length > 0 && (
          <Alert color="orange" title="The calibration is poor" data-testid="poor-calibration">
            {poorCalibrationText(poor)}
          </Alert>
        )}
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          {quality.data.map((camera) => (
            <Stack key={camera.camera} gap={4} data-camera={camera.camera}>
              {camera.imageUrl && (
                <Image src={camera.imageUrl} alt={`Calibration image, ${camera.camera}`} radius="sm" />
              )}
              <Group gap="xs">
                <Text size="sm" fw={500}>
                  {camera.camera}
                </Text>
                <Text size="sm" data-testid="board-error">
                  Board error {boardError(camera)}
                </Text>
                {camera.light && <LightBadge light={camera.light} size="sm" />}
              </Group>
            </Stack>
          ))}
        </SimpleGrid>
      </Stack>
    </section>
  );
}
