import { NEUTRAL_SUBJECT_PICKER_PAGE_SIZE, type Subject } from '@kinetrace/contracts';
import { ActionIcon, Group, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useSubjects } from '../../api/subjects.ts';
import { SubjectDialog } from '../../components/SubjectDialog.tsx';

/** §2.11 subject autocomplete: server search, 40 at a time, with a plus button that creates a subject. */
export function SubjectPicker({
  subject,
  sessionId,
  onChange,
  disabled,
}: {
  subject: Subject | null;
  sessionId: string;
  onChange: (subject: Subject | null) => void;
  disabled: boolean;
}) {
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search, 300);
  const [creating, setCreating] = useState(false);
  // While a chosen subject is shown, its label is in the search box: list everything rather than that name.
  const searchText = subject && search === subject.display_name ? '' : debouncedSearch;
  const subjects = useSubjects({
    start: 0,
    quantity: NEUTRAL_SUBJECT_PICKER_PAGE_SIZE,
    search: searchText,
    session_id: sessionId,
  });
  const listed = subjects.data?.subjects ?? [];
  const options = [...(subject && !listed.some((item) => item.id === subject.id) ? [subject] : []), ...listed];

  return (
    <Group align="flex-end" gap="xs" wrap="nowrap">
      <Select
        flex={1}
        label="Subject"
        placeholder="Search subjects"
        searchable
        searchValue={search}
        onSearchChange={setSearch}
        filter={({ options: all }) => all}
        // Subjects made in another tab or screen since the page opened show up too.
        onDropdownOpen={() => void subjects.refetch()}
        nothingFoundMessage="No subject found"
        data={options.map((item) => ({ value: String(item.id), label: item.display_name }))}
        value={subject ? String(subject.id) : null}
        onChange={(value) => onChange(options.find((item) => String(item.id) === value) ?? null)}
        disabled={disabled}
        required
      />
      <ActionIcon
        size="lg"
        variant="light"
        aria-label="New subject"
        onClick={() => setCreating(true)}
        disabled={disabled}
      >
        +
      </ActionIcon>
      {creating && (
        <SubjectDialog subject={null} onClose={() => setCreating(false)} onSaved={(created) => onChange(created)} />
      )}
    </Group>
  );
}
