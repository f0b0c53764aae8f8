import {
  CHECKERBOARD_DEFAULTS,
  CHECKERBOARD_PLACEMENTS,
  MIN_CALIBRATED_CAMERAS,
  POLLING_INTERVAL_MS,
  TOAST_DURATION_MS,
  messages,
  setMetadataQuerySchema,
  type Trial,
} from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Container, Group, Paper, Select, Stack, Text, Title, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Controller, useForm, type Resolver } from 'react-hook-form';
import type { z } from 'zod';
import { useNavigate, useParams } from 'react-router';
import { fetchCalibratedCameraCount, setSessionMetadata, useRecordingStatus } from '../../api/capture.ts';
import { useSession } from '../../api/sessions.ts';
import { reportError } from '../../app/report-error.ts';
import { BoardNumberField } from '../../components/BoardNumberField.tsx';
import { CalibrationResult } from '../../components/CalibrationQuality.tsx';
import { latestCalibrationOf } from '../../components/calibration-quality.ts';
import { ImportCalibrationDialog } from '../../components/ImportCalibrationDialog.tsx';
import { ProcessingFailedAlert, ProcessingProgress } from '../../components/ProcessingProgress.tsx';
import { useProgressView } from '../../components/processing-progress.ts';
import { toast } from '../../components/toasts.tsx';
import { WizardStepper } from '../../components/WizardStepper.tsx';
import { VideosUploaded } from './VideosUploaded.tsx';
import { useWizardTrial } from './wizard-trial.ts';

type Placement = (typeof CHECKERBOARD_PLACEMENTS)[number];

const PLACEMENT_GUIDANCE: Record<Placement, string> = {
  Perpendicular:
    'Stand the board upright, perpendicular to the floor, where the subject will move. Every camera must see the whole board; hold it still while recording.',
  Lying:
    'Lay the board flat on the floor where the subject will move. Every camera must see the whole board from above; keep it flat and uncovered while recording.',
};

const WORLD_FRAME_HELP =
  "The board defines the world frame: its origin is the board's top-left inner corner, and the axes are turned so that y points up and x points forward (OpenSim's convention). Choose the placement the board really has, or the model will be tilted.";

/** What to try when a calibration ends in error, beside the server's own message. */
const CALIBRATION_ERROR_ADVICE =
  'Check that every camera sees the whole board, that rows and columns count its inner corners (not its squares), and calibrate again — or import a calibration file.';

/** The checkerboard fields, checked with the set_metadata rules the server applies (§5). */
const checkerboardForm = setMetadataQuerySchema
  .pick({ cb_rows: true, cb_cols: true, cb_square: true, cb_placement: true })
  .required();
type CheckerboardForm = {
  cb_rows: number | string;
  cb_cols: number | string;
  cb_square: number | string;
  cb_placement: Placement;
};
// The schema reads numbers from the query string's text (its input is `unknown`); the number inputs give numbers or ''.
const checkerboardResolver = zodResolver(checkerboardForm) as unknown as Resolver<
  CheckerboardForm,
  unknown,
  z.output<typeof checkerboardForm>
>;

/** A count of calibrated cameras below 2 is an error the user must fix by calibrating again (§5). */
function calibratedCountError(count: number): string | null {
  if (count >= MIN_CALIBRATED_CAMERAS) return null;
  return count === 0 ? messages.noCamerasCalibrated : messages.onlyOneCalibratedCamera;
}

const STATUS_CAPTIONS: Partial<Record<Trial['status'], string>> = {
  recording: 'Recording…',
  uploading: 'Uploading videos…',
  processing: 'Processing…',
  reprocess: 'Processing…',
};

