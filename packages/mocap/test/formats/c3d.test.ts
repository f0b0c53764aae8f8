import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { C3dFormatError, readC3d, writeC3d } from '../../src/formats/c3d.ts';
import { readTrc, type MarkerTrajectories } from '../../src/formats/trc.ts';
import { describeWithData, referencePath } from '../reference-data.ts';

const walkTrc =
  'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8/MarkerData/walk.trc';

/** Largest |a - b| over the present values, and whether NaNs sit in the same places. */
function compare(a: Float64Array, b: Float64Array) {
  let maxDifference = 0;
  let sameMissing = a.length === b.length;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) !== Number.isNaN(b[i])) sameMissing = false;
    else if (!Number.isNaN(a[i])) maxDifference = Math.max(maxDifference, Math.abs(a[i] - b[i]));
  }
  return { maxDifference, sameMissing };
}

describeWithData('C3D export of OpenCap marker data', [walkTrc], () => {
  const trc = readTrc(readFileSync(referencePath(walkTrc), 'utf8'));

  it('reads back the 63 markers, their labels, the frame rate and the time base within float precision', () => {
    for (const units of ['mm', 'm'] as const) {
      const file = readC3d(writeC3d(trc, units));
      expect(file.trajectories.markerNames).toEqual(trc.markerNames);
      expect(file.trajectories.frameRateHz).toBe(trc.frameRateHz);
      expect(file.trajectories.timesS).toHaveLength(trc.timesS.length);
      trc.timesS.forEach((t, i) => expect(file.trajectories.timesS[i]).toBeCloseTo(t, 6));
      const { maxDifference, sameMissing } = compare(file.trajectories.positionsM, trc.positionsM);
      expect(sameMissing).toBe(true);
      // float32 keeps 24 bits: under 1e-6 relative, i.e. well under a micrometre for coordinates of a few metres.
      expect(maxDifference).toBeLessThan(2e-6);
    }
  });

  it('writes the header record field by field as the C3D User Guide lays it out', () => {
    const bytes = writeC3d(trc, 'mm');
    const view = new DataView(bytes.buffer);
    const word = (n: number) => (n - 1) * 2;
    expect(bytes.length % 512).toBe(0);
    expect(bytes[0]).toBe(2); // word 1 byte 1: the parameter section starts at block 2
    expect(bytes[1]).toBe(0x50); // word 1 byte 2: key 0x50, "P"
    expect(view.getUint16(word(2), true)).toBe(63); // number of 3D points
    expect(view.getUint16(word(3), true)).toBe(0); // analog measurements per 3D frame
    const firstFrame = view.getUint16(word(4), true);
    expect(firstFrame).toBe(Math.round(trc.timesS[0] * trc.frameRateHz) + 1); // 1-based
    expect(view.getUint16(word(5), true)).toBe(firstFrame + trc.timesS.length - 1);
    const scale = view.getFloat32(word(7), true);
    expect(scale).toBeLessThan(0); // words 7-8: negative scale = floating-point data
    const dataStart = view.getUint16(word(9), true);
    expect(view.getUint16(word(10), true)).toBe(0); // analog samples per 3D frame
    expect(view.getFloat32(word(11), true)).toBe(trc.frameRateHz); // words 11-12: frame rate, float
    expect(view.getUint16(word(148), true)).toBe(0); // no label and range section
    expect(view.getUint16(word(150), true)).toBe(0x3039); // 4-character event labels supported
    expect(view.getUint16(word(151), true)).toBe(0); // no header events

    // Parameter header: two reserved bytes, block count, 83 + processor type 1 (Intel).
    expect(bytes[512 + 2]).toBe(dataStart - 2);
    expect(bytes[512 + 3]).toBe(84);

    // The first parameter record is the POINT group: name length, negative id, name, offset, description.
    expect(bytes[516]).toBe(5);
    expect(view.getInt8(517)).toBe(-1);
    expect(String.fromCharCode(...bytes.subarray(518, 523))).toBe('POINT');
    const offset = view.getInt16(523, true);
    const descriptionLength = bytes[525];
    expect(offset).toBe(2 + 1 + descriptionLength); // from the offset field to the next record
    // Next record: POINT:USED, a scalar 16-bit integer parameter of group 1.
    const used = 523 + offset;
    expect([bytes[used], bytes[used + 1]]).toEqual([4, 1]);
    expect(String.fromCharCode(...bytes.subarray(used + 2, used + 6))).toBe('USED');
    expect([view.getInt8(used + 8), bytes[used + 9]]).toEqual([2, 0]); // type 2 (int16), 0 dimensions
    expect(view.getInt16(used + 10, true)).toBe(63);

    // First point of the first frame, in millimetres, then a float residual word of 0 (processed point).
    const data = (dataStart - 1) * 512;
    expect(view.getFloat32(data, true)).toBeCloseTo(trc.positionsM[0] * 1000, 3);
    expect(view.getFloat32(data + 12, true)).toBe(0);
  });

  it('declares the required POINT parameters consistently with the header', () => {
    const file = readC3d(writeC3d(trc, 'mm'));
    const value = (key: string) => file.parameters.get(key)?.values;
    expect(file.processorType).toBe(84);
    expect(value('POINT:USED')).toEqual([63]);
    expect(value('POINT:FRAMES')).toEqual([trc.timesS.length]);
    expect(value('POINT:RATE')).toEqual([trc.frameRateHz]);
    expect(value('POINT:DATA_START')).toEqual([file.header.dataStartBlock]);
    expect(value('POINT:SCALE')).toEqual([file.header.scale]);
    expect(value('POINT:UNITS')).toEqual(['mm']);
    expect(file.parameters.get('POINT:LABELS')?.dimensions).toEqual([
      Math.max(...trc.markerNames.map((n) => n.length)),
      63,
    ]);
    expect(value('ANALOG:USED')).toEqual([0]);
    // No analog channels: the analog rate is 0, as the header's 0 analog samples per frame says.
    expect(value('ANALOG:RATE')).toEqual([0]);
    expect(file.header.analogSamplesPerFrame).toBe(0);
    // The scale's magnitude is the largest coordinate / 32000, so the file converts to integer form losslessly enough.
    let largestMm = 0;
    for (const v of trc.positionsM) if (Number.isFinite(v)) largestMm = Math.max(largestMm, Math.abs(v) * 1000);
    expect(Math.abs(file.header.scale)).toBeCloseTo(largestMm / 32000, 6);
  });
});

