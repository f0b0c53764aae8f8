import { BUSY_TRIAL_STATUSES, messages, type Trial } from '@kinetrace/contracts';
import { ActionIcon, Badge, Menu, Paper, Stack, Table } from '@mantine/core';
import { useMemo } from 'react';
import { useReprocess } from '../../api/processing.ts';
import { useTagList } from '../../api/tag-lists.ts';
import { reportError } from '../../app/report-error.ts';
import { EmptyTableRow } from '../../components/EmptyTableRow.tsx';
import { ProcessingProgressInline } from '../../components/ProcessingProgress.tsx';
import { toast } from '../../components/toasts.tsx';

export type TrialAction = 'rename' | 'tags' | 'trash' | 'analysis';

const STATUS_COLORS: Partial<Record<Trial['status'], string>> = {
  error: 'red',
  done: 'teal',
  processing: 'blue',
  reprocess: 'blue',
};

function TrialMenu({
  trial,
  onOpen,
  onRestore,
}: {
  trial: Trial;
  onOpen: (action: TrialAction) => void;
  onRestore: () => void;
}) {
  const reprocess = useReprocess();
  const busy = BUSY_TRIAL_STATUSES.includes(trial.status);
  const editable = (open: () => void) => () => (busy ? toast.warning(messages.trialBusy) : open());
  const reprocessTrial = () =>
    reprocess.mutate(
      { trialId: trial.id },
      {
        onSuccess: () => toast.info(messages.trialQueuedForReprocessing),
        onError: (error) => reportError(error, 'Could not reprocess the trial.'),
      },
    );
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
        {/* §2.13: no Analysis on the neutral trial or a trashed one. */}
        {trial.name !== 'neutral' && !trial.trashed && (
          <Menu.Item onClick={() => onOpen('analysis')}>Analysis</Menu.Item>
        )}
        {/* Processed again with the session's current settings, without recording again. */}
        {!trial.trashed && (trial.status === 'done' || trial.status === 'error') && (
          <Menu.Item onClick={reprocessTrial}>Reprocess</Menu.Item>
        )}
        {trial.trashed ? (
          <Menu.Item onClick={onRestore}>Restore</Menu.Item>
        ) : (
          <Menu.Item onClick={() => onOpen('trash')}>Trash</Menu.Item>
        )}
      </Menu.Dropdown>
    </Menu>
  );
}

/**
 * §2.13 the session's trials: name, status (with the stage and percentage while processing), tags, and the
 * owner's trial menu. Clicking a name acts on the trial by its status (§4.3).
 */
export function TrialList({
  trials,
  isOwner,
  openedTrialId,
  onClickTrial,
  onOpen,
  onRestore,
}: {
  trials: readonly Trial[];
  isOwner: boolean;
  openedTrialId: string | null;
  onClickTrial: (trial: Trial) => void;
  onOpen: (action: TrialAction, trial: Trial) => void;
  onRestore: (trial: Trial) => void;
}) {
  const trialTags = useTagList('trials');
  const tagLabels = useMemo(() => new Map(trialTags.data?.map((tag) => [tag.value, tag.label])), [trialTags.data]);
  return (
    <Paper withBorder radius="md" p="md">
      <Table aria-label="Trials" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Trial</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Tags</Table.Th>
            {isOwner && <Table.Th />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {trials.map((trial) => (
            <Table.Tr
              key={trial.id}
              c={trial.trashed ? 'dimmed' : undefined}
              data-trashed={trial.trashed || undefined}
              aria-selected={trial.id === openedTrialId}
              bg={trial.id === openedTrialId ? 'var(--mantine-color-blue-light)' : undefined}
            >
              <Table.Td style={{ cursor: 'pointer' }} onClick={() => onClickTrial(trial)}>
                {trial.name}
              </Table.Td>
              <Table.Td>
                <Stack gap={2}>
                  <Badge variant="light" color={STATUS_COLORS[trial.status] ?? 'gray'} data-testid="trial-status">
                    {trial.trashed ? `${trial.status} (trashed)` : trial.status}
                  </Badge>
                  {(trial.status === 'processing' || trial.status === 'reprocess') && (
                    <ProcessingProgressInline trial={trial} />
                  )}
                </Stack>
              </Table.Td>
              <Table.Td>{trial.tags.map((tag) => tagLabels.get(tag) ?? tag).join(', ')}</Table.Td>
              {isOwner && (
                <Table.Td>
                  <TrialMenu
                    trial={trial}
                    onOpen={(action) => onOpen(action, trial)}
                    onRestore={() => onRestore(trial)}
                  />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
          {trials.length === 0 && (
            <EmptyTableRow columns={isOwner ? 4 : 3}>
              {isOwner
                ? 'No trials yet: name one above and press Start recording, or import videos from the session menu.'
                : 'This session has no trials yet.'}
            </EmptyTableRow>
          )}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
