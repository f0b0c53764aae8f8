/**
 * Hostile uploads against the server (issue 20, "What it must show"): every file of the test corpus
 * (test/support/hostile-files.ts), by kind, with the event loop's longest stall while it was read
 * (monitorEventLoopDelay) and the resident memory's growth: the peak during the read over the memory
 * before it (sampled every 5 ms) and what stays after it, once collected.
 * - Calibration and lens files go through the parser thread the server reads them in (one thread per
 *   kind, started before), so that the figures are the file's own; then one file per kind through the
 *   server's route, which also starts a parser thread, next to a valid file on the same route for scale.
 * - Profile pictures are read on the event loop: each one through the route.
 * Goals: no stall over 200 ms, no growth over 50 MB per file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Session } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { createUploadParserThreads, type ParseUpload } from '../src/upload-parsing/upload-parser-thread.ts';
import { hostileFiles, hostileUpload, type HostileFile } from '../test/support/hostile-files.ts';
import { testCamera } from '../test/support/test-camera.ts';
import { multipart } from '../test/support/multipart.ts';
import { authHeader, startTestApp, verifiedUser } from '../test/support/test-app.ts';

const STALL_GOAL_MS = 200;
const GROWTH_GOAL_MB = 50;
const MB = 1024 * 1024;
const RESOLUTION_MS = 5;
/** Loading tsx and the engine's readers in a new thread takes about a second on an idle machine. */
const SPARE_LOAD_MS = 3000;

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const rssMb = () => process.memoryUsage.rss() / MB;

interface Measured {
  label: string;
  refused: boolean;
  stallMs: number;
  peakGrowthMb: number;
  keptGrowthMb: number;
}

/** Runs `read` (true when the file was refused) with the event loop and the memory watched. */
async function measure(label: string, read: () => Promise<boolean>): Promise<Measured> {
  gc();
  await sleep(50);
  const before = rssMb();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), RESOLUTION_MS);
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const refused = await read();
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, rssMb());
  gc();
  await sleep(50);
  return {
    label,
    refused,
    // The histogram counts from the resolution's tick: what is over it is the stall.
    stallMs: Math.max(0, delay.max / 1e6 - RESOLUTION_MS),
    peakGrowthMb: peak - before,
    keptGrowthMb: rssMb() - before,
  };
}

const corpus = hostileFiles();
const folder = mkdtempSync(join(tmpdir(), 'kinetrace-bench-hostile-'));
const rows: { kind: string; how: string; results: Measured[] }[] = [];

// Calibration and lens files, each through the parser thread the server uses.
const threads = createUploadParserThreads({ maxThreads: 1 });
const validCameras = writeKinetraceCameras([testCamera('cam1', 0, { width: 1080, height: 1920 })]);
writeFileSync(join(folder, 'valid.json'), validCameras);
const readWith = (parse: ParseUpload, file: HostileFile, path: string) =>
  file.kind === 'lens .json'
    ? parse('lens-json', { path })
    : parse('camera-file', { path, fileName: `calibration${extname(file.fileName)}`, options: {} });
for (const kind of new Set(corpus.map((file) => file.kind))) {
  if (kind === 'profile picture') continue;
  const results: Measured[] = [];
  await threads.withThread('files', async (parse) => {
    await parse('camera-file', { path: join(folder, 'valid.json'), fileName: 'valid.json', options: {} });
    for (const [index, file] of corpus.entries()) {
      if (file.kind !== kind) continue;
      const path = join(folder, `${index}${extname(file.fileName)}`);
      writeFileSync(path, file.bytes);
      results.push(
        await measure(file.label, () =>
          readWith(parse, file, path).then(
            () => false,
            () => true,
          ),
        ),
      );
    }
  });
  rows.push({ kind, how: 'parser thread', results });
}
await threads.close();

// The real routes of an in-process server: every picture, and for the other kinds the corpus's file that cost
// the parser thread the most memory, after a valid file for scale (each request starts a parser thread).
const test = await startTestApp('pglite');
const headers = authHeader((await verifiedUser(test)).token);
const sessionId = ((await test.call({ method: 'GET', url: '/api/sessions/new/', headers })).json() as Session[])[0].id;
const upload = async (file: HostileFile) => {
  const { url, parts } = hostileUpload(file, sessionId);
  const body = multipart(parts);
  const response = await test.call({
    method: 'POST',
    url,
    payload: body.payload,
    headers: { ...headers, ...body.headers },
  });
  return response.statusCode === 400;
};
const validLens: HostileFile = {
  kind: 'lens .json',
  threat: 'prototype key',
  label: 'a valid lens file',
  fileName: 'lens.json',
  bytes: Buffer.from(validCameras),
};
/** Each request takes the loaded spare parser thread and starts the next: give that one time to load first. */
const settle = () => sleep(SPARE_LOAD_MS);
// The first upload loads what every later one shares (the parsers' modules in this process, a spare thread).
await upload(validLens);
await settle();
rows.push({
  kind: 'lens .json (valid)',
  how: 'route',
  results: [await measure(validLens.label, async () => !(await upload(validLens)))],
});
for (const kind of new Set(corpus.map((file) => file.kind))) {
  if (kind === 'profile picture') {
    const results = [];
    for (const file of corpus.filter((entry) => entry.kind === kind))
      results.push(await measure(file.label, () => upload(file)));
    rows.push({ kind, how: 'route', results });
    continue;
  }
  const heaviest = rows
    .find((row) => row.kind === kind)!
    .results.reduce((a, b) => (b.peakGrowthMb > a.peakGrowthMb ? b : a));
  const file = corpus.find((entry) => entry.kind === kind && entry.label === heaviest.label)!;
  await settle();
  rows.push({
    kind,
    how: 'route',
    results: [await measure(file.label, () => upload(file))],
  });
}
await test.close();
rmSync(folder, { recursive: true, force: true });

const cell = (value: number, width: number, digits = 0) => value.toFixed(digits).padStart(width);
console.log(
  `${'kind'.padEnd(21)} ${'read in'.padEnd(18)} ${'files'.padStart(5)} ${'stall ms'.padStart(8)} ${'peak MB'.padStart(8)} ${'kept MB'.padStart(8)}  worst file`,
);
let failures = 0;
for (const { kind, how, results } of rows) {
  const stall = results.reduce((a, b) => (b.stallMs > a.stallMs ? b : a));
  const growth = results.reduce((a, b) => (b.peakGrowthMb > a.peakGrowthMb ? b : a));
  const kept = Math.max(...results.map((result) => result.keptGrowthMb));
  console.log(
    `${kind.padEnd(21)} ${how.padEnd(18)} ${String(results.length).padStart(5)} ${cell(stall.stallMs, 8)} ${cell(growth.peakGrowthMb, 8, 1)} ${cell(kept, 8, 1)}  ${growth.label}`,
  );
  for (const result of results) {
    const over = [
      !result.refused && 'not refused',
      result.stallMs > STALL_GOAL_MS && `stalled ${result.stallMs.toFixed(0)} ms`,
      result.peakGrowthMb > GROWTH_GOAL_MB && `grew ${result.peakGrowthMb.toFixed(0)} MB`,
    ].filter(Boolean);
    if (over.length > 0) {
      failures++;
      console.log(`  ${result.label}: ${over.join(', ')}`);
    }
  }
}
console.log(
  `${corpus.length} hostile files; goals: no stall over ${STALL_GOAL_MS} ms, no growth over ${GROWTH_GOAL_MB} MB, each refused: ${failures} misses`,
);
process.exitCode = failures > 0 ? 1 : 0;
