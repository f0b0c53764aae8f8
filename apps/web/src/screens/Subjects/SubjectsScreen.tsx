import {
  SUBJECTS_PAGE_SIZE,
  TRASH_RETENTION_DAYS,
  dataPaths,
  messages,
  type SUBJECT_SORT_FIELDS,
  type Subject,
} from '@kinetrace/contracts';
import { Button, Checkbox, Container, Grid, Group, Pagination, Paper, Table, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useSubjectAction, useSubjects, type SubjectAction } from '../../api/subjects.ts';
import { useTagList } from '../../api/tag-lists.ts';
import { reportError } from '../../app/report-error.ts';
import { fixedPaths } from '../../app/route-names.ts';
import { ArchiveDownloadDialog } from '../../components/ArchiveDownloadDialog.tsx';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { EmptyTableRow } from '../../components/EmptyTableRow.tsx';
import { SortableHeaders, type SortState } from '../../components/SortableHeaders.tsx';
import { SubjectDialog } from '../../components/SubjectDialog.tsx';
import { toast } from '../../components/toasts.tsx';
import { SubjectMenu, subjectArchiveName, type SubjectDialogKind } from './SubjectMenu.tsx';
import { SubjectSessions } from './SubjectSessions.tsx';

type SubjectSortField = (typeof SUBJECT_SORT_FIELDS)[number];
const SUBJECT_COLUMNS: readonly (readonly [SubjectSortField, string])[] = [
  ['name', 'Name'],
  ['weight', 'Weight'],
  ['height', 'Height'],
  ['birth_year', 'Birth year'],
  ['sex_at_birth', 'Sex'],
  ['gender', 'Gender'],
];

/** §2.17 dialog questions. */
const questions = {
  trash: (name: string) =>
    `Do you want to trash subject ${name}? You will be able to restore it for ${TRASH_RETENTION_DAYS} days. After that, this subject will be permanently removed.`,
  restore: (name: string) => `Do you want to restore subject ${name}?`,
  delete: (name: string) => `Do you want to permanently remove subject ${name}?`,
  download: (name: string) =>
    `Do you want to download all data associated to the subject ${name}? (This includes every session and trial associated to it, and can take several minutes).`,
};

/** The confirmed actions of the subject menu: the call each makes, its dialog and what the owner is told after it. */
type ConfirmedKind = 'trash' | 'restore' | 'delete' | 'replaceLink' | 'revokeLink';
const confirmed: Record<
  ConfirmedKind,
  {
    action: SubjectAction;
    title: (subject: Subject) => string;
    question: (subject: Subject) => string;
    done?: (subject: Subject) => string;
  }
> = {
  trash: { action: 'trash', title: () => 'Trash subject', question: (subject) => questions.trash(subject.name) },
  restore: {
    action: 'restore',
    title: () => 'Restore subject',
    question: (subject) => questions.restore(subject.name),
  },
  delete: {
    action: 'permanent_remove',
    title: () => 'Delete subject permanently',
    question: (subject) => questions.delete(subject.name),
  },
  replaceLink: {
    action: 'replace_share_token',
    title: (subject) => (subject.share_token ? 'Replace share link' : 'Create share link'),
    question: (subject) =>
      subject.share_token
        ? messages.shareLinkReplaceQuestion(subject.name)
        : messages.shareLinkCreateQuestion(subject.name),
    done: (subject) => (subject.share_token ? messages.shareLinkReplaced : messages.shareLinkCreated),
  },
  revokeLink: {
    action: 'revoke_share_token',
    title: () => 'Revoke share link',
    question: (subject) => messages.shareLinkRevokeQuestion(subject.name),
    done: () => messages.shareLinkRevoked,
  },
};
const isConfirmed = (kind: SubjectDialogKind | 'new'): kind is ConfirmedKind => kind in confirmed;

