import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FOLLOW_UP_STAGES, processingMessages, RESULT_TAGS, messages, type Session } from '@kinetrace/contracts';
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
  pickOptions,
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

/** ffmpeg's lavfi test source `pattern` written to `fileName` in `dir` with the `output` options; its bytes. */
function renderPattern(dir: string, fileName: string, pattern: string, output: string[]): Buffer {
  const path = join(dir, fileName);
  execFileSync(ffmpegPath(), [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    pattern,
    ...output,
    path,
  ]);
  return readFileSync(path);
}

/** A 3-second test-pattern video, H.264 in mp4 as processing writes them. */
const testVideo = (dir: string, name: string, pattern: string) =>
  renderPattern(dir, `${name}.mp4`, `${pattern}=size=320x240:rate=${VIDEO_FPS}`, [
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
  ]);

/** A still of the test pattern as PNG, as processing writes a neutral's images. */
const testImage = (dir: string, name: string) =>
  renderPattern(dir, `${name}.png`, 'testsrc=size=320x240', ['-frames:v', '1']);

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

const chart = (page: Page) => page.getByTestId('chart');

async function chartJointAngles(page: Page): Promise<void> {
  await page.goto(`/dashboard/${session.id}`);
  await pickOptions(page, 'Trials', ['jump']);
  await pickOptions(page, 'Y quantities', ['knee_angle_r', 'hip_flexion_r']);
}

let session: Session;

const videoTimes = (page: Page) =>
  page.locator('video').evaluateAll((videos) => (videos as HTMLVideoElement[]).map((video) => video.currentTime));

/**
 * Each animation frame for `durationMs`: every video's time against the clock's at that same moment (its last
 * time plus the wall time since, at the speed).
 */
