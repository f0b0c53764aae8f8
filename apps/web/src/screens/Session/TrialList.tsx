import { BUSY_TRIAL_STATUSES, PROCESSING_STAGES, messages, processingMessages, type Trial } from '@kinetrace/contracts';
import { ActionIcon, Anchor, Badge, Button, Group, Menu, Paper, Stack, Table, Text } from '@mantine/core';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useTagList } from '../../api/tag-lists.ts';
import { EmptyTableRow } from '../../components/EmptyTableRow.tsx';
import { ProcessingProgressInline } from '../../components/ProcessingProgress.tsx';
import { progressOf } from '../../components/processing-progress.ts';
import { ReprocessButton, TrialIdLine, useReprocessTrial } from '../../components/TrialFailure.tsx';
import { toast } from '../../components/toasts.tsx';
import { trialErrorOf } from '../../components/trial-error.ts';

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
  const reprocess = useReprocessTrial();
  const busy = BUSY_TRIAL_STATUSES.includes(trial.status);
  const editable = (open: () => void) => () => (busy ? toast.warning(messages.trialBusy) : open());
  const reprocessTrial = () => reprocess.start(trial);
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
 * A trial waiting for the session's neutral: what it waits for, with a way to it (the Neutral step); behind a
 * neutral that failed, why it does not move, instead of "0%" for ever.
 */
function WaitingForNeutral({
  sessionId,
  neutral,
  isOwner,
}: {
  sessionId: string;
  neutral: Trial | undefined;
  isOwner: boolean;
}) {
  const failed = neutral?.status === 'error';
  return (
    <Text size="sm" c={failed ? 'red' : 'dimmed'} data-testid="trial-progress">
      {failed
        ? processingMessages.waitingAfterFailedNeutral(trialErrorOf(neutral))
        : PROCESSING_STAGES.waiting_for_neutral}
      {isOwner && (
        <>
          {' · '}
          <Anchor component={Link} to={`/${sessionId}/neutral`} size="sm">
            {neutral ? 'Go to the neutral pose' : 'Record the neutral pose'}
          </Anchor>
        </>
      )}
    </Text>
  );
}

/** A trial in error: the server's message and the trial's id; for the neutral, the owner's ways forward. */
function TrialFailed({ trial, sessionId, isOwner }: { trial: Trial; sessionId: string; isOwner: boolean }) {
  return (
    <Stack gap={4} data-testid="trial-failure">
      <Text size="sm" c="red">
        {trialErrorOf(trial)}
      </Text>
      <TrialIdLine trial={trial} />
      {isOwner && trial.name === 'neutral' && (
        <Group gap="xs">
          <Button size="compact-sm" variant="light" component={Link} to={`/${sessionId}/neutral`}>
            Re-record
          </Button>
          <ReprocessButton trial={trial} />
        </Group>
      )}
    </Stack>
  );
}

/**
 * §2.13 the session's trials: name, status (with the stage and percentage while processing), tags, and the
 * owner's trial menu. Clicking a name acts on the trial by its status (§4.3).
 */
export function TrialList({
  sessionId,
  trials,
  neutral,
  isOwner,
  openedTrialId,
  onClickTrial,
  onOpen,
  onRestore,
}: {
  sessionId: string;
  trials: readonly Trial[];
  /** The session's current neutral trial, which movement trials wait for. */
  neutral: Trial | undefined;
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
                  {(trial.status === 'processing' || trial.status === 'reprocess') &&
                    (progressOf(trial)?.stage === 'waiting_for_neutral' ? (
                      <WaitingForNeutral sessionId={sessionId} neutral={neutral} isOwner={isOwner} />
                    ) : (
                      <ProcessingProgressInline trial={trial} />
                    ))}
                  {trial.status === 'error' && !trial.trashed && (
                    <TrialFailed trial={trial} sessionId={sessionId} isOwner={isOwner} />
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