/** §2.10 wizard step 2: the checkerboard settings and the calibration recording (§4.2), or an imported calibration. */
export function CalibrationScreen() {
  const { id: sessionId = '' } = useParams();
  const navigate = useNavigate();
  const [errorMessage, setErrorMessage] = useState<string | null>(null);
  const [importing, setImporting] = useState(false);
  const status = useRecordingStatus(sessionId, POLLING_INTERVAL_MS.calibrationStatus);
  const calibratedCount = useQuery({
    queryKey: ['calibrated-cameras', sessionId],
    queryFn: () => fetchCalibratedCameraCount(sessionId),
  });
  const form = useForm<CheckerboardForm, unknown, z.output<typeof checkerboardForm>>({
    resolver: checkerboardResolver,
    mode: 'onChange',
    defaultValues: {
      cb_rows: CHECKERBOARD_DEFAULTS.rows,
      cb_cols: CHECKERBOARD_DEFAULTS.cols,
      cb_square: CHECKERBOARD_DEFAULTS.squareSizeMm,
      cb_placement: CHECKERBOARD_DEFAULTS.placement,
    },
  });
  const placement = form.watch('cb_placement');
  // The board stored on the session is the starting value (calibrating again uses the same board as a rule).
  const session = useSession(sessionId);
  const boardLoaded = useRef(false);
  useEffect(() => {
    if (!session.data || boardLoaded.current) return;
    boardLoaded.current = true;
    const stored = session.data.meta.checkerboard;
    if (stored && !form.formState.isDirty)
      form.reset({
        cb_rows: stored.rows,
        cb_cols: stored.cols,
        cb_square: stored.squareSize,
        cb_placement: stored.placement,
      });
  }, [session.data, form]);
  const goToNeutral = () => void navigate(`/${sessionId}/neutral`);

  const wizard = useWizardTrial(sessionId, 'calibration', (trial) => {
    if (trial.status === 'processing' || trial.status === 'reprocess') toast.info(messages.processing);
    if (trial.status === 'done') void finish();
    if (trial.status === 'error') {
      const serverMessage = trial.meta.error_msg;
      const shown = typeof serverMessage === 'string' && serverMessage ? serverMessage : messages.finishedWithError;
      toast.error(shown);
      setErrorMessage(shown);
    }
  });
  const progress =
    wizard.trial && (wizard.trial.status === 'processing' || wizard.trial.status === 'reprocess') ? wizard.trial : null;
  const stuck = useProgressView(progress)?.overdue === true;
  const busy = wizard.underWay && !stuck;

  async function finish() {
    try {
      const calibrated = await fetchCalibratedCameraCount(sessionId);
      void calibratedCount.refetch();
      const problem = calibratedCountError(calibrated);
      if (problem) {
        toast.error(problem);
        setErrorMessage(problem);
        return;
      }
      toast.success(messages.camerasCalibrated(calibrated), TOAST_DURATION_MS.calibrationSuccess);
      goToNeutral();
    } catch (error) {
      reportError(error, 'Could not count the calibrated cameras.');
    }
  }

  const calibrate = form.handleSubmit(async (values) => {
    const connected = status.data?.n_cameras_connected ?? 0;
    if (connected < MIN_CALIBRATED_CAMERAS) {
      toast.error(messages.devicesRequiredForCalibration(connected));
      return;
    }
    setErrorMessage(null);
    try {
      await setSessionMetadata(sessionId, values);
      await wizard.record({ name: 'calibration' });
    } catch (error) {
      if (!wizard.leftPage())
        reportError(error, 'Could not record the calibration.', { setError: form.setError, schema: checkerboardForm });
    }
  });

  // The calibration just made, else the session's newest one: its images and board errors are shown below the form.
  const shownCalibration =
    wizard.trial?.status === 'done' ? wizard.trial : session.data && latestCalibrationOf(session.data);

  const caption = wizard.trial
    ? STATUS_CAPTIONS[wizard.trial.status]
    : wizard.underWay
      ? STATUS_CAPTIONS.recording
      : undefined;

  return (
    <Container size="md" my="md">
      <WizardStepper sessionId={sessionId} step="Calibration" />
      <Group gap="xs" mb="md">
        <Title order={2}>Calibration</Title>
        <Tooltip label={WORLD_FRAME_HELP} multiline w={340} withArrow>
          <Button variant="subtle" size="compact-sm" aria-label="About the world frame">
            ?
          </Button>
        </Tooltip>
      </Group>
      <Paper withBorder radius="md" p="lg">
        <form onSubmit={(event) => void calibrate(event)} noValidate>
          <Stack>
            <VideosUploaded status={status.data} />
            <Alert color="blue" title="Place the checkerboard">
              {PLACEMENT_GUIDANCE[placement]} Rows and columns count the board's inner corners.
            </Alert>
            <Group grow align="flex-start">
              <BoardNumberField control={form.control} name="cb_rows" label="Rows" disabled={busy} />
              <BoardNumberField control={form.control} name="cb_cols" label="Columns" disabled={busy} />
              <BoardNumberField control={form.control} name="cb_square" label="Square size (mm)" disabled={busy} />
              <Controller
                control={form.control}
                name="cb_placement"
                render={({ field }) => (
                  <Select
                    label="Placement"
                    data={[...CHECKERBOARD_PLACEMENTS]}
                    value={field.value}
                    onChange={(value) => value && field.onChange(value)}
                    allowDeselect={false}
                    disabled={busy}
                  />
                )}
              />
            </Group>
            {caption && (
              <Text c="dimmed" data-testid="calibration-stage">
                {caption}
              </Text>
            )}
            {progress && <ProcessingProgress trial={progress} />}
            {errorMessage && !wizard.underWay && (
              <ProcessingFailedAlert
                title="The calibration did not succeed"
                message={errorMessage}
                advice={CALIBRATION_ERROR_ADVICE}
                testId="calibration-error"
              />
            )}
            {shownCalibration && !wizard.underWay && <CalibrationResult calibration={shownCalibration} />}
            <Group justify="space-between">
              <Button variant="default" onClick={() => void navigate(`/${sessionId}/connect-devices`)}>
                Back
              </Button>
              <Group>
                <Button variant="subtle" onClick={() => setImporting(true)} disabled={busy}>
                  Import a calibration file
                </Button>
                {(calibratedCount.data ?? 0) >= MIN_CALIBRATED_CAMERAS && (
                  <Button variant="light" onClick={goToNeutral} disabled={busy}>
                    Next
                  </Button>
                )}
                <Button type="submit" loading={busy} disabled={!form.formState.isValid}>
                  Calibrate
                </Button>
              </Group>
            </Group>
          </Stack>
        </form>
      </Paper>
      {importing && (
        <ImportCalibrationDialog sessionId={sessionId} onClose={() => setImporting(false)} onCalibrated={goToNeutral} />
      )}
    </Container>
  );
}
