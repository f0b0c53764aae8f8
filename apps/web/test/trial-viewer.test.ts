import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESULT_TAGS, messages, type Session } from '@kinetrace/contracts';
import { readStorage } from '@kinetrace/mocap/formats/mot';
import { ffmpegPath } from '@kinetrace/mocap/video/binaries';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import {
  callApi,
  eventually,
  makeUser,
  newContext,
  screenshot,
  startSignedIn,
  stopSignedIn,
  type SeedableServer,
} from './browser-harness.ts';

const fixture = {
  transforms: 'opencap_viewer_fixture/visualizerTransforms.json',
  motion: 'opencap_viewer_fixture/DJ1_videoAndMocap.mot',
};
/** The synchronised test videos' frame rate: "within one frame" below means within 1/30 s. */
const VIDEO_FPS = 30;
const FRAME_S = 1 / VIDEO_FPS;

interface Transforms {
  time: number[];
  bodies: Record<string, { translation: number[][] }>;
}

/** A 3-second test-pattern video, H.264 in mp4 as processing writes them. */
function testVideo(dir: string, name: string, pattern: string): Buffer {
  const path = join(dir, `${name}.mp4`);
  execFileSync(ffmpegPath(), [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `${pattern}=size=320x240:rate=${VIDEO_FPS}`,
    '-t',
    '3',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '1',
    '-movflags',
    '+faststart',
    path,
  ]);
  return readFileSync(path);
}

/** The IK-json processing writes (packages/mocap/src/session/ik-json.ts), from the fixture's .mot. */
function ikJsonOf(motText: string): Buffer {
  const mot = readStorage(motText);
  const width = mot.columnLabels.length;
  const coordinates = Object.fromEntries(
    mot.columnLabels.map((label, c) => [label, Array.from(mot.timesS, (_, row) => mot.values[row * width + c])]),
  );
  return Buffer.from(
    JSON.stringify({
      format: 'kinetrace-ik',
      version: 1,
      units: 'degrees',
      translationUnits: 'm',
      time: Array.from(mot.timesS),
      coordinates,
      translationalCoordinates: ['pelvis_tx', 'pelvis_ty', 'pelvis_tz'],
    }),
  );
}

const scene = (page: Page) => page.getByTestId('viewer-scene');

/** Where a world point lands on the canvas, through the clip-from-world matrix the scene publishes. */
async function projectOnCanvas(page: Page, pointM: number[]): Promise<{ x: number; y: number }> {
  const e = (await scene(page).getAttribute('data-clip-from-world'))!.split(' ').map(Number);
  const box = (await scene(page).locator('canvas').boundingBox())!;
  const [x, y, z] = pointM;
  const w = e[3] * x + e[7] * y + e[11] * z + e[15];
  const ndcX = (e[0] * x + e[4] * y + e[8] * z + e[12]) / w;
  const ndcY = (e[1] * x + e[5] * y + e[9] * z + e[13]) / w;
  return { x: ((ndcX + 1) / 2) * box.width, y: ((1 - ndcY) / 2) * box.height };
}

/**
 * Where a joint sphere was actually drawn near each point of a canvas screenshot: the centre of the
 * joint-coloured (orange) blob holding the orange pixel nearest the point, within `radius`.
 */
