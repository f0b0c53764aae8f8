import { RESERVED_TRIAL_NAMES, messages, trialNameField, type Trial } from '@kinetrace/contracts';

/** §5 a new trial's name: required, letters, digits, dash and underscore, not reserved, not already a live trial of the session. */
export function newTrialNameError(name: string, sessionTrials: readonly Trial[]): string | undefined {
  const check = trialNameField.safeParse(name);
  if (!check.success) return check.error.issues[0]?.message;
  if ((RESERVED_TRIAL_NAMES as readonly string[]).includes(name)) return messages.trialNameReserved;
  if (sessionTrials.some((trial) => !trial.trashed && trial.name === name)) return messages.uniqueTrialName;
  return undefined;
}
