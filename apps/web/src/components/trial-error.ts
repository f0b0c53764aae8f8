import { messages, type Trial } from '@kinetrace/contracts';

/** What went wrong with a trial in error: the server's message (§8, meta.error_msg), else the spec's fallback. */
export function trialErrorOf(trial: Pick<Trial, 'meta' | 'name'>): string {
  const message = trial.meta.error_msg;
  if (typeof message === 'string' && message) return message;
  return trial.name === 'neutral' ? messages.neutralProcessingError : messages.trialProcessingError;
}

/** The session's current neutral trial (the newest not in the recycle bin), which movement trials wait for. */
export const currentNeutralOf = (trials: readonly Trial[]): Trial | undefined =>
  trials.filter((trial) => trial.name === 'neutral' && !trial.trashed).at(-1);
