/**
 * OpenSim storage files (.mot motions, .sto tables): a free-form header ending in "endheader"
 * (first line is the table's name, then key=value lines such as nRows, nColumns, inDegrees),
 * one line of column labels starting with "time", then one row of numbers per time.
 */
export interface StorageTable {
  /** First header line, e.g. "Coordinates". */
  name: string;
  /** Whether rotational coordinate columns are in degrees (header inDegrees=yes). */
  inDegrees: boolean;
  /** Labels of the value columns (the time column excluded). */
  columnLabels: string[];
  timesS: Float64Array;
  /** rows x columns, row-major, in the file's units. */
  values: Float64Array;
}

export class StorageFormatError extends Error {
  override name = 'StorageFormatError';
}

function splitCells(line: string): string[] {
  const trimmed = line.trim();
  return trimmed.includes('\t') ? trimmed.split('\t').map((cell) => cell.trim()) : trimmed.split(/\s+/);
}

export function readStorage(text: string): StorageTable {
  const lines = text.split(/\r?\n/);
  const endHeader = lines.findIndex((line) => line.trim().toLowerCase() === 'endheader');
  if (endHeader < 0) {
    throw new StorageFormatError(
      'Not an OpenSim .mot/.sto file: no "endheader" line. Save the motion from OpenSim or write it with writeStorage.',
    );
  }
  const name = lines[0].split('\t')[0].trim();
  // Without an inDegrees line, SIMM motion files (the older OpenSim examples) are in degrees.
  let inDegrees = lines.slice(0, endHeader).some((line) => line.includes('SIMM Motion File Header'));
  for (const line of lines.slice(0, endHeader)) {
    const match = /^\s*inDegrees\s*=\s*(\w+)/i.exec(line);
    if (match) inDegrees = match[1].toLowerCase() === 'yes';
  }

  let labelLine = endHeader + 1;
  while (labelLine < lines.length && lines[labelLine].trim() === '') labelLine++;
  const labels = splitCells(lines[labelLine] ?? '').filter((label) => label !== '');
  if (labels.length === 0 || labels[0].toLowerCase() !== 'time') {
    throw new StorageFormatError(
      'Malformed .mot/.sto file: the line after "endheader" must list the column labels, starting with "time".',
    );
  }
  const columnLabels = labels.slice(1);

  const rows: string[][] = [];
  for (let i = labelLine + 1; i < lines.length; i++) {
    if (lines[i].trim() !== '') rows.push(lines[i].trim().split(/\s+/));
  }
  const timesS = new Float64Array(rows.length);
  const values = new Float64Array(rows.length * columnLabels.length);
  rows.forEach((cells, row) => {
    if (cells.length < labels.length) {
      throw new StorageFormatError(
        `Malformed .mot/.sto file: data row ${row + 1} has ${cells.length} values for ${labels.length} columns.`,
      );
    }
    timesS[row] = Number(cells[0]);
    for (let c = 0; c < columnLabels.length; c++) values[row * columnLabels.length + c] = Number(cells[c + 1]);
  });
  return { name, inDegrees, columnLabels, timesS, values };
}

/** The values of one column, or undefined when the table has no such label. */
export function storageColumn(table: StorageTable, label: string): Float64Array | undefined {
  const column = table.columnLabels.indexOf(label);
  if (column < 0) return undefined;
  const width = table.columnLabels.length;
  const out = new Float64Array(table.timesS.length);
  for (let row = 0; row < out.length; row++) out[row] = table.values[row * width + column];
  return out;
}

function formatNumber(value: number): string {
  return value.toFixed(8).padStart(16);
}

export function writeStorage(table: StorageTable): string {
  const { name, inDegrees, columnLabels, timesS, values } = table;
  const width = columnLabels.length;
  const out: string[] = [
    name,
    'version=1',
    `nRows=${timesS.length}`,
    `nColumns=${width + 1}`,
    `inDegrees=${inDegrees ? 'yes' : 'no'}`,
    '',
    'Units are S.I. units (second, meters, Newtons, ...)',
    "If the header above contains a line with 'inDegrees', this indicates whether rotational values are in degrees (yes) or radians (no).",
    '',
    'endheader',
    ['time', ...columnLabels].join('\t'),
  ];
  for (let row = 0; row < timesS.length; row++) {
    const cells = [formatNumber(timesS[row])];
    for (let c = 0; c < width; c++) cells.push(formatNumber(values[row * width + c]));
    out.push(cells.join('\t'));
  }
  return `${out.join('\n')}\n`;
}
