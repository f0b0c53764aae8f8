import { expect, it } from 'vitest';
import { findPeaks, findValleys, resample } from '../../src/analyses/signal.ts';

it('finds peaks that stand out by the prominence asked, one per plateau, keeping the higher of two close ones', () => {
  //            0  1  2  3    4  5  6  7  8  9  10 11 12
  const signal = [0, 5, 0, 0.5, 0, 0, 3, 3, 3, 0, 4, 0, 0];
  expect(findPeaks(signal)).toEqual([1, 3, 7, 10]);
  // The 0.5 bump is noise next to the others.
  expect(findPeaks(signal, { minProminence: 1 })).toEqual([1, 7, 10]);
  // Within 4 frames of a higher peak, a peak gives way to it.
  expect(findPeaks(signal, { minProminence: 1, minDistance: 4 })).toEqual([1, 10]);
  expect(
    findValleys(
      Float64Array.from(signal, (v) => -v),
      { minProminence: 1 },
    ),
  ).toEqual([1, 7, 10]);
});

it('time-normalises a stretch of frames to evenly spaced points, interpolating between frames', () => {
  const ramp = [0, 10, 20, 30, 40];
  expect(resample(ramp, 1, 3, 5)).toEqual([10, 15, 20, 25, 30]);
  expect(resample(ramp, 0, 4, 101)[50]).toBe(20);
});