/** §2.17 subjects: a server-paged table of subjects (40 a page), one selectable, its sessions on the right. */
export function SubjectsScreen() {
  const [showRemoved, setShowRemoved] = useState(false);
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState<SubjectSortField>>({ field: 'name', descending: false });
  const [selectedId, setSelectedId] = useState<number | null>(null);
  const [dialog, setDialog] = useState<{ kind: SubjectDialogKind | 'new'; subject: Subject | null } | null>(null);
  const subjects = useSubjects({
    start: (page - 1) * SUBJECTS_PAGE_SIZE,
    quantity: SUBJECTS_PAGE_SIZE,
    include_trashed: showRemoved,
    sort: sort.field,
    sort_desc: sort.descending,
  });
  const tagList = useTagList('subjects');
  const tagLabels = useMemo(() => new Map(tagList.data?.map((tag) => [tag.value, tag.label])), [tagList.data]);
  const subjectAction = useSubjectAction();
  const total = subjects.data?.total ?? 0;

  useEffect(() => setPage(1), [showRemoved, sort]);
  useEffect(() => {
    if (subjects.error) reportError(subjects.error, 'Could not load the subjects.');
  }, [subjects.error]);

  const closeDialog = () => setDialog(null);
  const confirmAction = (kind: ConfirmedKind, subject: Subject) =>
    subjectAction.mutate(
      { id: subject.id, action: confirmed[kind].action },
      {
        onSuccess: () => {
          if (kind === 'delete' && selectedId === subject.id) setSelectedId(null);
          const done = confirmed[kind].done?.(subject);
          if (done) toast.success(done);
          closeDialog();
        },
        onError: (error) => reportError(error, 'Could not change the subject.'),
      },
    );

  return (
    <Container fluid my="md">
      <Group justify="space-between" mb="md">
        <Title order={2}>Subjects</Title>
        <Group>
          <Button variant="default" component={Link} to={fixedPaths.SelectSession}>
            Go back to sessions list
          </Button>
          <Button onClick={() => setDialog({ kind: 'new', subject: null })}>New Subject</Button>
          <Checkbox
            label="Show removed subjects"
            checked={showRemoved}
            onChange={(event) => setShowRemoved(event.currentTarget.checked)}
          />
        </Group>
      </Group>
      <Grid columns={12}>
        <Grid.Col span={8}>
          <Paper withBorder radius="md" p="md">
            <Table highlightOnHover aria-label="Subjects">
              <Table.Thead>
                <Table.Tr>
                  <SortableHeaders columns={SUBJECT_COLUMNS} sort={sort} onSort={setSort} />
                  <Table.Th>Subject Tags</Table.Th>
                  <Table.Th>Characteristics</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {subjects.data?.subjects.map((subject) => (
                  <Table.Tr
                    key={subject.id}
                    onClick={() => setSelectedId(subject.id)}
                    aria-selected={subject.id === selectedId}
                    bg={subject.id === selectedId ? 'var(--mantine-color-blue-light)' : undefined}
                    c={subject.trashed ? 'dimmed' : undefined}
                    td={subject.trashed ? 'line-through' : undefined}
                    data-trashed={subject.trashed || undefined}
                    style={{ cursor: 'pointer' }}
                  >
                    <Table.Td>{subject.name}</Table.Td>
                    <Table.Td>{subject.weight} kg</Table.Td>
                    <Table.Td>{subject.height} m</Table.Td>
                    <Table.Td>{subject.birth_year}</Table.Td>
                    <Table.Td>{subject.sex_display}</Table.Td>
                    <Table.Td>{subject.gender_display}</Table.Td>
                    <Table.Td>{subject.subject_tags.map((tag) => tagLabels.get(tag) ?? tag).join(', ')}</Table.Td>
                    <Table.Td>{subject.characteristics}</Table.Td>
                    <Table.Td>
                      <SubjectMenu subject={subject} onOpen={(kind) => setDialog({ kind, subject })} />
                    </Table.Td>
                  </Table.Tr>
                ))}
                {subjects.isSuccess && total === 0 && (
                  <EmptyTableRow columns={SUBJECT_COLUMNS.length + 3}>
                    No subjects yet: add one with New Subject.
                  </EmptyTableRow>
                )}
              </Table.Tbody>
            </Table>
            {total > SUBJECTS_PAGE_SIZE && (
              <Group justify="center" mt="md">
                <Pagination
                  total={Math.ceil(total / SUBJECTS_PAGE_SIZE)}
                  value={page}
                  onChange={setPage}
                  aria-label="Subject pages"
                />
              </Group>
            )}
          </Paper>
        </Grid.Col>
        <Grid.Col span={4}>
          <SubjectSessions subjectId={selectedId} />
        </Grid.Col>
      </Grid>

      {(dialog?.kind === 'new' || dialog?.kind === 'edit') && (
        <SubjectDialog subject={dialog.subject} onClose={closeDialog} />
      )}
      {dialog?.subject && isConfirmed(dialog.kind) && (
        <ConfirmDialog
          title={confirmed[dialog.kind].title(dialog.subject)}
          message={confirmed[dialog.kind].question(dialog.subject)}
          danger={dialog.kind === 'delete' || dialog.kind === 'revokeLink'}
          busy={subjectAction.isPending}
          onClose={closeDialog}
          onConfirm={() => confirmAction(dialog.kind as ConfirmedKind, dialog.subject!)}
        />
      )}
      {dialog?.subject && dialog.kind === 'download' && (
        <ArchiveDownloadDialog
          question={questions.download(dialog.subject.name)}
          asyncDownloadPath={dataPaths.subjectAction(dialog.subject.id, 'async-download')}
          fileName={subjectArchiveName(dialog.subject.id)}
          onClose={closeDialog}
        />
      )}
    </Container>
  );
}
