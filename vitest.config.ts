import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './scripts/test-sequencer.ts';

/**
 * The engine, contracts, processing and API tests run three files at a time on two cores: much of their time
 * is spent starting servers, databases and pose workers or waiting on PostgreSQL, and with two at a time the
 * files held their slots only 70% of the suite's time (1818 s of file time in 1306 s), the rest importing
 * modules between files; a third file uses that. A trial's own threads run below the test's (issue 24). The browser tests run after them, one file at a time: each drives several chromium processes (four
 * phones and a researcher) whose timing a second file would starve. They share one module graph (no
 * isolation): each file imported the server, playwright and the fixtures again, about 4 s a file (none of
 * them mocks a module or keeps state in one).
 */
const PARALLEL_FILES = 3;

export default defineConfig({
  test: {
    // Real data, real models, real browsers: generous per-test limits, never timing assertions.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    maxWorkers: PARALLEL_FILES,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'mocap', include: ['packages/mocap/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'contracts', include: ['packages/contracts/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'processing', include: ['packages/processing/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'server', include: ['apps/server/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'worker', include: ['apps/worker/test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'web',
          include: ['apps/web/test/**/*.test.ts'],
          fileParallelism: false,
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
