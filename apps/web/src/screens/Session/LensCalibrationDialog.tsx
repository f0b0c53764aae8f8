import { CHECKERBOARD_DEFAULTS, lensCalibrationFieldsSchema, messages } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { useForm, type Resolver } from 'react-hook-form';
import { z } from 'zod';
import { useLensCalibrations, useUploadLensCalibration } from '../../api/processing.ts';
import { formatDateTime } from '../../app/date-format.ts';
import { reportError } from '../../app/report-error.ts';
import { BoardNumberField } from '../../components/BoardNumberField.tsx';
import { toast } from '../../components/toasts.tsx';
import { FilesField } from '../../components/FilesField.tsx';

const lensCalibrationForm = lensCalibrationFieldsSchema.extend({
  file: z.array(z.instanceof(File)).min(1, messages.required),
});
type LensCalibrationForm = {
  device_model: string;
  cb_rows: number | string;
  cb_cols: number | string;
  cb_square: number | string;
  file: File[];
};
// The schema reads the board numbers from multipart text (its input is `unknown`); the number inputs give numbers or ''.
const lensCalibrationResolver = zodResolver(lensCalibrationForm) as unknown as Resolver<
  LensCalibrationForm,
  unknown,
  z.output<typeof lensCalibrationForm>
>;

/**
 * The lens calibrations of the user's phone models (session menu): later calibrations of a phone of that
 * model use its intrinsics instead of the estimate from the static board. One is made from a
 * `kinetrace calibrate` file, or from photos of the checkerboard held at varied angles before the lens.
 */
export function LensCalibrationDialog({ onClose }: { onClose: () => void }) {
  const existing = useLensCalibrations();
  const upload = useUploadLensCalibration();
  const form = useForm<LensCalibrationForm, unknown, z.output<typeof lensCalibrationForm>>({
    resolver: lensCalibrationResolver,
    defaultValues: {
      device_model: '',
      cb_rows: CHECKERBOARD_DEFAULTS.rows,
      cb_cols: CHECKERBOARD_DEFAULTS.cols,
      cb_square: CHECKERBOARD_DEFAULTS.squareSizeMm,
      file: [],
    },
  });

  const onSubmit = form.handleSubmit(async ({ file, ...fields }) => {
    try {
      const saved = await upload.mutateAsync({ fields, files: file });
      toast.success(`Lens calibration of ${saved.device_model} saved.`);
      form.reset({ ...form.getValues(), device_model: '', file: [] });
    } catch (error) {
      reportError(error, 'Could not calibrate the lens.', { setError: form.setError, schema: lensCalibrationForm });
    }
  });

  return (
    <Modal opened onClose={onClose} title="Lens calibrations" size="lg" centered>
      <Stack>
        {existing.data && existing.data.length > 0 ? (
          <Table aria-label="Lens calibrations">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Device model</Table.Th>
                <Table.Th>Image size</Table.Th>
                <Table.Th>RMS error</Table.Th>
                <Table.Th>Saved</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {existing.data.map((lens) => (
                <Table.Tr key={lens.device_model}>
                  <Table.Td>{lens.device_model}</Table.Td>
                  <Table.Td>
                    {lens.image_size.width} × {lens.image_size.height}
                  </Table.Td>
                  <Table.Td>{lens.rms_error_px === null ? '—' : `${lens.rms_error_px.toFixed(2)} px`}</Table.Td>
                  <Table.Td>{formatDateTime(lens.created_at)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ) : (
          <Text c="dimmed">
            {existing.isPending
              ? 'Loading…'
              : 'No lens calibration yet: calibrations estimate each lens from the board.'}
          </Text>
        )}
        <form onSubmit={(event) => void onSubmit(event)} noValidate>
          <Stack>
            <Text size="sm">
              Add one for a phone model (as its capture page reports it): a `kinetrace calibrate` .json file, or at
              least 3 photos of the whole checkerboard, taken with that phone from varied angles.
            </Text>
            <TextInput
              label="Device model"
              required
              {...form.register('device_model')}
              error={form.formState.errors.device_model?.message}
            />
            <Group grow align="flex-start">
              <BoardNumberField
                control={form.control}
                name="cb_rows"
                label="Board rows"
                description="Inner corners, for photos"
              />
              <BoardNumberField
                control={form.control}
                name="cb_cols"
                label="Board columns"
                description="Inner corners, for photos"
              />
              <BoardNumberField
                control={form.control}
                name="cb_square"
                label="Square size (mm)"
                description="For photos"
              />
            </Group>
            <FilesField control={form.control} name="file" label="Calibration file or board photos" />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Close
              </Button>
              <Button type="submit" loading={form.formState.isSubmitting}>
                Save lens calibration
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Modal>
  );
}
