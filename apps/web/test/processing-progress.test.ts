import { PROCESSING_STAGES, type ProcessingProgress } from '@kinetrace/contracts';
import { describe, expect, it } from 'vitest';
import {
  MIN_OVERDUE_S,
  OVERDUE_FACTOR,
  UNKNOWN_EXPECTED_S,
  progressView,
} from '../src/components/processing-progress.ts';

const startedAt = '2026-01-01T10:00:00.000Z';
const at = (seconds: number) => Date.parse(startedAt) + seconds * 1000;
const trialWith = (progress?: Partial<ProcessingProgress>) => ({
  meta: progress ? { progress: { stage: 'triangulate', percent: 42.4, started_at: startedAt, ...progress } } : {},
  updated_at: startedAt,
});

describe('progressView: what the screens show of a processing trial', () => {
  it("shows the stage's label, the rounded percentage and the time since the attempt started", () => {
    expect(progressView(trialWith({ expected_s: 30 }), at(75))).toEqual({
      stage: PROCESSING_STAGES.triangulate,
      percent: 42,
      elapsedS: 75,
      overdue: false,
      expectedS: 30,
      retry: null,
    });
  });

  it('says which attempt a retried trial is at, from the second one on', () => {
    expect(progressView(trialWith({ attempt: { number: 1, of: 3 } }), at(1)).retry).toBeNull();
    expect(progressView(trialWith({ stage: 'queued', attempt: { number: 2, of: 3 } }), at(1)).retry).toBe(
      'retrying (2 of 3)',
    );
  });

  it('calls a trial stuck only well past what its videos warrant, and never within the first minutes', () => {
    expect(progressView(trialWith({ expected_s: 60 }), at(60 * OVERDUE_FACTOR - 1)).overdue).toBe(false);
    expect(progressView(trialWith({ expected_s: 60 }), at(60 * OVERDUE_FACTOR + 1)).overdue).toBe(true);
    expect(progressView(trialWith({ expected_s: 2 }), at(MIN_OVERDUE_S - 1)).overdue).toBe(false);
    expect(progressView(trialWith({ expected_s: 2 }), at(MIN_OVERDUE_S + 1)).overdue).toBe(true);
  });

  it('without progress from the runner, counts from when the trial was queued', () => {
    const queued = progressView(trialWith(), at(UNKNOWN_EXPECTED_S + 1));
    expect(queued).toMatchObject({ stage: PROCESSING_STAGES.queued, percent: null, overdue: true, expectedS: null });
  });

  it('never calls a trial waiting for the calibration or the neutral trial stuck: it waits for the user', () => {
    for (const stage of ['waiting_for_calibration', 'waiting_for_neutral'] as const) {
      expect(progressView(trialWith({ stage, expected_s: 10 }), at(10_000)).overdue, stage).toBe(false);
    }
  });
});