const videosAgainstClock = (page: Page, speedFactor: number, durationMs = 5000) =>
  page.evaluate(
    ({ speedFactor, durationMs }) =>
      new Promise<{ clockS: number; videos: number[] }[]>((resolve) => {
        const out: { clockS: number; videos: number[] }[] = [];
        const end = performance.now() + durationMs;
        // A renderer busy drawing in software may hold animation frames back: the sampling ends by the clock too.
        setTimeout(() => resolve(out), durationMs + 500);
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
    { speedFactor, durationMs },
  );

/** The largest difference between a video's time and the clock's over `samples`. */
const worstGap = (samples: { clockS: number; videos: number[] }[]) =>
  Math.max(...samples.flatMap(({ clockS, videos }) => videos.map((videoTime) => Math.abs(videoTime - clockS))));

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
    // Done, its synchronised videos still being made (issue 24), or given up on.
    for (const [name, followUp] of [
      ['jump_pending', { status: 'running', percent: 40 }],
      ['jump_failed', { status: 'failed', percent: 70, error_msg: processingMessages.syncVideosInterrupted }],
    ] as const)
      await server.seedTrial(session.id, {
        name,
        videos: [
          { deviceId: 'phone-a', bytes: left },
          { deviceId: 'phone-b', bytes: right },
        ],
        results: [
          { tag: RESULT_TAGS.visualizerTransforms, fileName: `${name}.json`, bytes: Buffer.from(transformsText) },
        ],
        meta: { follow_up: { stage: 'sync_videos', started_at: new Date().toISOString(), ...followUp } },
      });
    // A processed neutral as processing leaves it: a scaled model, keypoints and an image per camera, no motion.
    await server.seedTrial(session.id, {
      name: 'neutral',
      videos: [{ deviceId: 'phone-a', bytes: left }],
      results: [
        { tag: RESULT_TAGS.neutralImage, fileName: 'neutral_cam0.png', bytes: testImage(videoDir, 'neutral') },
        { tag: RESULT_TAGS.opensimModel, fileName: 'neutral_scaled.osim', bytes: Buffer.from('<OpenSimDocument/>') },
      ],
    });
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

  it('puts the 3D view and the videos side by side, the view as tall as the videos: no blank area beside either', async () => {
    // What is drawn: the canvas, and each video with its caption (read at one moment, in the page's pixels).
    const { canvas, videos } = await page.evaluate(() => {
      const box = (element: Element) => {
        const { left, top, right, bottom } = element.getBoundingClientRect();
        return { left, top, right, bottom };
      };
      const figures = [...document.querySelectorAll('[data-testid=trial-videos] figure')].map(box);
      return {
        canvas: box(document.querySelector('[data-testid=viewer-scene] canvas')!),
        videos: {
          left: Math.min(...figures.map((figure) => figure.left)),
          top: Math.min(...figures.map((figure) => figure.top)),
          bottom: Math.max(...figures.map((figure) => figure.bottom)),
        },
      };
    });
    expect(videos.left, 'videos to the right of the 3D view').toBeGreaterThanOrEqual(canvas.right);
    expect(Math.abs(videos.top - canvas.top), 'tops').toBeLessThanOrEqual(1);
    expect(Math.abs(videos.bottom - canvas.bottom), 'bottoms').toBeLessThanOrEqual(1);
    // And the controls follow right below both.
    const controls = (await page.getByRole('button', { name: /^(Play|Pause)$/ }).boundingBox())!;
    const canvasOnPage = (await scene(page).locator('canvas').boundingBox())!;
    expect(controls.y - (canvasOnPage.y + canvasOnPage.height)).toBeLessThan(40);
    await screenshot(page, 'trial-viewer-layout');

    // On a phone's width the videos go below the view, and nothing is wider than the screen (the canvas
    // held the flex row at its drawn width, 1048 px, and the page scrolled sideways).
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 400, height: 800 });
    try {
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 })
        .toBeLessThanOrEqual(400);
      const narrow = (await scene(page).locator('canvas').boundingBox())!;
      expect(narrow.x + narrow.width).toBeLessThanOrEqual(400);
      await screenshot(page, 'trial-viewer-layout-phone');
    } finally {
      await page.setViewportSize(wide);
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
      const samples = await videosAgainstClock(page, Number.parseFloat(speed));
      await page.getByRole('button', { name: 'Pause' }).click();
      // Software WebGL draws only a few frames a second; enough to see the clocks drift apart.
      expect(samples.length).toBeGreaterThanOrEqual(4);
      expect(worstGap(samples), `largest video-to-clock difference at ${speed}`).toBeLessThanOrEqual(FRAME_S);
    }
  });

  it("brings every video within a frame of the viewer's time after a pause and after a seek", async () => {
    await page.goto(`/session/${session.id}`);
    await page.getByRole('cell', { name: 'jump', exact: true }).click();
    await scene(page).locator('canvas').waitFor();
    const expectVideosOnClock = async (when: string) => {
      // Once every video has stopped and finished seeking, its time and the clock's are read at one moment.
      await eventually(() =>
        page
          .locator('video')
          .evaluateAll((videos) => (videos as HTMLVideoElement[]).every((video) => video.paused && !video.seeking)),
      ).toBe(true);
      const [sample] = await videosAgainstClock(page, 1, 0);
      expect(worstGap([sample]), `videos against the clock ${when}`).toBeLessThanOrEqual(FRAME_S);
    };
    // Autoplay starts after 2 s (spec §9); each pause comes at another moment of the loop.
    await page.getByRole('button', { name: 'Pause' }).waitFor({ timeout: 20_000 });
    for (const playedMs of [700, 1100, 400]) {
      await page.waitForTimeout(playedMs);
      await page.getByRole('button', { name: 'Pause' }).click();
      await expectVideosOnClock(`after ${playedMs} ms of play and a pause`);
      await page.getByRole('button', { name: 'Play' }).click();
    }
    // A seek while playing, paused at once: the pause lands while the videos seek.
    for (const timeS of [1.3, 1.85]) {
      await seek(page, timeS);
      await page.getByRole('button', { name: 'Pause' }).click();
      await expectVideosOnClock(`after seeking ${timeS} s`);
      await page.getByRole('button', { name: 'Play' }).click();
    }
    await screenshot(page, 'trial-viewer-after-seek');
    await page.getByRole('button', { name: 'Pause' }).click();
  });

  it('says when a trial has only unsynchronised videos and no 3D result', async () => {
    await page.getByRole('cell', { name: 'walk_raw', exact: true }).click();
    await page.getByText(messages.resultNotFound(RESULT_TAGS.visualizerTransforms), { exact: true }).waitFor();
    await page.getByText(messages.videosNotSynchronized, { exact: true }).waitFor();
    await expect(page.locator('video').count()).resolves.toBe(1);
  });

  it('a trial done before its synchronised videos plays with the uploaded ones, saying the videos are being prepared and how far, or why they are missing', async () => {
    for (const [name, shown] of [
      ['jump_pending', `${FOLLOW_UP_STAGES.sync_videos} 40%`],
      ['jump_failed', processingMessages.syncVideosInterrupted],
    ]) {
      await page.getByRole('cell', { name, exact: true }).click();
      await scene(page).locator('canvas').waitFor();
      const notice = page.getByTestId('videos-notice');
      await notice.getByText(messages.videosNotSynchronized, { exact: true }).waitFor();
      await notice.getByText(shown, { exact: true }).waitFor();
      await expect(page.getByTestId('trial-videos').locator('video').count()).resolves.toBe(2);
      await eventually(() => scene(page).getAttribute('data-frame')).not.toBeNull();
    }
    await screenshot(page, 'trial-viewer-videos-failed');
  });

  it('opens a processed neutral with its image and what it is for, without a missing-result alert', async () => {
    await page.getByRole('cell', { name: 'neutral', exact: true }).click();
    await page.getByText(messages.neutralHasNoMotion, { exact: true }).waitFor();
    await eventually(() =>
      page
        .getByTestId('neutral-images')
        .getByRole('img', { name: 'Neutral pose, camera 1' })
        .evaluate((image) => (image as HTMLImageElement).naturalWidth),
    ).toBe(320);
    await expect(page.getByText(messages.resultNotFound(RESULT_TAGS.visualizerTransforms)).count()).resolves.toBe(0);
    await screenshot(page, 'trial-viewer-neutral');
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

  it('the owner makes the session public on its screen and copies the link; a visitor reads it read-only, until it is private again', async () => {
    await page.goto(`/session/${session.id}`);
    const toggle = page.getByRole('switch', { name: 'Public session' });
    await expect(toggle.isChecked()).resolves.toBe(false);
    await expect(page.getByRole('textbox', { name: 'Public link' }).count()).resolves.toBe(0);
    await toggle.click();
    const link = page.getByRole('textbox', { name: 'Public link' });
    await expect(link.inputValue()).resolves.toBe(`${server.baseUrl}/session/${session.id}`);
    await page.getByTestId('session-sharing').getByRole('button', { name: 'Copy' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${server.baseUrl}/session/${session.id}`);
    await expect(callApi<Session>(server.baseUrl, token, `/sessions/${session.id}/`)).resolves.toMatchObject({
      public: true,
    });
    await screenshot(page, 'session-public-toggle');

    const visitor = await (await newContext(browser, server.baseUrl)).newPage();
    await visitor.goto(copied);
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
    // The toggle is the owner's alone.
    await expect(visitor.getByRole('switch', { name: 'Public session' }).count()).resolves.toBe(0);
    await chartJointAngles(visitor);
    await eventually(() => chart(visitor).getAttribute('aria-label')).toMatch(/2 series/);

    // Private again: the link no longer opens it.
    await toggle.click();
    await eventually(() => toggle.isChecked()).toBe(false);
    await expect(page.getByRole('textbox', { name: 'Public link' }).count()).resolves.toBe(0);
    await visitor.goto(copied);
    await visitor.getByText('This session cannot be shown.').waitFor();
    await visitor.context().close();
  });
});
