import type { MovementInput, MovementOutcome, RunOptions } from './types.ts';

export async function processMovement(input: MovementInput, options: RunOptions = {}): Promise<MovementOutcome> {
  void input;
  void options;
  throw new Error('processMovement: being implemented (issue 9)');
}
