import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { storageToCsv, writeCsv } from '../../src/formats/csv.ts';
import { readStorage } from '../../src/formats/mot.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const viewerMotion = 'opencap_viewer_fixture/DJ1_videoAndMocap.mot';

describeWithData('joint angles as CSV', [viewerMotion], () => {
  it('has the .mot columns in order and its values row by row', () => {
    const mot = readStorage(readFileSync(referencePath(viewerMotion), 'utf8'));
    const lines = storageToCsv(mot).trimEnd().split('\r\n');
    expect(lines[0].split(',')).toEqual(['time', ...mot.columnLabels]);
    expect(lines).toHaveLength(mot.timesS.length + 1);
    const last = lines[lines.length - 1].split(',').map(Number);
    const row = mot.timesS.length - 1;
    expect(last[0]).toBe(mot.timesS[row]);
    expect(last.slice(1)).toEqual(
      Array.from(mot.values.subarray(row * mot.columnLabels.length, (row + 1) * mot.columnLabels.length)),
    );
  });
});

describe('writeCsv', () => {
  it('quotes labels with commas or quotes and leaves missing values and short columns empty', () => {
    const csv = writeCsv([
      { label: 'time', values: [0, 0.5, 1] },
      { label: 'knee, "right"', values: [10, Number.NaN] },
    ]);
    expect(csv).toBe('time,"knee, ""right"""\r\n0,10\r\n0.5,\r\n1,\r\n');
  });
});
