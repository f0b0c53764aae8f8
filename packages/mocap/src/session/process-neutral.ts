import type { NeutralInput, NeutralOutcome, RunOptions } from './types.ts';

export async function processNeutral(input: NeutralInput, options: RunOptions = {}): Promise<NeutralOutcome> {
  void input;
  void options;
  throw new Error('processNeutral: being implemented (issue 9)');
}
