import {
  SESSIONS_PAGE_SIZE,
  TRASH_RETENTION_DAYS,
  type SESSION_SORT_FIELDS,
  type SessionRow,
} from '@kinetrace/contracts';
import { ActionIcon, Button, Container, Group, Menu, Pagination, Paper, Table, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useAnalysisDashboards } from '../../api/analyses.ts';
import { useNewSession, useSearchSessions, useTrashSession, useValidSessions } from '../../api/sessions.ts';
import { activeSessionStore } from '../../app/active-session.ts';
import { formatDateTime } from '../../app/date-format.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths, sessionPath } from '../../app/route-names.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { EmptyTableRow } from '../../components/EmptyTableRow.tsx';
import { sessionDisplayName } from '../../components/session-name.ts';
import { SortableHeaders, type SortState } from '../../components/SortableHeaders.tsx';
import { useDoubleClick } from '../../components/use-double-click.ts';
import { analysisDashboardPath } from '../AnalysisDashboard/dashboard-path.ts';
import { RenameSessionDialog } from './RenameSessionDialog.tsx';

type SessionSortField = (typeof SESSION_SORT_FIELDS)[number];
const SESSION_COLUMNS: readonly (readonly [SessionSortField, string])[] = [
  ['id', 'ID'],
  ['sessionName', 'Session name'],
  ['name', 'Subject'],
  ['trials_count', 'Trials'],
  ['created_at', 'Created'],
  ['trashed', 'Trashed'],
];

/** The sessions to show: a server page of the valid sessions, or the search results paged here. */
function useSessionPage(search: string, page: number, sort: SortState<SessionSortField>) {
  const start = (page - 1) * SESSIONS_PAGE_SIZE;
  const valid = useValidSessions(
    { start, quantity: SESSIONS_PAGE_SIZE, sort: sort.field, sort_desc: sort.descending, include_trashed: true },
    search === '',
  );
  const found = useSearchSessions(search, true);
  if (search === '') return { rows: valid.data?.sessions, total: valid.data?.total ?? 0, query: valid };
  return { rows: found.data?.slice(start, start + SESSIONS_PAGE_SIZE), total: found.data?.length ?? 0, query: found };
}

/** Trash or restore after a question, as for trials and subjects (§2.17). */
function TrashSessionDialog({ session, onClose }: { session: SessionRow; onClose: () => void }) {
  const trash = useTrashSession();
  const name = sessionDisplayName(session);
  return (
    <ConfirmDialog
      title={session.trashed ? 'Restore session' : 'Trash session'}
      message={
        session.trashed
          ? `Do you want to restore session ${name}?`
          : `Do you want to trash session ${name}? You will be able to restore it for ${TRASH_RETENTION_DAYS} days. After that, this session will be permanently removed.`
      }
      busy={trash.isPending}
      onClose={onClose}
      onConfirm={() =>
        trash.mutate(
          { id: session.id, action: session.trashed ? 'restore' : 'trash' },
          { onSuccess: onClose, onError: (error) => reportError(error, 'Could not change the session.') },
        )
      }
    />
  );
}

