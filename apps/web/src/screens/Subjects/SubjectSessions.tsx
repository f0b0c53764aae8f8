import { Paper, Table, Text, Title } from '@mantine/core';
import { useNavigate } from 'react-router';
import { useSubjectSessions } from '../../api/subjects.ts';
import { formatDate } from '../../app/date-format.ts';
import { sessionPath } from '../../app/route-names.ts';
import { useDoubleClick } from '../../components/use-double-click.ts';

/** §2.17 right table: the selected subject's sessions; a double click opens one. */
export function SubjectSessions({ subjectId }: { subjectId: number | null }) {
  const navigate = useNavigate();
  const sessions = useSubjectSessions(subjectId);
  const openOnDoubleClick = useDoubleClick((id: string) => void navigate(sessionPath(id)));
  return (
    <Paper withBorder radius="md" p="md">
      <Title order={4} mb="sm">
        Sessions
      </Title>
      {subjectId === null ? (
        <Text c="dimmed" size="sm">
          Select a subject to see its sessions.
        </Text>
      ) : (
        <Table highlightOnHover aria-label="Sessions of the subject">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Session ID</Table.Th>
              <Table.Th>Session Name</Table.Th>
              <Table.Th>Trials</Table.Th>
              <Table.Th>Date</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sessions.data?.sessions.map((session) => (
              <Table.Tr key={session.id} onClick={() => openOnDoubleClick(session.id)} style={{ cursor: 'pointer' }}>
                <Table.Td ff="monospace" fz="xs">
                  {session.id.slice(0, 8)}
                </Table.Td>
                <Table.Td>{session.sessionName}</Table.Td>
                <Table.Td>{session.trials_count}</Table.Td>
                <Table.Td>{formatDate(session.created_at)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
