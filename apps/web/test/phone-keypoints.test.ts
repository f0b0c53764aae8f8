import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PHONE_KEYPOINTS_UPLOAD, type RecordingStatus, type Session } from '@kinetrace/contracts';
import { schema } from '@kinetrace/db';
import { createPoseModel } from '../../../packages/mocap/src/pose/create-pose-model.ts';
import {
  DEFAULT_POSE_MODEL,
  POSE_INPUT_MAX_SIDE_PX,
  type PoseRequest,
} from '../../../packages/mocap/src/pose/pose-model.ts';
import { decodeFrames } from '../../../packages/mocap/src/video/decode.ts';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { MIN_HELPFUL_KEYPOINT_RATE_HZ } from '../src/capture/keypoints-rate.ts';
import { callApi, makeUser, repoRoot, startSignedIn, stopSignedIn, type SignedInBrowser } from './browser-harness.ts';
import { DEMO_PHONE_SOURCES, makeDemoPhoneVideos } from './fake-cameras/demo-phone-videos.ts';
import { FakePhone } from './fake-cameras/fake-phone.ts';

const CAMERAS = ['cam01', 'cam03'];
/**
 * Headless chromium has no GPU: its WebGL is ANGLE's software renderer, where compiling the model's shaders
 * takes a minute or more on a busy machine (seconds on a phone).
 */
const MODEL_READY_TIMEOUT_MS = 240_000;
/** Frames of the demo compared between the browser and Node (consecutive, so each is tracked from the one before). */
const COMPARED_FRAMES = 4;
/** Keypoints both runs are confident of (MediaPipe's visibility threshold). */
const CONFIDENT = 0.5;

/** Whether the tus creation request carries `kind: keypoints` (tus metadata values are base64). */
const isKeypointsCreation = (method: string, metadata: string | undefined) =>
  method === 'POST' &&
  (metadata ?? '').split(',').some((pair) => {
    const [key, value = ''] = pair.trim().split(' ');
    return key === 'kind' && Buffer.from(value, 'base64').toString() === PHONE_KEYPOINTS_UPLOAD.kind;
  });

/**
 * The capture page runs the engine's pose model in the phone's browser (issue 24): one phone with WebGL finds
 * keypoints while it records and shows the rate it keeps up with, the other (no WebGL; a recording needs two) finds none; both
 * upload their videos whatever the keypoints come to. The browser's keypoints are then compared with the
 * engine's in Node on the same frames.
 */
