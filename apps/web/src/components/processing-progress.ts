import {
  PROCESSING_STAGES,
  processingMessages,
  processingProgressSchema,
  type ProcessingProgress,
  type Trial,
} from '@kinetrace/contracts';
import { useEffect, useState } from 'react';

/**
 * How a processing trial is doing, from the progress the runner writes into `trial.meta.progress`: its stage
 * as the user reads it, the percentage, the time since this attempt started, and whether it has run so far
 * past what its videos warrant that the screens must say something is wrong instead of waiting for ever.
 */

/** Processing may run this many times its expected duration (a busy machine, a queue ahead) before it counts as stuck. */
export const OVERDUE_FACTOR = 5;
/** A short video's estimate is a few seconds; never call a trial stuck before this much time has passed. */
export const MIN_OVERDUE_S = 120;
/** Without an estimate from the runner (no progress written yet): how long before the screens say so. */
export const UNKNOWN_EXPECTED_S = 300;

export interface ProgressView {
  stage: string;
  percent: number | null;
  elapsedS: number;
  /** Past OVERDUE_FACTOR × the expected time: the screens show what to try. */
  overdue: boolean;
  expectedS: number | null;
  /** From the second attempt on (after an internal failure): "retrying (2 of 3)", instead of starting over silently. */
  retry: string | null;
}

export function progressOf(trial: Pick<Trial, 'meta'>): ProcessingProgress | null {
  const parsed = processingProgressSchema.safeParse(trial.meta.progress);
  return parsed.success ? parsed.data : null;
}

/**
 * The view of a trial that is processing or queued for reprocessing. Without progress from the runner, the
 * clock runs from the trial's last change (when it entered the queue). A trial waiting for its session's
 * calibration or neutral trial waits for the user, not for the server: never stuck.
 */
export function progressView(trial: Pick<Trial, 'meta' | 'updated_at'>, nowMs: number): ProgressView {
  const progress = progressOf(trial);
  const startedMs = Date.parse(progress?.started_at ?? trial.updated_at);
  const elapsedS = Number.isFinite(startedMs) ? Math.max(0, (nowMs - startedMs) / 1000) : 0;
  const expectedS = progress?.expected_s ?? null;
  const allowedS = expectedS === null ? UNKNOWN_EXPECTED_S : Math.max(MIN_OVERDUE_S, expectedS * OVERDUE_FACTOR);
  return {
    stage: PROCESSING_STAGES[progress?.stage ?? 'queued'],
    percent: progress ? Math.round(progress.percent) : null,
    elapsedS,
    overdue: !progress?.stage.startsWith('waiting_for') && elapsedS > allowedS,
    expectedS,
    retry:
      progress?.attempt && progress.attempt.number > 1
        ? processingMessages.retrying(progress.attempt.number, progress.attempt.of)
        : null,
  };
}

/** What the user can do about a trial that has taken far longer than expected. */
export const overdueAdvice = (expectedS: number | null) =>
  `Processing is taking far longer than ${expectedS === null ? 'expected' : `the ${Math.ceil(expectedS)} s these videos should need`}. ` +
  'The server may have stopped processing: check that it is running (its log says why a job failed), then reprocess the trial from the session menu or record it again.';

/** The current time, renewed every second while mounted (elapsed times on screen). */
function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** The progress view of a processing trial (none without one), kept up to date every second. */
export function useProgressView(trial: Pick<Trial, 'meta' | 'updated_at'>): ProgressView;
export function useProgressView(trial: Pick<Trial, 'meta' | 'updated_at'> | null): ProgressView | null;
export function useProgressView(trial: Pick<Trial, 'meta' | 'updated_at'> | null): ProgressView | null {
  const now = useNow();
  return trial && progressView(trial, now);
}