async function drawnJointsNear(page: Page, png: Buffer, points: { x: number; y: number }[], radius: number) {
  return page.evaluate(
    async ({ base64, points, radius }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d')!;
      context.drawImage(bitmap, 0, 0);
      const { data, width, height } = context.getImageData(0, 0, bitmap.width, bitmap.height);
      // The joints' orange (#f08c00) under any lighting: red leads, green about half of it, hardly any blue.
      const orange = (px: number, py: number) => {
        const at = (py * width + px) * 4;
        const [r, g, b] = [data[at], data[at + 1], data[at + 2]];
        return r > 90 && g > 0.35 * r && g < 0.8 * r && b < 0.3 * r;
      };
      return points.map(({ x, y }) => {
        let seed: [number, number] | undefined;
        let nearest = Infinity;
        for (let py = Math.max(0, Math.floor(y - radius)); py <= Math.min(height - 1, y + radius); py++) {
          for (let px = Math.max(0, Math.floor(x - radius)); px <= Math.min(width - 1, x + radius); px++) {
            const distance = Math.hypot(px + 0.5 - x, py + 0.5 - y);
            if (distance <= radius && distance < nearest && orange(px, py)) [seed, nearest] = [[px, py], distance];
          }
        }
        if (!seed) return null;
        const seen = new Set([seed[1] * width + seed[0]]);
        const queue = [seed];
        let [sumX, sumY] = [0, 0];
        for (const [px, py] of queue) {
          [sumX, sumY] = [sumX + px + 0.5, sumY + py + 0.5];
          for (const [nx, ny] of [
            [px + 1, py],
            [px - 1, py],
            [px, py + 1],
            [px, py - 1],
          ]) {
            if (nx < 0 || ny < 0 || nx >= width || ny >= height || seen.has(ny * width + nx) || !orange(nx, ny))
              continue;
            seen.add(ny * width + nx);
            queue.push([nx, ny]);
          }
        }
        return { x: sumX / queue.length, y: sumY / queue.length, pixels: queue.length };
      });
    },
    { base64: png.toString('base64'), points, radius },
  );
}

