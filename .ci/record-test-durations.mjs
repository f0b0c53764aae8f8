// Writes each test file's duration in this run (vitest's JSON report) to .ci/test-durations.json, which the
// test sequencer (scripts/test-sequencer.ts) reads to start the longest files first. Commit it when it changes.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const report = JSON.parse(readFileSync(new URL('../.tmp/vitest-results.json', import.meta.url), 'utf8'));
const durations = Object.fromEntries(
  report.testResults
    .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 1000)])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(new URL('test-durations.json', import.meta.url), `${JSON.stringify(durations, null, 2)}\n`);
