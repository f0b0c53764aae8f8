import { BUSY_TRIAL_STATUSES, TRASH_RETENTION_DAYS, dataPaths, messages, type Trial } from '@kinetrace/contracts';
import { ActionIcon, Badge, Button, Center, Checkbox, Container, Group, Loader, Menu, Paper, Table, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { useSession } from '../../api/sessions.ts';
import { useTagList } from '../../api/tag-lists.ts';
import { useTrashTrial } from '../../api/trials.ts';
import { formatDateTime } from '../../app/date-format.ts';
import { reportError } from '../../app/report-error.ts';
import { ArchiveDownloadDialog } from '../../components/ArchiveDownloadDialog.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { toast } from '../../components/toasts.tsx';
import { RenameTrialDialog } from './RenameTrialDialog.tsx';
import { TrialTagsDialog } from './TrialTagsDialog.tsx';
import { SessionRecorder } from './recorder/SessionRecorder.tsx';
import { canOpenTrial } from './recorder/trial-click.ts';

type TrialDialog = { kind: 'rename' | 'tags' | 'trash'; trial: Trial } | { kind: 'download' };

/** §2.13 list rules: calibration never shows, a neutral in error neither, trashed ones only on request. */
const shownTrials = (trials: readonly Trial[], showTrashed: boolean) =>
  trials.filter(
    (trial) => trial.name !== 'calibration' && !(trial.name === 'neutral' && trial.status === 'error') && (showTrashed || !trial.trashed),
  );

function TrialMenu({ trial, onOpen, onRestore }: { trial: Trial; onOpen: (kind: 'rename' | 'tags' | 'trash') => void; onRestore: () => void }) {
  const busy = BUSY_TRIAL_STATUSES.includes(trial.status);
  const editable = (open: () => void) => () => (busy ? toast.warning(messages.trialBusy) : open());
  return (
    <Menu position="bottom-end">
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for trial ${trial.name}`}>
          ⋮
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {trial.name !== 'neutral' && <Menu.Item onClick={editable(() => onOpen('rename'))}>Rename</Menu.Item>}
        <Menu.Item onClick={editable(() => onOpen('tags'))}>Tags</Menu.Item>
        {trial.trashed ? <Menu.Item onClick={onRestore}>Restore</Menu.Item> : <Menu.Item onClick={() => onOpen('trash')}>Trash</Menu.Item>}
      </Menu.Dropdown>
    </Menu>
  );
}

/**
 * §2.13 session screen, read-only part: the session's name, subject and trials with their status. Owners
 * (§6) get the trial menu (rename, tags, trash) and the archive download; the 3D viewer comes later.
 */
export function SessionScreen() {
  const { id = '' } = useParams();
  const session = useSession(id);
  const trashTrial = useTrashTrial();
  const trialTags = useTagList('trials');
  const tagLabels = useMemo(() => new Map(trialTags.data?.map((tag) => [tag.value, tag.label])), [trialTags.data]);
  const [showTrashed, setShowTrashed] = useState(false);
  const [dialog, setDialog] = useState<TrialDialog | null>(null);

  useEffect(() => {
    if (session.error) reportError(session.error, 'Could not load the session.');
  }, [session.error]);
  if (!session.data) {
    return (
      <Center my="xl">
        {session.isError ? <Text c="dimmed">This session cannot be shown.</Text> : <Loader aria-label="Loading the session" />}
      </Center>
    );
  }
  const { data } = session;
  const trials = shownTrials(data.trials, showTrashed);
  const setTrashed = (trial: Trial, action: 'trash' | 'restore') =>
    trashTrial.mutate({ id: trial.id, action }, { onSuccess: () => setDialog(null), onError: (error) => reportError(error, 'Could not change the trial.') });

  return (
    <Container size="lg" my="md">
      <Group justify="space-between" mb="md">
        <div>
          <Title order={2}>{data.meta.sessionName || data.id}</Title>
          <Text c="dimmed">
            Subject: {data.name ?? 'none'} · {formatDateTime(data.created_at)}
          </Text>
        </div>
        {data.is_owner && (
          <Group>
            <Checkbox label="Show trashed trials" checked={showTrashed} onChange={(event) => setShowTrashed(event.currentTarget.checked)} />
            <Button variant="default" onClick={() => setDialog({ kind: 'download' })}>
              Download data
            </Button>
          </Group>
        )}
      </Group>
      {data.is_owner && <SessionRecorder session={data} />}
      <Paper withBorder radius="md" p="md">
        <Table aria-label="Trials">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Trial</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>Tags</Table.Th>
              {data.is_owner && <Table.Th />}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {trials.map((trial) => (
              <Table.Tr key={trial.id} c={trial.trashed ? 'dimmed' : undefined} data-trashed={trial.trashed || undefined}>
                <Table.Td style={{ cursor: 'pointer' }} onClick={() => void canOpenTrial(trial)}>{trial.name}</Table.Td>
                <Table.Td>
                  <Badge variant="light" color={trial.status === 'error' ? 'red' : trial.status === 'done' ? 'teal' : 'gray'}>
                    {trial.trashed ? `${trial.status} (trashed)` : trial.status}
                  </Badge>
                </Table.Td>
                <Table.Td>{trial.tags.map((tag) => tagLabels.get(tag) ?? tag).join(', ')}</Table.Td>
                {data.is_owner && (
                  <Table.Td>
                    <TrialMenu trial={trial} onOpen={(kind) => setDialog({ kind, trial })} onRestore={() => setTrashed(trial, 'restore')} />
                  </Table.Td>
                )}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      {dialog?.kind === 'rename' && <RenameTrialDialog trial={dialog.trial} sessionTrials={data.trials} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'tags' && <TrialTagsDialog trial={dialog.trial} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'trash' && (
        <ConfirmDialog
          title="Trash trial"
          message={`Do you want to trash trial ${dialog.trial.name}? You will be able to restore it for ${TRASH_RETENTION_DAYS} days. After that, this trial will be permanently removed.`}
          busy={trashTrial.isPending}
          onClose={() => setDialog(null)}
          onConfirm={() => setTrashed(dialog.trial, 'trash')}
        />
      )}
      {dialog?.kind === 'download' && (
        <ArchiveDownloadDialog
          question="Do you want to download all data of this session? (This can take several minutes.)"
          asyncDownloadPath={dataPaths.sessionAction(data.id, 'async-download')}
          fileName="data.zip"
          onClose={() => setDialog(null)}
        />
      )}
    </Container>
  );
}
