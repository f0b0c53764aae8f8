/**
 * The trial viewer in headless chromium (WebGL through ANGLE's software renderer, so the figures
 * are a floor for any machine with a GPU): the frame time while the OpenCap fixture (22 bodies)
 * plays, and the time to open a 60 s trial (its visualizer JSON fetched and parsed, first frame
 * drawn). The session is public and opened anonymously, as a shared link would be.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULT_TAGS, type Session } from '@kinetrace/contracts';
import { chromium } from 'playwright-core';
import { referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { seedTrial } from '../../server/test/support/seed.ts';
import { authHeader, startTestApp, verifiedUser } from '../../server/test/support/test-app.ts';

const fixturePath = referencePath('opencap_viewer_fixture/visualizerTransforms.json');
if (!existsSync(fixturePath)) {
  console.log(`skipped: reference data missing: ${fixturePath}`);
  process.exit(0);
}
if (!existsSync(join(import.meta.dirname, '../dist/index.html'))) throw new Error('Build the web app first (npm run build:web).');

interface Transforms {
  time: number[];
  bodies: Record<string, { translation: number[][]; rotation: number[][] }>;
}
const fixtureText = readFileSync(fixturePath, 'utf8');
const fixture = JSON.parse(fixtureText) as Transforms;

/** 60 s at the fixture's 100 Hz: its frames repeated, times running on. */
function sixtySecondTrial(): string {
  const frames = 60 * 100 + 1;
  const n = fixture.time.length;
  const pick = <T,>(rows: T[]) => Array.from({ length: frames }, (_, f) => rows[f % n]);
  const bodies = Object.fromEntries(Object.entries(fixture.bodies).map(([name, body]) => [name, { ...body, translation: pick(body.translation), rotation: pick(body.rotation) }]));
  return JSON.stringify({ time: Array.from({ length: frames }, (_, f) => Math.round((fixture.time[0] + f / 100) * 1e6) / 1e6), bodies });
}

const test = await startTestApp('pglite', { LOG_LEVEL: 'warn' });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  headless: true,
});
try {
  const user = await verifiedUser(test);
  const session = ((await test.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(user.token) })).json() as Session[])[0];
  await test.call({ method: 'PATCH', url: `/api/sessions/${session.id}/`, headers: authHeader(user.token), payload: { public: true } });
  const long = sixtySecondTrial();
  await seedTrial(test, session.id, { name: 'fixture', results: [{ tag: RESULT_TAGS.visualizerTransforms, fileName: 'fixture.json', bytes: Buffer.from(fixtureText) }] });
  await seedTrial(test, session.id, { name: 'sixty_seconds', results: [{ tag: RESULT_TAGS.visualizerTransforms, fileName: 'long.json', bytes: Buffer.from(long) }] });
  const address = await test.app.listen({ port: 0, host: '127.0.0.1' });
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  await page.goto(`${address}/session/${session.id}`);

  // Frame time: intervals between animation frames while the fixture plays (the scene draws each one).
  await page.getByRole('cell', { name: 'fixture', exact: true }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 30_000 });
  // Given as text: tsx would wrap named functions in a helper the page does not have.
  const intervals: number[] = await page.evaluate(`new Promise((resolve) => {
    const out = [];
    let last;
    const end = performance.now() + 5000;
    requestAnimationFrame(function frame(now) {
      if (last !== undefined) out.push(now - last);
      last = now;
      if (now < end) requestAnimationFrame(frame);
      else resolve(out);
    });
  })`);
  intervals.sort((a, b) => a - b);
  const mean = intervals.reduce((sum, value) => sum + value, 0) / intervals.length;
  console.log(
    `viewer, fixture (${Object.keys(fixture.bodies).length} bodies, 1200x900 window, software WebGL): frame time mean ${mean.toFixed(1)} ms, ` +
      `median ${intervals[Math.floor(intervals.length / 2)].toFixed(1)} ms, p95 ${intervals[Math.floor(intervals.length * 0.95)].toFixed(1)} ms (${intervals.length} frames in 5 s)`,
  );

  // Opening a 60 s trial: click to first frame drawn (the scene marks the frame it drew).
  const started = Date.now();
  await page.getByRole('cell', { name: 'sixty_seconds', exact: true }).click();
  await page.getByLabel('Trial sixty_seconds').locator('[data-testid=viewer-scene][data-frame]').waitFor({ timeout: 120_000 });
  console.log(`viewer, 60 s trial (${Math.round(long.length / 1e6)} MB JSON, 6001 frames): opened and first frame drawn in ${Date.now() - started} ms`);
} finally {
  await browser.close();
  await test.close();
}
