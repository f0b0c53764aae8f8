import { Table, UnstyledButton } from '@mantine/core';
import type { ReactNode } from 'react';

export interface SortState<Field extends string> {
  field: Field;
  descending: boolean;
}

interface SortControl<Field extends string> {
  sort: SortState<Field>;
  onSort: (sort: SortState<Field>) => void;
}

/** The sortable column headers of a server-paged table, as [field, label] pairs in column order. */
export function SortableHeaders<Field extends string>({
  columns,
  sort,
  onSort,
}: SortControl<Field> & { columns: readonly (readonly [Field, string])[] }) {
  return columns.map(([field, label]) => (
    <SortableHeader key={field} field={field} sort={sort} onSort={onSort}>
      {label}
    </SortableHeader>
  ));
}

/** A column header that sorts the table by its field; a second click reverses the order. */
function SortableHeader<Field extends string>({
  field,
  sort,
  onSort,
  children,
}: SortControl<Field> & { field: Field; children: ReactNode }) {
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
