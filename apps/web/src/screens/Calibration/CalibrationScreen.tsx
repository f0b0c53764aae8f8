import {
  CHECKERBOARD_DEFAULTS,
  CHECKERBOARD_PLACEMENTS,
  MIN_CALIBRATED_CAMERAS,
  POLLING_INTERVAL_MS,
  TOAST_DURATION_MS,
  messages,
} from '@kinetrace/contracts';
import { Alert, Button, Container, Group, NumberInput, Paper, Select, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { fetchCalibratedCameraCount, fetchTrial, fetchTrialImages, setSessionMetadata, useRecordingStatus } from '../../api/capture.ts';
import { reportError } from '../../app/report-error.ts';
import { toast } from '../../components/toasts.tsx';
import { VideosUploaded } from './VideosUploaded.tsx';
import { runWizardTrial } from './wizard-trial.ts';

type Placement = (typeof CHECKERBOARD_PLACEMENTS)[number];

const PLACEMENT_GUIDANCE: Record<Placement, string> = {
  Perpendicular:
    'Stand the board upright, perpendicular to the floor, where the subject will move. Every camera must see the whole board; hold it still while recording.',
  Lying:
    'Lay the board flat on the floor where the subject will move. Every camera must see the whole board from above; keep it flat and uncovered while recording.',
};

const WORLD_FRAME_HELP =
  "The board defines the world frame: its origin is the board's top-left inner corner, and the axes are turned so that y points up and x points forward (OpenSim's convention). Choose the placement the board really has, or the model will be tilted.";

/** A count of calibrated cameras below 2 is an error the user must fix by calibrating again (§5). */
function calibratedCountError(count: number): string | null {
  if (count >= MIN_CALIBRATED_CAMERAS) return null;
  return count === 0 ? messages.noCamerasCalibrated : messages.onlyOneCalibratedCamera;
}

/** §2.10 wizard step 2: the checkerboard settings and the calibration recording (§4.2). */
export function CalibrationScreen() {
  const { id: sessionId = '' } = useParams();
  const navigate = useNavigate();
  const [rows, setRows] = useState<number | string>(CHECKERBOARD_DEFAULTS.rows);
  const [cols, setCols] = useState<number | string>(CHECKERBOARD_DEFAULTS.cols);
  const [squareSizeMm, setSquareSizeMm] = useState<number | string>(CHECKERBOARD_DEFAULTS.squareSizeMm);
  const [placement, setPlacement] = useState<Placement>(CHECKERBOARD_DEFAULTS.placement);
  const [busy, setBusy] = useState(false);
  const [stage, setStage] = useState<string | null>(null);
  const status = useRecordingStatus(sessionId, POLLING_INTERVAL_MS.calibrationStatus);
  const images = useQuery({ queryKey: ['calibration-images', sessionId], queryFn: () => fetchTrialImages(sessionId, 'calibration') });
  const abort = useRef(new AbortController());
  useEffect(() => () => abort.current.abort(), []);

  const goToNeutral = () => navigate(`/${sessionId}/neutral`);
  const alreadyCalibrated = (images.data?.images.length ?? 0) > 0;
  const valid = [rows, cols, squareSizeMm].every((value) => typeof value === 'number' && value > 0);

  async function calibrate() {
    const connected = status.data?.n_cameras_connected ?? 0;
    if (connected < MIN_CALIBRATED_CAMERAS) {
      toast.error(messages.devicesRequiredForCalibration(connected));
      return;
    }
    setBusy(true);
    try {
      await setSessionMetadata(sessionId, { cb_rows: Number(rows), cb_cols: Number(cols), cb_square: Number(squareSizeMm), cb_placement: placement });
      const result = await runWizardTrial(
        sessionId,
        { name: 'calibration' },
        {
          onTrialStatus: (trialStatus) => {
            setStage(trialStatus);
            if (trialStatus === 'processing') toast.info(messages.processing);
          },
        },
        abort.current.signal,
      );
      if (result.status === 'error') {
        const trial = await fetchTrial(result.trialId);
        const errorMessage = trial.meta.error_msg;
        toast.error(typeof errorMessage === 'string' && errorMessage ? errorMessage : messages.finishedWithError);
        return;
      }
      const calibrated = await fetchCalibratedCameraCount(sessionId);
      const problem = calibratedCountError(calibrated);
      if (problem) {
        toast.error(problem);
        return;
      }
      toast.success(messages.camerasCalibrated(calibrated), TOAST_DURATION_MS.calibrationSuccess);
      goToNeutral();
    } catch (error) {
      if (!abort.current.signal.aborted) reportError(error, 'Could not record the calibration.');
    } finally {
      setBusy(false);
      setStage(null);
    }
  }

  return (
    <Container size="md" my="md">
      <Group gap="xs" mb="md">
        <Title order={2}>Calibration</Title>
        <Tooltip label={WORLD_FRAME_HELP} multiline w={340} withArrow>
          <Button variant="subtle" size="compact-sm" aria-label="About the world frame">
            ?
          </Button>
        </Tooltip>
      </Group>
      <Paper withBorder radius="md" p="lg">
        <Stack>
          <VideosUploaded status={status.data} />
          <Alert color="blue" title="Place the checkerboard">
            {PLACEMENT_GUIDANCE[placement]} Rows and columns count the board's inner corners.
          </Alert>
          <Group grow>
            <NumberInput label="Rows" min={2} max={50} value={rows} onChange={setRows} disabled={busy} />
            <NumberInput label="Columns" min={2} max={50} value={cols} onChange={setCols} disabled={busy} />
            <NumberInput label="Square size (mm)" min={1} max={1000} value={squareSizeMm} onChange={setSquareSizeMm} disabled={busy} />
            <Select
              label="Placement"
              data={[...CHECKERBOARD_PLACEMENTS]}
              value={placement}
              onChange={(value) => value && setPlacement(value as Placement)}
              allowDeselect={false}
              disabled={busy}
            />
          </Group>
          {stage && (
            <Text c="dimmed" data-testid="calibration-stage">
              {stage === 'recording' ? 'Recording…' : stage === 'uploading' ? 'Uploading videos…' : stage === 'processing' ? 'Processing…' : stage}
            </Text>
          )}
          <Group justify="space-between">
            <Button variant="default" onClick={() => navigate(`/${sessionId}/connect-devices`)} disabled={busy}>
              Back
            </Button>
            <Group>
              {alreadyCalibrated && (
                <Button variant="light" onClick={goToNeutral} disabled={busy}>
                  Next
                </Button>
              )}
              <Button onClick={() => void calibrate()} loading={busy} disabled={!valid}>
                Calibrate
              </Button>
            </Group>
          </Group>
        </Stack>
      </Paper>
    </Container>
  );
}
