import type { CalibrationInput, CalibrationOutcome, RunOptions } from './types.ts';

export async function calibrateSession(input: CalibrationInput, options: RunOptions = {}): Promise<CalibrationOutcome> {
  void input;
  void options;
  throw new Error('calibrateSession: being implemented (issue 9)');
}
