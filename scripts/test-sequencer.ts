import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each test file took in the last full run, by path from the repository's root (`.ci/run` rewrites it). */
const TEST_DURATIONS_FILE = new URL('../.ci/test-durations.json', import.meta.url);

/**
 * Longest files first, across projects. Vitest's own order runs project after project, and by file size when
 * it has no timings (as on a clean clone): the two processing files, five minutes each, started 8 and 10
 * minutes in and ran on after everything else had finished. With two files at a time, longest first keeps
 * both slots busy to the end. Files with no recorded duration follow, largest first (vitest's own guess).
 */
export class LongestFirstSequencer extends BaseSequencer {
  private readonly durations: Record<string, number> = existsSync(TEST_DURATIONS_FILE)
    ? (JSON.parse(readFileSync(TEST_DURATIONS_FILE, 'utf8')) as Record<string, number>)
    : {};

  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const recorded = (file: TestSpecification) => this.durations[relative(this.ctx.config.root, file.moduleId)];
    const byLength = (a: TestSpecification, b: TestSpecification) => {
      const [secondsA, secondsB] = [recorded(a), recorded(b)];
      if (secondsA !== undefined && secondsB !== undefined) return secondsB - secondsA;
      if (secondsA !== undefined || secondsB !== undefined) return secondsA !== undefined ? -1 : 1;
      return statSync(b.moduleId).size - statSync(a.moduleId).size;
    };
    return Promise.resolve(
      [...files].sort(
        (a, b) =>
          a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
          byLength(a, b) ||
          a.moduleId.localeCompare(b.moduleId),
      ),
    );
  }
}
