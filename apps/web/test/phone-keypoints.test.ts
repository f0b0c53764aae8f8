import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPoseModel } from '../../../packages/mocap/src/pose/create-pose-model.ts';
import {
  DEFAULT_POSE_MODEL,
  POSE_INPUT_MAX_SIDE_PX,
  type PoseRequest,
} from '../../../packages/mocap/src/pose/pose-model.ts';
import { decodeFrames } from '../../../packages/mocap/src/video/decode.ts';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { makeUser, repoRoot, startSignedIn, stopSignedIn, type SignedInBrowser } from './browser-harness.ts';
import { DEMO_PHONE_SOURCES } from './fake-cameras/demo-phone-videos.ts';

/**
 * Headless chromium has no GPU: its WebGL is ANGLE's software renderer, where compiling the model's shaders
 * takes a minute or more on a busy machine (seconds on a phone).
 */
const MODEL_READY_TIMEOUT_MS = 240_000;
/** Frames of the demo compared between the browser and Node (consecutive, so each is tracked from the one before). */
const COMPARED_FRAMES = 4;
/** Keypoints both runs are confident of (MediaPipe's visibility threshold). */
const CONFIDENT = 0.5;

/**
 * The capture page runs the engine's pose model in a worker of the phone's browser (issue 24). A headless
 * chromium has no graphics acceleration, so its capture page refuses to run the model while it records (the
 * phones of capture-phones.test.ts show that); here the model is loaded regardless and its keypoints compared
 * with the engine's in Node on the same frames.
 */
describeWithData(
  "a phone's browser finds the keypoints the engine finds in Node",
  [referencePath(DEMO_PHONE_SOURCES.trial('cam01'))],
  () => {
    let signedIn: SignedInBrowser;

    beforeAll(async () => {
      signedIn = await startSignedIn(makeUser('phonekp'));
    });

    afterAll(async () => {
      if (signedIn) await stopSignedIn(signedIn);
    });

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
        await signedIn.page.evaluate(
          `import(${JSON.stringify(modulePath)}).then((module) => { globalThis.phonePose = module; })`,
        );
        const inBrowser = await signedIn.page.evaluate(
          async ({ model, frames, requests }) => {
            const { phonePose } = globalThis as unknown as { phonePose: typeof import('../src/capture/phone-pose.ts') };
            const pose = await phonePose.PhonePose.load(model, { allowSoftwareRendering: true });
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
