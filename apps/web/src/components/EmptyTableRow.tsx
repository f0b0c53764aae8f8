import { Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** The one row of a table with nothing to list: says what to do next instead of leaving the table blank. */
export function EmptyTableRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <Table.Tr data-testid="empty-table">
      <Table.Td colSpan={columns}>
        <Text c="dimmed" ta="center" py="md" size="sm">
          {children}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}