describe('C3D points', () => {
  const trajectories: MarkerTrajectories = {
    markerNames: ['RHeel', 'LHeel'],
    frameRateHz: 120,
    timesS: Float64Array.from([0, 1 / 120, 2 / 120]),
    positionsM: Float64Array.from([
      0.1,
      0.02,
      -0.3,
      1,
      2,
      3,
      Number.NaN,
      Number.NaN,
      Number.NaN,
      1.5,
      0.5,
      -0.5,
      0.11,
      0.03,
      -0.31,
      1.01,
      2.01,
      3.01,
    ]),
  };

  it('marks a missing point invalid with a residual of -1 and reads it back as missing', () => {
    const bytes = writeC3d(trajectories, 'm');
    const file = readC3d(bytes);
    const view = new DataView(bytes.buffer);
    const data = (file.header.dataStartBlock - 1) * 512;
    expect(view.getFloat32(data + 2 * 16 + 12, true)).toBe(-1);
    expect(compare(file.trajectories.positionsM, trajectories.positionsM).sameMissing).toBe(true);
    expect(file.units).toBe('m');
    expect(file.header.firstFrame).toBe(1);
  });

  it('tells viewers the data is Y-up and gives the trial its frame range and camera rate', () => {
    const late: MarkerTrajectories = { ...trajectories, timesS: trajectories.timesS.map((t) => t + 100) };
    const file = readC3d(writeC3d(late, 'm'));
    const value = (key: string) => file.parameters.get(key)?.values;
    expect(value('POINT:X_SCREEN')).toEqual(['+X']);
    expect(value('POINT:Y_SCREEN')).toEqual(['+Y']);
    // Frame numbers are two 16-bit words, low word first: 12001 (100 s at 120 Hz, 1-based) and 0.
    expect(value('TRIAL:ACTUAL_START_FIELD')).toEqual([12001, 0]);
    expect(value('TRIAL:ACTUAL_END_FIELD')).toEqual([12003, 0]);
    expect(value('TRIAL:CAMERA_RATE')).toEqual([120]);
  });

  it('refuses what C3D cannot hold and files that are not C3D', () => {
    expect(() => writeC3d({ ...trajectories, markerNames: Array.from({ length: 256 }, (_, i) => `M${i}`) })).toThrow(
      C3dFormatError,
    );
    expect(() => readC3d(new Uint8Array(2048))).toThrow('Not a C3D file');
  });
});