describeWithData(
  "a phone finds its keypoints with the engine's pose model while it records",
  CAMERAS.map((camera) => referencePath(DEMO_PHONE_SOURCES.trial(camera))),
  () => {
    let signedIn: SignedInBrowser;
    let workDir: string;
    let phones: FakePhone[];
    let pages: Page[];
    let sessionId: string;
    /** Keypoints uploads the phones started. */
    const keypointsUploads: string[] = [];

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'kinetrace-phone-keypoints-'));
      let videos;
      [videos, signedIn] = await Promise.all([
        makeDemoPhoneVideos(workDir, CAMERAS),
        startSignedIn(makeUser('phonekp')),
      ]);
      const { server, token } = signedIn;
      [{ id: sessionId }] = await callApi<Session[]>(server.baseUrl, token, '/sessions/new/');
      const [row] = await server.backends.database.db
        .select()
        .from(schema.sessions)
        .where(eq(schema.sessions.id, sessionId));
      const captureUrl = `${server.baseUrl}/capture/${row.pairingToken}`;
      phones = videos.map(({ camera }) => new FakePhone(camera.name, join(workDir, `profile-${camera.name}`)));
      pages = await Promise.all(
        phones.map((phone, index) => phone.open(videos[index].trial, captureUrl, { webgl: index === 0 })),
      );
      for (const [index, page] of pages.entries())
        await page.route('**/api/capture/uploads/', async (route) => {
          const request = route.request();
          if (isKeypointsCreation(request.method(), (await request.headerValue('upload-metadata')) ?? undefined))
            keypointsUploads.push(CAMERAS[index]);
          await route.continue();
        });
    }, MODEL_READY_TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all((phones ?? []).map((phone) => phone.close()));
      if (signedIn) await stopSignedIn(signedIn);
      if (workDir) await rm(workDir, { recursive: true, force: true });
    });

    const keypointsText = (page: Page) => page.getByTestId('phone-keypoints');

    it(
      'shows the rate it keeps up with while recording, sends keypoints only when that helps, and its video either way',
      async () => {
        const [withWebgl] = pages;
        await keypointsText(withWebgl)
          .filter({ hasText: 'Keypoints: this phone finds them while it records.' })
          .waitFor({ timeout: MODEL_READY_TIMEOUT_MS });

        const { server, token } = signedIn;
        // Compiling the shaders in software held the page for a while: its polls (its heartbeat) resume first.
        await expect
          .poll(
            async () =>
              (await callApi<RecordingStatus>(server.baseUrl, token, `/sessions/${sessionId}/status/`))
                .n_cameras_connected,
            { timeout: 30_000 },
          )
          .toBe(CAMERAS.length);
        await callApi(server.baseUrl, token, `/sessions/${sessionId}/record/?name=walk_1`);
        await withWebgl
          .getByTestId('phone-recording')
          .filter({ hasText: /Recording walk_1 00:0[5-9]/ })
          .waitFor();
        await keypointsText(withWebgl)
          .filter({ hasText: /^Keypoints on this phone: [\d.]+ per second$/ })
          .waitFor();
        await callApi(server.baseUrl, token, `/sessions/${sessionId}/stop/`);

        for (const page of pages)
          await page
            .getByTestId('phone-upload')
            .filter({ hasText: 'Video of walk_1: uploaded' })
            .waitFor({ timeout: 60_000 });
        const caption = (await keypointsText(withWebgl).textContent()) ?? '';
        const rate = Number(/Keypoints on this phone: ([\d.]+) per second/.exec(caption)?.[1]);
        console.log(`Keypoints in headless chromium (software WebGL): ${rate} per second`);
        if (rate >= MIN_HELPFUL_KEYPOINT_RATE_HZ) {
          expect(caption).toContain('sent with the video');
          expect(keypointsUploads).toEqual(['cam01']);
        } else {
          expect(caption).toContain('too few to help, the server finds them itself');
          expect(keypointsUploads).toEqual([]);
        }
      },
      MODEL_READY_TIMEOUT_MS + 120_000,
    );

    it(
      'finds the same keypoints as the engine in Node on the same frames (same model, WebGL instead of WebAssembly)',
      async () => {
        const frames = [];
        for await (const frame of decodeFrames(referencePath(DEMO_PHONE_SOURCES.trial('cam01')), {
          pixelFormat: 'rgb24',
          maxWidth: POSE_INPUT_MAX_SIDE_PX,
          maxHeight: POSE_INPUT_MAX_SIDE_PX,
          endFrame: COMPARED_FRAMES,
        }))
          frames.push(frame);
        // Node's run tracks the person; the browser is asked for the same regions, so only the backends differ.
        const model = createPoseModel(DEFAULT_POSE_MODEL);
        await model.load();
        const requests: PoseRequest[] = [];
        const inNode: Float32Array[] = [];
        let region: PoseRequest['region'] = null;
        try {
          for (const frame of frames) {
            const estimate = await model.infer(frame, { region, preferNear: null });
            expect(estimate.found).toBe(true);
            requests.push({ region, preferNear: null });
            inNode.push(estimate.keypoints);
            region = estimate.trackingRegion;
          }
        } finally {
          model.dispose();
        }

        const manifest = JSON.parse(
          await readFile(join(repoRoot, 'apps/web/dist/.vite/manifest.json'), 'utf8'),
        ) as Record<string, { file: string }>;
        const modulePath = `/${manifest['src/capture/phone-pose.ts'].file}`;
        // The capture page's own chunk (an import() here would be rewritten by vitest: the page is told in text).
        await pages[0].evaluate(
          `import(${JSON.stringify(modulePath)}).then((module) => { globalThis.phonePose = module; })`,
        );
        const inBrowser = await pages[0].evaluate(
          async ({ model, frames, requests }) => {
            const { phonePose } = globalThis as unknown as { phonePose: typeof import('../src/capture/phone-pose.ts') };
            const pose = await phonePose.loadPhonePose(model);
            const found: number[][] = [];
            for (const [index, frame] of frames.entries()) {
              const data = Uint8Array.from(atob(frame.base64), (char) => char.charCodeAt(0));
              const estimate = await pose.infer({ width: frame.width, height: frame.height, data }, requests[index]);
              found.push(Array.from(estimate.keypoints));
            }
            pose.dispose();
            return found;
          },
          {
            model: DEFAULT_POSE_MODEL,
            frames: frames.map(({ width, height, data }) => ({
              width,
              height,
              base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
            })),
            requests,
          },
        );

        const differencesPx: number[] = [];
        inNode.forEach((node, frame) => {
          for (let k = 0; k < node.length; k += 3) {
            const browser = inBrowser[frame];
            if (node[k + 2] < CONFIDENT || browser[k + 2] < CONFIDENT) continue;
            differencesPx.push(Math.hypot(node[k] - browser[k], node[k + 1] - browser[k + 1]));
          }
        });
        differencesPx.sort((a, b) => a - b);
        const median = differencesPx[Math.floor(differencesPx.length / 2)];
        const max = differencesPx.at(-1)!;
        console.log(
          `Browser (WebGL) vs Node (WebAssembly) keypoints on ${frames.length} frames of ${frames[0].width}x${frames[0].height}: ` +
            `median ${median.toFixed(3)} px, max ${max.toFixed(3)} px over ${differencesPx.length} keypoints`,
        );
        expect(differencesPx.length).toBeGreaterThan(frames.length * 10);
        expect(median).toBeLessThan(1);
        expect(max).toBeLessThan(5);
      },
      MODEL_READY_TIMEOUT_MS,
    );
  },
);
