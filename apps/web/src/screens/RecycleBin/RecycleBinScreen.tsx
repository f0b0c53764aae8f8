import type { EmptyTrashRequest, RecycleBin } from '@kinetrace/contracts';
import { Button, Container, Grid, Group, Paper, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { useEmptyTrash, usePermanentlyRemoveSession, useRecycleBin, useTrashSession } from '../../api/sessions.ts';
import { usePermanentlyRemoveTrial, useTrashTrial } from '../../api/trials.ts';
import { formatDateTime } from '../../app/date-format.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { sessionDisplayName } from '../../components/session-name.ts';

type BinSession = RecycleBin['sessions'][number];
type BinTrial = BinSession['trashed_trials'][number];

/** What 'empty bin' removes: exactly what the bin showed when it was asked (not what is trashed when it runs). */
type Pending =
  | { kind: 'restore-session' | 'remove-session'; session: BinSession }
  | { kind: 'restore-trial' | 'remove-trial'; trial: BinTrial }
  | { kind: 'empty'; listed: EmptyTrashRequest };

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The trials and sessions the bin shows: every listed trashed trial, and the trashed sessions. */
const listedIn = (bin: RecycleBin): EmptyTrashRequest => ({
  trials: bin.sessions.flatMap((session) => session.trashed_trials.map((trial) => trial.id)),
  sessions: bin.sessions.filter((session) => session.trashed).map((session) => session.id),
});

const questionOf = (pending: Pending): { title: string; message: string } => {
  switch (pending.kind) {
    case 'restore-session':
      return {
        title: 'Restore session',
        message: `Do you want to restore session ${sessionDisplayName(pending.session)}?`,
      };
    case 'remove-session':
      return {
        title: 'Remove session permanently',
        message: `Do you want to permanently remove session ${sessionDisplayName(pending.session)}?`,
      };
    case 'restore-trial':
      return { title: 'Restore trial', message: `Do you want to restore trial ${pending.trial.name}?` };
    case 'remove-trial':
      return {
        title: 'Remove trial permanently',
        message: `Do you want to permanently remove trial ${pending.trial.name}?`,
      };
    case 'empty':
      return {
        title: 'Empty bin',
        message: `Do you want to permanently remove the ${count(pending.listed.trials.length, 'trashed trial')} and then the ${count(pending.listed.sessions.length, 'trashed session')} listed here? This cannot be undone.`,
      };
  }
};

/**
 * §2.18 recycle bin: on the left the trashed sessions, and the active sessions holding trashed trials (whose
 * trials would otherwise be nowhere to see); on the right the selected session's trashed trials.
 */
export function RecycleBinScreen() {
  const [selected, setSelected] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const bin = useRecycleBin();
  const trashSession = useTrashSession();
  const removeSession = usePermanentlyRemoveSession();
  const trashTrial = useTrashTrial();
  const removeTrial = usePermanentlyRemoveTrial();
  const emptyTrash = useEmptyTrash();
  const binSessions = bin.data?.sessions ?? [];
  const selectedSession = binSessions.find((session) => session.id === selected);
  const busy =
    trashSession.isPending ||
    removeSession.isPending ||
    trashTrial.isPending ||
    removeTrial.isPending ||
    emptyTrash.isPending;

  const confirm = async (action: Pending) => {
    try {
      if (action.kind === 'restore-session')
        await trashSession.mutateAsync({ id: action.session.id, action: 'restore' });
      if (action.kind === 'remove-session') await removeSession.mutateAsync(action.session.id);
      if (action.kind === 'restore-trial') await trashTrial.mutateAsync({ id: action.trial.id, action: 'restore' });
      if (action.kind === 'remove-trial') await removeTrial.mutateAsync(action.trial.id);
      if (action.kind === 'empty') await emptyTrash.mutateAsync(action.listed);
      if (action.kind === 'empty' || ('session' in action && action.session.id === selected)) setSelected(null);
      setPending(null);
    } catch (error) {
      reportError(error, 'Could not change the recycle bin.');
    }
  };

  return (
    <Container fluid my="md">
      <Group justify="space-between" mb="md">
        <Title order={2}>Recycle bin</Title>
        <Group>
          <Button variant="default" component={Link} to={fixedPaths.SelectSession}>
            Go back to sessions list
          </Button>
          <Button
            color="red"
            variant="light"
            disabled={binSessions.length === 0}
            onClick={() => bin.data && setPending({ kind: 'empty', listed: listedIn(bin.data) })}
          >
            Empty bin
          </Button>
        </Group>
      </Group>
      <Grid columns={12}>
        <Grid.Col span={7}>
          <Paper withBorder radius="md" p="md">
            <Title order={4} mb="sm">
              Sessions
            </Title>
            {bin.isSuccess && binSessions.length === 0 ? (
              <Text c="dimmed" size="sm">
                The recycle bin is empty.
              </Text>
            ) : (
              <Table highlightOnHover aria-label="Sessions in the bin">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Session Name</Table.Th>
                    <Table.Th>Subject</Table.Th>
                    <Table.Th>Trials</Table.Th>
                    <Table.Th>Trashed trials</Table.Th>
                    <Table.Th>Trashed</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {binSessions.map((session) => (
                    <Table.Tr
                      key={session.id}
                      onClick={() => setSelected(session.id)}
                      aria-selected={session.id === selected}
                      data-trashed={session.trashed}
                      bg={session.id === selected ? 'var(--mantine-color-blue-light)' : undefined}
                      style={{ cursor: 'pointer' }}
                    >
                      <Table.Td>{sessionDisplayName(session)}</Table.Td>
                      <Table.Td>{session.name ?? ''}</Table.Td>
                      <Table.Td>{session.trials_count}</Table.Td>
                      <Table.Td>{session.trashed_trials.length}</Table.Td>
                      <Table.Td>
                        {session.trashed ? (
                          session.trashed_at && formatDateTime(session.trashed_at)
                        ) : (
                          <Text span size="sm" c="dimmed">
                            Not trashed
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td onClick={(event) => event.stopPropagation()}>
                        {session.trashed && (
                          <RestoreOrRemove
                            onRestore={() => setPending({ kind: 'restore-session', session })}
                            onRemove={() => setPending({ kind: 'remove-session', session })}
                          />
                        )}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Paper>
        </Grid.Col>
        <Grid.Col span={5}>
          <Paper withBorder radius="md" p="md">
            <Title order={4} mb="sm">
              Trashed trials
            </Title>
            {!selectedSession ? (
              <Text c="dimmed" size="sm">
                Select a session to see its trashed trials.
              </Text>
            ) : selectedSession.trashed_trials.length === 0 ? (
              <Text c="dimmed" size="sm">
                This session has no trashed trials.
              </Text>
            ) : (
              <Table aria-label="Trashed trials">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Trial</Table.Th>
                    <Table.Th>Trashed</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {selectedSession.trashed_trials.map((trial) => (
                    <Table.Tr key={trial.id}>
                      <Table.Td>{trial.name}</Table.Td>
                      <Table.Td>{trial.trashed_at ? formatDateTime(trial.trashed_at) : ''}</Table.Td>
                      <Table.Td>
                        <RestoreOrRemove
                          onRestore={() => setPending({ kind: 'restore-trial', trial })}
                          onRemove={() => setPending({ kind: 'remove-trial', trial })}
                        />
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Paper>
        </Grid.Col>
      </Grid>
      {pending && (
        <ConfirmDialog
          {...questionOf(pending)}
          danger={pending.kind !== 'restore-session' && pending.kind !== 'restore-trial'}
          busy={busy}
          onClose={() => setPending(null)}
          onConfirm={() => void confirm(pending)}
        />
      )}
    </Container>
  );
}

/** The two actions on anything in the bin. */
function RestoreOrRemove({ onRestore, onRemove }: { onRestore: () => void; onRemove: () => void }) {
  return (
    <Group gap="xs" wrap="nowrap">
      <Button size="compact-sm" variant="light" onClick={onRestore}>
        Restore
      </Button>
      <Button size="compact-sm" variant="light" color="red" onClick={onRemove}>
        Delete permanently
      </Button>
    </Group>
  );
}
