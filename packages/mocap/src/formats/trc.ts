/**
 * Marker trajectories in the .trc text format (Motion Analysis Corp., used by OpenSim, OpenCap and
 * Pose2Sim): three header lines of metadata, a line of marker names (each above its X/Y/Z
 * columns), a line of X1 Y1 Z1 ... labels, then one tab-separated row per frame (frame number,
 * time, then x y z per marker). Missing markers are empty cells (or NaN).
 */
export interface MarkerTrajectories {
  markerNames: string[];
  frameRateHz: number;
  timesS: Float64Array;
  /** frames x markers x 3, metres, NaN when the marker is missing in that frame. */
  positionsM: Float64Array;
}

export class TrcFormatError extends Error {
  override name = 'TrcFormatError';
}

/** Metres in one unit of the length units .trc and .c3d files declare. */
export const METRES_PER_UNIT: Record<string, number> = { m: 1, mm: 0.001, cm: 0.01, dm: 0.1 };

function parseCell(cell: string | undefined): number {
  if (cell === undefined) return Number.NaN;
  const trimmed = cell.trim();
  if (trimmed === '') return Number.NaN;
  return Number(trimmed);
}

export function readTrc(text: string): MarkerTrajectories {
  const lines = text.split(/\r?\n/);
  if (lines.length < 5 || !lines[0].startsWith('PathFileType')) {
    throw new TrcFormatError(
      'Not a .trc file: the first line must start with "PathFileType". Export the markers as an OpenSim .trc file.',
    );
  }
  const keys = lines[1].split('\t').map((key) => key.trim());
  const values = lines[2].split('\t').map((value) => value.trim());
  const metadata = new Map<string, string>();
  keys.forEach((key, i) => {
    if (key) metadata.set(key, values[i] ?? '');
  });

  const frameRateHz = Number(metadata.get('DataRate') ?? metadata.get('CameraRate'));
  const units = (metadata.get('Units') ?? 'm').toLowerCase();
  const metresPerUnit = Object.hasOwn(METRES_PER_UNIT, units) ? METRES_PER_UNIT[units] : undefined;
  if (metresPerUnit === undefined) {
    throw new TrcFormatError(
      `Unknown .trc Units "${units}": expected one of ${Object.keys(METRES_PER_UNIT).join(', ')}.`,
    );
  }

  const nameCells = lines[3].split('\t');
  if (nameCells[0].trim() !== 'Frame#') {
    throw new TrcFormatError(
      'Malformed .trc header: the fourth line must start with "Frame#" followed by "Time" and the marker names.',
    );
  }
  const markerNames = nameCells
    .slice(2)
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const markerCount = markerNames.length;

  // Data rows follow the X1/Y1/Z1 line; a blank line usually separates them but Pose2Sim omits it.
  const rows: string[][] = [];
  for (let i = 5; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    rows.push(lines[i].split('\t'));
  }

  const timesS = new Float64Array(rows.length);
  const positionsM = new Float64Array(rows.length * markerCount * 3);
  rows.forEach((cells, frame) => {
    timesS[frame] = parseCell(cells[1]);
    const base = frame * markerCount * 3;
    for (let k = 0; k < markerCount * 3; k++) {
      positionsM[base + k] = parseCell(cells[2 + k]) * metresPerUnit;
    }
  });
  if (timesS.some((t) => Number.isNaN(t))) {
    throw new TrcFormatError(
      'Malformed .trc data: every row needs a frame number and a numeric time in its first two columns.',
    );
  }

  return {
    markerNames,
    frameRateHz: Number.isFinite(frameRateHz) && frameRateHz > 0 ? frameRateHz : estimateRateHz(timesS),
    timesS,
    positionsM,
  };
}

function estimateRateHz(timesS: Float64Array): number {
  if (timesS.length < 2) return Number.NaN;
  return (timesS.length - 1) / (timesS[timesS.length - 1] - timesS[0]);
}

function formatNumber(value: number): string {
  return Number.isNaN(value) ? '' : value.toFixed(7).replace(/\.?0+$/, '') || '0';
}

/** Writes metres (Units m), frames numbered from 1, missing markers as empty cells. */
export function writeTrc(trajectories: MarkerTrajectories, fileName = 'markers.trc'): string {
  const { markerNames, frameRateHz, timesS, positionsM } = trajectories;
  const frameCount = timesS.length;
  const markerCount = markerNames.length;
  const rate = String(frameRateHz);
  const out: string[] = [
    `PathFileType\t4\t(X/Y/Z)\t${fileName}`,
    'DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames',
    `${rate}\t${rate}\t${frameCount}\t${markerCount}\tm\t${rate}\t1\t${frameCount}`,
    ['Frame#', 'Time', ...markerNames.map((name) => `${name}\t\t`)].join('\t'),
    ['', '', ...markerNames.map((_, m) => `X${m + 1}\tY${m + 1}\tZ${m + 1}`)].join('\t'),
    '',
  ];
  for (let frame = 0; frame < frameCount; frame++) {
    const cells = [String(frame + 1), formatNumber(timesS[frame])];
    const base = frame * markerCount * 3;
    for (let k = 0; k < markerCount * 3; k++) cells.push(formatNumber(positionsM[base + k]));
    out.push(cells.join('\t'));
  }
  return `${out.join('\n')}\n`;
}