const nextPaint = (page: Page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

async function seek(page: Page, timeS: number): Promise<void> {
  const field = page.getByRole('textbox', { name: 'Time (s)' });
  await field.fill(String(timeS));
  await field.press('Enter');
}

async function pauseAfterAutoplay(page: Page): Promise<void> {
  // Autoplay starts after 2 s (spec §9): the Play button turns into Pause by itself.
  await page.getByRole('button', { name: 'Pause' }).click({ timeout: 20_000 });
}

/** Width and height from a PNG's IHDR chunk, after checking the PNG signature. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: download.suggestedFilename(), bytes: readFileSync((await download.path())!) };
}

/** Picks options of a Mantine MultiSelect by their labels. */
async function pick(page: Page, field: string, options: string[]): Promise<void> {
  for (const option of options) {
    await page.getByRole('combobox', { name: field }).click();
    await page.getByRole('option', { name: option, exact: true }).click();
  }
  await page.keyboard.press('Escape');
}

const chart = (page: Page) => page.getByTestId('chart');

async function chartJointAngles(page: Page): Promise<void> {
  await page.goto(`/dashboard/${session.id}`);
  await pick(page, 'Trials', ['jump']);
  await pick(page, 'Y quantities', ['knee_angle_r', 'hip_flexion_r']);
}

let session: Session;

const videoTimes = (page: Page) =>
  page.locator('video').evaluateAll((videos) => (videos as HTMLVideoElement[]).map((video) => video.currentTime));

describeWithData('the trial viewer, its videos and the chart', [fixture.transforms, fixture.motion], () => {
  let server: SeedableServer;
  let browser: Browser;
  let page: Page;
  let token: string;
  const transformsText = readFileSync(referencePath(fixture.transforms), 'utf8');
  const transforms = JSON.parse(transformsText) as Transforms;
  const motText = readFileSync(referencePath(fixture.motion), 'utf8');
  const fps = (transforms.time.length - 1) / (transforms.time.at(-1)! - transforms.time[0]);
  const frameAt = (timeS: number) => Math.round((timeS - transforms.time[0]) * fps);
  const videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-viewer-videos-'));

  beforeAll(async () => {
    ({ server, browser, page, token } = await startSignedIn(makeUser('viewer'), { webgl: true }));
    [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    const left = testVideo(videoDir, 'left', 'testsrc');
    const right = testVideo(videoDir, 'right', 'testsrc2');
    await server.seedTrial(session.id, {
      name: 'jump',
      results: [
        { tag: RESULT_TAGS.visualizerTransforms, fileName: 'jump.json', bytes: Buffer.from(transformsText) },
        { tag: RESULT_TAGS.videoSync, fileName: 'cam0.mp4', bytes: left },
        { tag: RESULT_TAGS.videoSync, fileName: 'cam1.mp4', bytes: right },
        { tag: RESULT_TAGS.ikResults, fileName: 'jump.mot', bytes: Buffer.from(motText) },
        { tag: RESULT_TAGS.ikJson, fileName: 'jump_ik.json', bytes: ikJsonOf(motText) },
      ],
    });
    await server.seedTrial(session.id, { name: 'walk_raw', videos: [{ deviceId: 'phone-a', bytes: left }] });
  });
  afterAll(async () => {
    await stopSignedIn({ server, browser });
    rmSync(videoDir, { recursive: true, force: true });
  });

  it('draws the pelvis and both heels where the camera projects the JSON translations, at two times', async () => {
    await page.goto(`/session/${session.id}`);
    await page.getByRole('cell', { name: 'jump', exact: true }).click();
    await scene(page).locator('canvas').waitFor();
    await pauseAfterAutoplay(page);
    for (const timeS of [1.3, 1.8]) {
      const frame = frameAt(timeS);
      await seek(page, timeS);
      await eventually(() => scene(page).getAttribute('data-frame')).toBe(String(frame));
      await nextPaint(page);
      const png = await scene(page).locator('canvas').screenshot();
      const bodies = ['pelvis', 'calcn_r', 'calcn_l'];
      const projected = await Promise.all(
        bodies.map((body) => projectOnCanvas(page, transforms.bodies[body].translation[frame])),
      );
      const drawn = await drawnJointsNear(page, png, projected, 12);
      await screenshot(page, `trial-viewer-${timeS}s`);
      bodies.forEach((body, i) => {
        expect(
          drawn[i],
          `${body} drawn near its projection ${JSON.stringify(projected[i])} at ${timeS} s`,
        ).not.toBeNull();
        expect(
          Math.hypot(drawn[i]!.x - projected[i].x, drawn[i]!.y - projected[i].y),
          `${body} at ${timeS} s`,
        ).toBeLessThan(3);
      });
    }
  });

  it('puts every video and the 3D frame at the time sought, and keeps them there while playing at 2x and 0.25x', async () => {
    for (const timeS of [1.5, 1.17, 1.93]) {
      await seek(page, timeS);
      await eventually(() => scene(page).getAttribute('data-frame')).toBe(String(frameAt(timeS)));
      for (const videoTime of await videoTimes(page)) expect(Math.abs(videoTime - timeS)).toBeLessThanOrEqual(FRAME_S);
    }
    for (const speed of ['2×', '0.25×']) {
      await page.getByRole('combobox', { name: 'Speed' }).click();
      await page.getByRole('option', { name: speed, exact: true }).click();
      await page.getByRole('button', { name: 'Play' }).click();
      // Each animation frame for 5 s: every video's time against the clock's at that same moment (its last
      // time plus the wall time since, at the speed).
      const samples = await page.evaluate(
        (speedFactor) =>
          new Promise<{ clockS: number; videos: number[] }[]>((resolve) => {
            const out: { clockS: number; videos: number[] }[] = [];
            const end = performance.now() + 5000;
            // A renderer busy drawing in software may hold animation frames back: the 5 s end by the clock too.
            setTimeout(() => resolve(out), 5500);
            requestAnimationFrame(function sample() {
              const { time, timeAtMs } = document.querySelector<HTMLElement>('[data-testid=viewer-time]')!.dataset;
              const elements = [...document.querySelectorAll('video')];
              const running = elements.every((video) => !video.paused);
              const sinceS = running ? (performance.now() - Number(timeAtMs)) / 1000 : 0;
              // While a video seeks (the loop back to the start) the clock waits for it, and chromium may report
              // its time as 0 until the picture is there: only settled moments are compared.
              if (elements.every((video) => !video.seeking)) {
                out.push({
                  clockS: Number(time) + sinceS * speedFactor,
                  videos: elements.map((video) => video.currentTime),
                });
              }
              if (performance.now() < end) requestAnimationFrame(sample);
              else resolve(out);
            });
          }),
        Number.parseFloat(speed),
      );
      await page.getByRole('button', { name: 'Pause' }).click();
      // Software WebGL draws only a few frames a second; enough to see the clocks drift apart.
      expect(samples.length).toBeGreaterThanOrEqual(4);
      const worst = Math.max(
        ...samples.flatMap(({ clockS, videos }) => videos.map((videoTime) => Math.abs(videoTime - clockS))),
      );
      expect(worst, `largest video-to-clock difference at ${speed}`).toBeLessThanOrEqual(FRAME_S);
    }
  });

  it('says when a trial has only unsynchronised videos and no 3D result', async () => {
    await page.getByRole('cell', { name: 'walk_raw', exact: true }).click();
    await page.getByText(messages.resultNotFound(RESULT_TAGS.visualizerTransforms), { exact: true }).waitFor();
    await page.getByText(messages.videosNotSynchronized, { exact: true }).waitFor();
    await expect(page.locator('video').count()).resolves.toBe(1);
  });

  it('charts knee_angle_r and hip_flexion_r as two series, and downloads chart.png and the plotted columns', async () => {
    await chartJointAngles(page);
    // ECharts describes the chart it drew for screen readers: one entry per series.
    await eventually(() => chart(page).getAttribute('aria-label')).toMatch(/2 series/);
    const description = (await chart(page).getAttribute('aria-label'))!;
    expect(description).toContain('knee_angle_r');
    expect(description).toContain('hip_flexion_r');
    await screenshot(page, 'chart-page');

    const png = await downloaded(page, () => page.getByRole('button', { name: 'Download chart.png' }).click());
    expect(png.name).toBe('chart.png');
    const box = (await chart(page).boundingBox())!;
    expect(pngSize(png.bytes)).toEqual({ width: Math.round(box.width), height: Math.round(box.height) });

    const csv = await downloaded(page, () => page.getByRole('button', { name: 'Download data (CSV)' }).click());
    const [header, ...rows] = csv.bytes.toString('utf8').trimEnd().split('\r\n');
    expect(header.split(',')).toEqual(['time', 'knee_angle_r', 'hip_flexion_r']);
    const mot = readStorage(motText);
    expect(rows).toHaveLength(mot.timesS.length);
    const column = (label: string) =>
      Array.from(mot.timesS, (_, row) => mot.values[row * mot.columnLabels.length + mot.columnLabels.indexOf(label)]);
    expect(rows.map((row) => row.split(',').map(Number))).toEqual(
      Array.from(mot.timesS, (t, row) => [t, column('knee_angle_r')[row], column('hip_flexion_r')[row]]),
    );
    await expect(page.getByRole('link', { name: 'jump.mot' }).getAttribute('download')).resolves.toBe('jump.mot');
  });

  it('shows a public session to an anonymous visitor read-only, with the viewer and the chart', async () => {
    const response = await fetch(`${server.baseUrl}/api/sessions/${session.id}/`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ public: true }),
    });
    expect(response.ok).toBe(true);
    const visitor = await (await newContext(browser, server.baseUrl)).newPage();
    await visitor.goto(`/session/${session.id}`);
    await visitor.getByRole('cell', { name: 'jump', exact: true }).click();
    await scene(visitor).locator('canvas').waitFor();
    await eventually(() => scene(visitor).getAttribute('data-frame')).not.toBeNull();
    for (const ownerControl of [
      visitor.getByRole('button', { name: /Actions for trial/ }),
      visitor.getByRole('button', { name: 'Start recording' }),
      visitor.getByRole('button', { name: 'Session menu' }),
    ]) {
      await expect(ownerControl.count()).resolves.toBe(0);
    }
    await chartJointAngles(visitor);
    await eventually(() => chart(visitor).getAttribute('aria-label')).toMatch(/2 series/);
    await visitor.context().close();
  });
});
