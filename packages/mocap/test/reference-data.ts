import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';

/** The reference data set lives beside the repository (never inside it): ../shared/data. */
export const sharedDataDir = resolve(fileURLToPath(new URL('../../../../shared/data', import.meta.url)));

export function referencePath(...parts: string[]): string {
  return resolve(sharedDataDir, ...parts);
}

/**
 * A describe block that runs only when the named reference files exist, and otherwise is
 * skipped with a message saying what is missing.
 */
export function describeWithData(title: string, requiredPaths: string[], body: () => void): void {
  const missing = requiredPaths.filter((path) => !existsSync(referencePath(path)));
  if (missing.length > 0) {
    describe.skip(`${title} (skipped: reference data missing: ${missing.join(', ')} under ${sharedDataDir})`, body);
  } else {
    describe(title, body);
  }
}
