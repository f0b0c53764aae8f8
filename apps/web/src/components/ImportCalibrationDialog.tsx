import { MIN_CALIBRATED_CAMERAS, TOAST_DURATION_MS, messages } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { fetchCalibratedCameraCount } from '../api/capture.ts';
import { useImportCalibration } from '../api/processing.ts';
import { reportError } from '../app/report-error.ts';
import { toast } from './toasts.tsx';
import { FilesField } from './FilesField.tsx';

const importCalibrationForm = z.object({ file: z.array(z.instanceof(File)).min(1, messages.required) });
type ImportCalibrationForm = z.infer<typeof importCalibrationForm>;

/**
 * Camera calibration files instead of a checkerboard recording (a lab's existing cameras): Kinetrace JSON,
 * Pose2Sim .toml, Qualisys .qca.txt or OpenCap pickles, one per camera or one for all. Once imported the
 * session counts its calibrated cameras, and the wizard goes on as after a calibration (§4.2).
 */
export function ImportCalibrationDialog({
  sessionId,
  onClose,
  onCalibrated,
}: {
  sessionId: string;
  onClose: () => void;
  onCalibrated: () => void;
}) {
  const importCalibration = useImportCalibration();
  const form = useForm<ImportCalibrationForm>({
    resolver: zodResolver(importCalibrationForm),
    defaultValues: { file: [] },
  });

  const onSubmit = form.handleSubmit(async ({ file }) => {
    try {
      await importCalibration.mutateAsync({ sessionId, files: file });
      const calibrated = await fetchCalibratedCameraCount(sessionId);
      if (calibrated < MIN_CALIBRATED_CAMERAS) {
        toast.error(calibrated === 0 ? messages.noCamerasCalibrated : messages.onlyOneCalibratedCamera);
        return;
      }
      toast.success(messages.camerasCalibrated(calibrated), TOAST_DURATION_MS.calibrationSuccess);
      onCalibrated();
    } catch (error) {
      reportError(error, 'Could not import the calibration.', {
        setError: form.setError,
        schema: importCalibrationForm,
      });
    }
  });

  return (
    <Modal opened onClose={onClose} title="Import a calibration file" centered>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <Text size="sm">
            Camera calibrations from other software: a Kinetrace .json, Pose2Sim .toml, Qualisys .qca.txt or OpenCap
            .pickle file, one per camera or one for all. Videos imported later pair with the cameras by name (cam01.mp4
            with camera cam01), else by order.
          </Text>
          <FilesField control={form.control} name="file" label="Calibration files" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={form.formState.isSubmitting}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
