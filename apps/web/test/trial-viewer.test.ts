import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESULT_TAGS, messages, type Session } from '@kinetrace/contracts';
import { readStorage } from '@kinetrace/mocap/formats/mot';
import { ffmpegPath } from '@kinetrace/mocap/video/binaries';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedTrial } from '../../server/test/support/seed.ts';
import type { TestApp } from '../../server/test/support/test-app.ts';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import {
  CHROMIUM_ARGS,
  callApi,
  eventually,
  makeUser,
  newContext,
  screenshot,
  signUpAndSignIn,
  startServerInProcess,
  tokenOf,
  type SeedableServer,
} from './browser-harness.ts';

const fixture = {
  transforms: 'opencap_viewer_fixture/visualizerTransforms.json',
  motion: 'opencap_viewer_fixture/DJ1_videoAndMocap.mot',
};
/** The synchronised test videos' frame rate: "within one frame" below means within 1/30 s. */
const VIDEO_FPS = 30;
const FRAME_S = 1 / VIDEO_FPS;
/** WebGL in headless chromium through ANGLE's software renderer. */
const WEBGL_ARGS = ['--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

interface Transforms {
  time: number[];
  bodies: Record<string, { translation: number[][] }>;
}

/** A 3-second test-pattern video, H.264 in mp4 as processing writes them. */
function testVideo(dir: string, name: string, pattern: string): Buffer {
  const path = join(dir, `${name}.mp4`);
  execFileSync(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `${pattern}=size=320x240:rate=${VIDEO_FPS}`, '-t', '3',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-g', '1', '-movflags', '+faststart', path]);
  return readFileSync(path);
}

/** The IK-json processing writes (packages/mocap/src/session/ik-json.ts), from the fixture's .mot. */
function ikJsonOf(motText: string): Buffer {
  const mot = readStorage(motText);
  const width = mot.columnLabels.length;
  const coordinates = Object.fromEntries(mot.columnLabels.map((label, c) => [label, Array.from(mot.timesS, (_, row) => mot.values[row * width + c])]));
  return Buffer.from(JSON.stringify({ format: 'kinetrace-ik', version: 1, units: 'degrees', translationUnits: 'm', time: Array.from(mot.timesS), coordinates, translationalCoordinates: ['pelvis_tx', 'pelvis_ty', 'pelvis_tz'] }));
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
          for (const [nx, ny] of [[px + 1, py], [px - 1, py], [px, py + 1], [px, py - 1]]) {
            if (nx < 0 || ny < 0 || nx >= width || ny >= height || seen.has(ny * width + nx) || !orange(nx, ny)) continue;
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

const nextPaint = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

async function seek(page: Page, timeS: number): Promise<void> {
  const field = page.getByRole('textbox', { name: 'Time (s)' });
  await field.fill(String(timeS));
  await field.press('Enter');
}

async function pauseAfterAutoplay(page: Page): Promise<void> {
  // Autoplay starts after 2 s (spec §9): the Play button turns into Pause by itself.
  await page.getByRole('button', { name: 'Pause' }).click({ timeout: 20_000 });
}

const videoTimes = (page: Page) => page.locator('video').evaluateAll((videos) => (videos as HTMLVideoElement[]).map((video) => video.currentTime));

describeWithData('the trial viewer, its videos and the chart', [fixture.transforms, fixture.motion], () => {
  let server: SeedableServer;
  let browser: Browser;
  let page: Page;
  let session: Session;
  const transformsText = readFileSync(referencePath(fixture.transforms), 'utf8');
  const transforms = JSON.parse(transformsText) as Transforms;
  const motText = readFileSync(referencePath(fixture.motion), 'utf8');
  const fps = (transforms.time.length - 1) / (transforms.time.at(-1)! - transforms.time[0]);
  const frameAt = (timeS: number) => Math.round((timeS - transforms.time[0]) * fps);
  const videoDir = mkdtempSync(join(tmpdir(), 'kinetrace-viewer-videos-'));

  beforeAll(async () => {
    [server, browser] = await Promise.all([
      startServerInProcess(),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...WEBGL_ARGS], headless: true }),
    ]);
    page = await (await newContext(browser, server.baseUrl)).newPage();
    const user = makeUser('viewer');
    await signUpAndSignIn(page, server, user);
    const token = await tokenOf(page);
    [session] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
    const seedTarget = { backends: server.backends } as TestApp;
    const left = testVideo(videoDir, 'left', 'testsrc');
    const right = testVideo(videoDir, 'right', 'testsrc2');
    await seedTrial(seedTarget, session.id, {
      name: 'jump',
      results: [
        { tag: RESULT_TAGS.visualizerTransforms, fileName: 'jump.json', bytes: Buffer.from(transformsText) },
        { tag: RESULT_TAGS.videoSync, fileName: 'cam0.mp4', bytes: left },
        { tag: RESULT_TAGS.videoSync, fileName: 'cam1.mp4', bytes: right },
        { tag: RESULT_TAGS.ikResults, fileName: 'jump.mot', bytes: Buffer.from(motText) },
        { tag: RESULT_TAGS.ikJson, fileName: 'jump_ik.json', bytes: ikJsonOf(motText) },
      ],
    });
    await seedTrial(seedTarget, session.id, { name: 'walk_raw', videos: [{ deviceId: 'phone-a', bytes: left }] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
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
      const projected = await Promise.all(bodies.map((body) => projectOnCanvas(page, transforms.bodies[body].translation[frame])));
      const drawn = await drawnJointsNear(page, png, projected, 12);
      await screenshot(page, `trial-viewer-${timeS}s`);
      bodies.forEach((body, i) => {
        expect(drawn[i], `${body} drawn near its projection ${JSON.stringify(projected[i])} at ${timeS} s`).not.toBeNull();
        expect(Math.hypot(drawn[i]!.x - projected[i].x, drawn[i]!.y - projected[i].y), `${body} at ${timeS} s`).toBeLessThan(3);
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
      // Each animation frame for 3 s: the clock's time and every video's, read together after the viewer's own update.
      const samples = await page.evaluate(
        () =>
          new Promise<{ timeS: number; videos: number[]; seeking: boolean }[]>((resolve) => {
            const out: { timeS: number; videos: number[]; seeking: boolean }[] = [];
            const end = performance.now() + 3000;
            requestAnimationFrame(function sample(now) {
              const videos = [...document.querySelectorAll('video')];
              out.push({
                timeS: Number(document.querySelector<HTMLElement>('[data-testid=viewer-time]')!.dataset.time),
                videos: videos.map((video) => video.currentTime),
                seeking: videos.some((video) => video.seeking),
              });
              if (now < end) requestAnimationFrame(sample);
              else resolve(out);
            });
          }),
      );
      await page.getByRole('button', { name: 'Pause' }).click();
      // Software WebGL draws only a few frames a second; enough to see the clocks drift apart.
      expect(samples.length).toBeGreaterThan(5);
      const worst = Math.max(...samples.flatMap(({ timeS, videos }) => videos.map((videoTime) => Math.abs(videoTime - timeS))));
      expect(worst, `largest video-to-clock difference at ${speed}`).toBeLessThanOrEqual(FRAME_S);
    }
  });

  it('says when a trial has only unsynchronised videos and no 3D result', async () => {
    await page.getByRole('cell', { name: 'walk_raw', exact: true }).click();
    await page.getByText(messages.resultNotFound(RESULT_TAGS.visualizerTransforms), { exact: true }).waitFor();
    await page.getByText(messages.videosNotSynchronized, { exact: true }).waitFor();
    await expect(page.locator('video').count()).resolves.toBe(1);
  });
});
