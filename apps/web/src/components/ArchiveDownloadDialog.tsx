import { Anchor, Button, Group, Modal, Progress, Stack, Text } from '@mantine/core';
import { useEffect } from 'react';
import { useArchiveDownload } from '../api/archive-download.ts';
import { reportError } from '../app/report-error.ts';

interface ArchiveDownloadDialogProps {
  question: string;
  /** The `async-download` path of the session or subject. */
  asyncDownloadPath: string;
  fileName: string;
  onClose: () => void;
}

/**
 * §2.13/§2.17 archive download: asks first, then prepares the archive on the server with its progress, and
 * offers the ready archive as a link (and starts it). Closing the dialog resets the progress (§4.4).
 */
export function ArchiveDownloadDialog({ question, asyncDownloadPath, fileName, onClose }: ArchiveDownloadDialogProps) {
  const { state, start, reset } = useArchiveDownload();
  const close = () => {
    reset();
    onClose();
  };

  useEffect(() => {
    if (state.phase === 'failed') reportError(state.error, 'Could not prepare the download.');
    if (state.phase === 'done') window.location.assign(state.url);
  }, [state]);

  return (
    <Modal opened onClose={close} title="Download data" centered>
      <Stack>
        <Text>{question}</Text>
        {state.phase === 'running' && (
          <Stack gap={4}>
            <Text size="sm" c="dimmed">
              Preparing the archive…
            </Text>
            <Progress value={Math.round((state.progress ?? 0) * 100)} animated aria-label="Download progress" />
          </Stack>
        )}
        {state.phase === 'done' && (
          <Anchor href={state.url} download={fileName}>
            {fileName}
          </Anchor>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            Cancel
          </Button>
          <Button
            onClick={() => void start(asyncDownloadPath)}
            loading={state.phase === 'running'}
            disabled={state.phase === 'done'}
          >
            Download
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
