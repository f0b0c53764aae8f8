import { describe, expect, it } from 'vitest';
import { processingMessages, type ProcessingProgress } from '@kinetrace/contracts';
import type { ProcessingRepository } from '../src/processing/processing-repository.ts';
import { createServerTrialIO, type ServerTrialIODeps } from '../src/processing/server-trial-io.ts';
import type { SessionRowDb } from '../src/repositories/sessions-repository.ts';
import type { TrialRow } from '../src/repositories/trials-repository.ts';

/** Issue 21: an internal failure that will be retried says so ("retrying (2 of 3)") instead of starting over silently. */
describe('a failed attempt as the trial page reads it', () => {
  const startedAt = '2026-11-27T10:00:00.000Z';
  const run = (willRetry: boolean) => {
    const written: { progress?: ProcessingProgress; error?: string }[] = [];
    const repository = {
      setProgress: async (_trialId: string, _attemptId: string, progress: ProcessingProgress) => {
        written.push({ progress });
      },
      markError: async (_trialId: string, _attemptId: string | null, error: string) => {
        written.push({ error });
      },
    } as unknown as ProcessingRepository;
    // fail() reads only the repository and the log: the other backends are never reached.
    const deps = { repository, installDir: '/nowhere', logFailure: () => undefined } as unknown as ServerTrialIODeps;
    const io = createServerTrialIO(deps, {
      id: 'job.0',
      trial: { id: 'trial' } as TrialRow,
      session: { meta: {} } as SessionRowDb,
      progress: { stage: 'scale_ik', percent: 80, started_at: startedAt, attempt: { number: 1, of: 3 } },
    });
    return io.fail({ kind: 'internal', error: new Error('boom'), willRetry }).then(() => written);
  };

  it('puts the trial back in the queue as the next attempt of how many', async () => {
    await expect(run(true)).resolves.toEqual([
      { progress: { stage: 'queued', percent: 0, started_at: startedAt, attempt: { number: 2, of: 3 } } },
    ]);
  });

  it('ends the last attempt in the internal-failure message', async () => {
    await expect(run(false)).resolves.toEqual([{ error: processingMessages.internalFailure }]);
  });
});
