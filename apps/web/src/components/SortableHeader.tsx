import { Table, UnstyledButton } from '@mantine/core';
import type { ReactNode } from 'react';

export interface SortState<Field extends string> {
  field: Field;
  descending: boolean;
}

interface SortableHeaderProps<Field extends string> {
  field: Field;
  sort: SortState<Field>;
  onSort: (sort: SortState<Field>) => void;
  children: ReactNode;
}

/** A column header that sorts the server-paged table by its field; a second click reverses the order. */
export function SortableHeader<Field extends string>({ field, sort, onSort, children }: SortableHeaderProps<Field>) {
  const active = sort.field === field;
  const arrow = active ? (sort.descending ? ' ▼' : ' ▲') : '';
  return (
    <Table.Th aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <UnstyledButton fw={600} fz="sm" onClick={() => onSort({ field, descending: active ? !sort.descending : false })}>
        {children}
        {arrow}
      </UnstyledButton>
    </Table.Th>
  );
}
