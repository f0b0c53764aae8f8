/**
 * The trial viewer in headless chromium (WebGL through ANGLE's software renderer, so the figures
 * are a floor for any machine with a GPU): the frame time while the OpenCap fixture (22 bodies)
 * plays, and the time to open a 60 s trial (its visualizer JSON fetched and parsed, first frame
 * drawn). The session is public and opened anonymously, as a shared link would be.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { RESULT_TAGS, type Session } from '@kinetrace/contracts';
import { chromium } from 'playwright-core';
import { referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { freePort } from '../../server/test/support/npm-start.ts';
import { seedTrial } from '../../server/test/support/seed.ts';
import { authHeader, startTestApp, verifiedUser } from '../../server/test/support/test-app.ts';

const fixturePath = referencePath('opencap_viewer_fixture/visualizerTransforms.json');
if (!existsSync(fixturePath)) {
  console.log(`skipped: reference data missing: ${fixturePath}`);
  process.exit(0);
}
if (!existsSync(join(import.meta.dirname, '../dist/index.html')))
  throw new Error('Build the web app first (npm run build:web).');

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
  const pick = <T>(rows: T[]) => Array.from({ length: frames }, (_, f) => rows[f % n]);
  const bodies = Object.fromEntries(
    Object.entries(fixture.bodies).map(([name, body]) => [
      name,
      { ...body, translation: pick(body.translation), rotation: pick(body.rotation) },
    ]),
  );
  return JSON.stringify({
    time: Array.from({ length: frames }, (_, f) => Math.round((fixture.time[0] + f / 100) * 1e6) / 1e6),
    bodies,
  });
}

// Media URLs are absolute on PUBLIC_URL: it must be the address the page is served from.
const port = await freePort();
const test = await startTestApp('pglite', { LOG_LEVEL: 'warn', PUBLIC_URL: `http://127.0.0.1:${port}` });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  headless: true,
});
try {
  const user = await verifiedUser(test);
  const session = (
    (await test.call({ method: 'GET', url: '/api/sessions/new/', headers: authHeader(user.token) })).json() as Session[]
  )[0];
  await test.call({
    method: 'PATCH',
    url: `/api/sessions/${session.id}/`,
    headers: authHeader(user.token),
    payload: { public: true },
  });
  const long = sixtySecondTrial();
  await seedTrial(test, session.id, {
    name: 'fixture',
    results: [{ tag: RESULT_TAGS.visualizerTransforms, fileName: 'fixture.json', bytes: Buffer.from(fixtureText) }],
  });
  await seedTrial(test, session.id, {
    name: 'sixty_seconds',
    results: [{ tag: RESULT_TAGS.visualizerTransforms, fileName: 'long.json', bytes: Buffer.from(long) }],
  });
  const address = await test.app.listen({ port, host: '127.0.0.1' });
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  await page.goto(`${address}/session/${session.id}`);

  // The WebGL renderer the figures come from (ANGLE over SwiftShader here: the CPU draws every pixel).
  const renderer: string = await page.evaluate(`(() => {
    const gl = document.createElement('canvas').getContext('webgl2') || document.createElement('canvas').getContext('webgl');
    const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
    return gl ? String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER)) : 'no WebGL';
  })()`);
  console.log(
    `machine: load ${loadavg()
      .map((load) => load.toFixed(2))
      .join(', ')} (1, 5, 15 min); WebGL renderer: ${renderer}`,
  );

  // Frame time: intervals between animation frames while the fixture plays (the scene draws each one).
  await page.getByRole('cell', { name: 'fixture', exact: true }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 30_000 });
  /**
   * Frame intervals for 5 s and the scene's canvas size in pixels. At two window sizes: a frame
   * time that follows the pixel count is the renderer drawing pixels, not the page's own work.
   */
  async function frameTimes(window: { width: number; height: number }) {
    await page.setViewportSize(window);
    await page.waitForTimeout(1000);
    // The page's main thread, sampled over the same 5 s (V8's CPU profiler): what of a frame is the page's own code (three.js, React,
    // the playback clock) and what is the browser drawing it (SwiftShader rasterises on the CPU, in the GPU process).
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
    // Given as text: tsx would wrap named functions in a helper the page does not have.
    const { intervals, canvas } = await page.evaluate<{
      intervals: number[];
      canvas: string;
    }>(`new Promise((resolve) => {
      const out = [];
      let last;
      const end = performance.now() + 5000;
      requestAnimationFrame(function frame(now) {
        if (last !== undefined) out.push(now - last);
        last = now;
        if (now < end) requestAnimationFrame(frame);
        else {
          const canvas = document.querySelector('[data-testid=viewer-scene] canvas');
          resolve({ intervals: out, canvas: canvas ? canvas.width + 'x' + canvas.height : '?' });
        }
      });
    })`);
    const { profile } = (await cdp.send('Profiler.stop')) as {
      profile: {
        nodes: { id: number; callFrame: { functionName: string; url: string } }[];
        samples: number[];
        timeDeltas: number[];
      };
    };
    // Sampled time by kind: the page's JavaScript, the garbage collector, and the browser's own work on that thread ("(program)").
    const kindOf = (name: string) =>
      name === '(idle)' ? 'idle' : name === '(program)' ? 'native' : name === '(garbage collector)' ? 'gc' : 'js';
    const kindById = new Map(profile.nodes.map((node) => [node.id, kindOf(node.callFrame.functionName)]));
    const sampledMs = { idle: 0, native: 0, gc: 0, js: 0 };
    profile.samples.forEach(
      (id, i) => (sampledMs[kindById.get(id) as keyof typeof sampledMs] += profile.timeDeltas[i] / 1000),
    );
    intervals.sort((a, b) => a - b);
    const mean = intervals.reduce((sum, value) => sum + value, 0) / intervals.length;
    console.log(
      `viewer, fixture (${Object.keys(fixture.bodies).length} bodies, ${window.width}x${window.height} window, ${canvas} px canvas): frame time mean ${mean.toFixed(1)} ms, ` +
        `median ${intervals[Math.floor(intervals.length / 2)].toFixed(1)} ms, p95 ${intervals[Math.floor(intervals.length * 0.95)].toFixed(1)} ms (${intervals.length} frames in 5 s); ` +
        `per frame, page main thread: JavaScript ${(sampledMs.js / intervals.length).toFixed(1)} ms, garbage collection ${(sampledMs.gc / intervals.length).toFixed(1)} ms, ` +
        `browser work outside JavaScript (drawing through the software renderer, style, layout, compositing) ${(sampledMs.native / intervals.length).toFixed(1)} ms, idle ${(sampledMs.idle / intervals.length).toFixed(1)} ms`,
    );
  }
  await frameTimes({ width: 1200, height: 900 });
  await frameTimes({ width: 600, height: 450 });
  await page.setViewportSize({ width: 1200, height: 900 });

  // Opening a 60 s trial: click to first frame drawn (the scene marks the frame it drew).
  const started = Date.now();
  await page.getByRole('cell', { name: 'sixty_seconds', exact: true }).click();
  await page
    .getByLabel('Trial sixty_seconds')
    .locator('[data-testid=viewer-scene][data-frame]')
    .waitFor({ timeout: 120_000 });
  console.log(
    `viewer, 60 s trial (${Math.round(long.length / 1e6)} MB JSON, 6001 frames): opened and first frame drawn in ${Date.now() - started} ms`,
  );
} finally {
  await browser.close();
  await test.close();
}