function SessionMenu({
  session,
  onRename,
  onTrash,
}: {
  session: SessionRow;
  onRename: () => void;
  onTrash: () => void;
}) {
  const navigate = useNavigate();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          aria-label={`Actions for session ${sessionDisplayName(session)}`}
          onClick={(event) => event.stopPropagation()}
        >
          ⋮
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown onClick={(event) => event.stopPropagation()}>
        <Menu.Item onClick={() => void navigate(sessionPath(session.id))}>Load</Menu.Item>
        <Menu.Item onClick={() => void navigate(`/dashboard/${session.id}`)}>Dashboard kinematics</Menu.Item>
        <Menu.Item onClick={onRename}>Rename</Menu.Item>
        <Menu.Item onClick={onTrash}>{session.trashed ? 'Restore' : 'Trash'}</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** §2.8 session list: searchable, sortable, server-paged by 40; a double click opens a session. */
export function SelectSessionScreen() {
  const navigate = useNavigate();
  const [searchInput, setSearchInput] = useState('');
  const [search] = useDebouncedValue(searchInput.trim(), 300);
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState<SessionSortField>>({ field: 'created_at', descending: true });
  const [renaming, setRenaming] = useState<SessionRow | null>(null);
  const [trashing, setTrashing] = useState<SessionRow | null>(null);
  const { rows, total, query } = useSessionPage(search, page, sort);
  const newSession = useNewSession();
  const analysisDashboards = useAnalysisDashboards();
  const openOnDoubleClick = useDoubleClick((id: string) => void navigate(sessionPath(id)));

  useEffect(() => setPage(1), [search, sort]);
  useEffect(() => {
    if (!query.error) return;
    reportError(query.error, 'Could not load the sessions.');
    // §4.1: without the list, the user starts a session instead (a search that failed only says so).
    if (search === '') void navigate(fixedPaths.ConnectDevices, { replace: true });
  }, [query.error, search, navigate]);

  const startNewSession = () =>
    newSession.mutate(undefined, {
      onSuccess: (session) => {
        activeSessionStore.set(session.id);
        void navigate(`/${session.id}/connect-devices`);
      },
      onError: (error) => reportError(error, 'Could not create a session.'),
    });

  // Only a fresh answer counts: a cached one from before the first session was made must not redirect.
  const noSessionsAtAll =
    search === '' && query.isSuccess && !query.isFetching && !query.isPlaceholderData && total === 0;
  // §2.8: someone with no session at all starts with the first step of the wizard.
  useEffect(() => {
    if (noSessionsAtAll) void navigate(fixedPaths.ConnectDevices, { replace: true });
  }, [noSessionsAtAll, navigate]);

  return (
    <Container size="xl" my="md">
      <Group justify="space-between" mb="md">
        <Title order={2}>Your sessions</Title>
        <Group>
          <Button onClick={startNewSession} loading={newSession.isPending}>
            New session
          </Button>
          <Menu position="bottom-end">
            <Menu.Target>
              <Button variant="default">Dashboards</Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item component={Link} to="/dashboard/">
                Kinematics
              </Menu.Item>
              {analysisDashboards.data?.map((dashboard) => (
                <Menu.Item key={dashboard.id} component={Link} to={analysisDashboardPath(dashboard.id)}>
                  {dashboard.title}
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          <Button variant="default" component={Link} to={fixedPaths.Subjects}>
            Subjects
          </Button>
          <Button variant="default" component={Link} to={fixedPaths.RecycleBin}>
            Recycle Bin
          </Button>
        </Group>
      </Group>
      {!noSessionsAtAll && (
        <Paper withBorder radius="md" p="md">
          <TextInput
            placeholder="Search by session name, subject or id"
            aria-label="Search sessions"
            value={searchInput}
            onChange={(event) => setSearchInput(event.currentTarget.value)}
            mb="sm"
          />
          <Table highlightOnHover aria-label="Sessions">
            <Table.Thead>
              <Table.Tr>
                <SortableHeaders columns={SESSION_COLUMNS} sort={sort} onSort={setSort} />
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows?.map((session) => (
                <Table.Tr
                  key={session.id}
                  onClick={() => openOnDoubleClick(session.id)}
                  style={{ cursor: 'pointer', opacity: session.trashed ? 0.55 : 1 }}
                  data-trashed={session.trashed || undefined}
                >
                  <Table.Td ff="monospace" fz="xs">
                    {session.id}
                  </Table.Td>
                  <Table.Td>{sessionDisplayName(session)}</Table.Td>
                  <Table.Td>{session.name ?? ''}</Table.Td>
                  <Table.Td>{session.trials_count}</Table.Td>
                  <Table.Td>{formatDateTime(session.created_at)}</Table.Td>
                  <Table.Td>{session.trashed ? 'Yes' : 'No'}</Table.Td>
                  <Table.Td>
                    <SessionMenu
                      session={session}
                      onRename={() => setRenaming(session)}
                      onTrash={() => setTrashing(session)}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
              {search !== '' && query.isSuccess && total === 0 && (
                <EmptyTableRow columns={SESSION_COLUMNS.length + 1}>
                  No session matches “{search}”: try a session name, a subject or an id.
                </EmptyTableRow>
              )}
            </Table.Tbody>
          </Table>
          {total > SESSIONS_PAGE_SIZE && (
            <Group justify="center" mt="md">
              <Pagination
                total={Math.ceil(total / SESSIONS_PAGE_SIZE)}
                value={page}
                onChange={setPage}
                aria-label="Session pages"
              />
            </Group>
          )}
        </Paper>
      )}
      {renaming && <RenameSessionDialog session={renaming} onClose={() => setRenaming(null)} />}
      {trashing && <TrashSessionDialog session={trashing} onClose={() => setTrashing(null)} />}
    </Container>
  );
}
