/**
 * Comma-separated tables for spreadsheets (RFC 4180: a header row, one record per line, fields
 * with commas, quotes or line breaks quoted, quotes doubled). Columns may differ in length; the
 * shorter ones end in empty cells. Numbers keep full precision.
 */
import type { StorageTable } from './mot.ts';

export interface CsvColumn {
  label: string;
  values: ArrayLike<number>;
}

function field(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function writeCsv(columns: CsvColumn[]): string {
  const rowCount = Math.max(0, ...columns.map((column) => column.values.length));
  const lines = [columns.map((column) => field(column.label)).join(',')];
  for (let row = 0; row < rowCount; row++) {
    lines.push(
      columns
        .map(({ values }) => (row < values.length && Number.isFinite(values[row]) ? String(values[row]) : ''))
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** An OpenSim .mot/.sto table as CSV with the same columns: time, then the table's labels in order. */
export function storageToCsv(table: StorageTable): string {
  const width = table.columnLabels.length;
  const columns: CsvColumn[] = table.columnLabels.map((label, c) => ({
    label,
    values: Float64Array.from({ length: table.timesS.length }, (_, row) => table.values[row * width + c]),
  }));
  return writeCsv([{ label: 'time', values: table.timesS }, ...columns]);
}
