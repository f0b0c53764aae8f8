import { MIN_CALIBRATED_CAMERAS, trialNameField, type Session, type Trial } from '@kinetrace/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { importVideos } from '../api/capture.ts';
import { useRefreshSessions } from '../api/sessions.ts';
import { reportError } from '../app/report-error.ts';
import { newTrialNameError } from './trial-name.ts';
import { FilesField } from './FilesField.tsx';

const importVideosForm = z.object({
  name: trialNameField,
  video: z
    .array(z.instanceof(File))
    .min(MIN_CALIBRATED_CAMERAS, `Choose one video per camera, at least ${MIN_CALIBRATED_CAMERAS}.`),
});
type ImportVideosForm = z.infer<typeof importVideosForm>;

/**
 * Existing videos, one file per camera, recorded elsewhere, as a new trial of the session — or as its neutral
 * trial (`neutral`). The server pairs them with the calibrated cameras by name (cam01.mp4 with cam01), else by order.
 */
export function ImportVideosDialog({
  session,
  neutral = false,
  onClose,
  onImported,
}: {
  session: Session;
  neutral?: boolean;
  onClose: () => void;
  onImported?: (trial: Trial) => void;
}) {
  const refresh = useRefreshSessions();
  const schema = useMemo(
    () =>
      importVideosForm.superRefine(({ name }, ctx) => {
        const problem = neutral ? undefined : newTrialNameError(name, session.trials);
        if (problem) ctx.addIssue({ code: 'custom', path: ['name'], message: problem });
      }),
    [neutral, session.trials],
  );
  const form = useForm<ImportVideosForm>({
    resolver: zodResolver(schema),
    mode: 'onChange',
    defaultValues: { name: neutral ? 'neutral' : '', video: [] },
  });

  const onSubmit = form.handleSubmit(async ({ name, video }) => {
    try {
      const trial = await importVideos(session.id, name, video);
      refresh();
      onImported?.(trial);
      onClose();
    } catch (error) {
      reportError(error, 'Could not import the videos.', { setError: form.setError, schema: importVideosForm });
    }
  });

  return (
    <Modal opened onClose={onClose} title={neutral ? 'Import neutral videos' : 'Import videos'} centered>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <Stack>
          <Text size="sm">
            One video per calibrated camera, named after its camera (cam01.mp4 for camera cam01) or chosen in the
            cameras' order.
          </Text>
          {!neutral && (
            <TextInput
              label="Trial name"
              required
              {...form.register('name')}
              error={form.formState.errors.name?.message}
            />
          )}
          <FilesField control={form.control} name="video" label="Videos (one per camera)" accept="video/*" />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={form.formState.isSubmitting} disabled={!form.formState.isValid}>
              Import
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
