import { messages, trialNameField, type Session } from '@kinetrace/contracts';
import { Button, FileInput, Group, Modal, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { importVideos } from '../../../api/capture.ts';
import { reportError } from '../../../app/report-error.ts';

/** Existing videos, one file per camera, recorded elsewhere, as a new trial of the session. */
export function ImportVideosDialog({ session, onClose }: { session: Session; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [videos, setVideos] = useState<File[]>([]);
  const [busy, setBusy] = useState(false);
  const nameCheck = trialNameField.safeParse(name);
  const taken = session.trials.some((trial) => trial.name === name);
  const nameError = name === '' ? undefined : !nameCheck.success ? nameCheck.error.issues[0]?.message : taken ? messages.uniqueTrialName : undefined;

  async function submit() {
    setBusy(true);
    try {
      await importVideos(session.id, name, videos);
      void queryClient.invalidateQueries({ queryKey: ['session'] });
      onClose();
    } catch (error) {
      reportError(error, 'Could not import the videos.');
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal opened onClose={onClose} title="Import videos" centered>
      <Stack>
        <TextInput label="Trial name" value={name} onChange={(event) => setName(event.currentTarget.value)} error={nameError} required />
        <FileInput label="Videos (one per camera)" multiple accept="video/*" value={videos} onChange={setVideos} clearable />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={() => void submit()} loading={busy} disabled={name === '' || nameError !== undefined || videos.length < 2}>
            Import
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
