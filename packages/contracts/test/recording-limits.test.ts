import { describe, expect, it } from 'vitest';
import { recordingLimitS } from '../src/index.ts';

describe('recording limits (spec §9: 60 s at 60 fps, 30 s at 120, 15 s at 240)', () => {
  it('gives each recording rate its limit, and any other rate that of the next recording rate up', () => {
    expect([60, 120, 240].map(recordingLimitS)).toEqual([60, 30, 15]);
    expect([5, 30, 59.94, 100, 200, 480].map(recordingLimitS)).toEqual([60, 60, 60, 30, 15, 15]);
  });
});
