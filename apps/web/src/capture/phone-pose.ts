import type { KinetraceKeypoints2d } from '@kinetrace/contracts';
import { NoPersonFoundError } from '@kinetrace/mocap/pose/errors';
import {
  POSE_INPUT_MAX_SIDE_PX,
  type PoseEstimate,
  type PoseModelName,
  type PoseRequest,
} from '@kinetrace/mocap/pose/pose-model';
import type { PoseInference } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { RgbImage } from '@kinetrace/mocap/pose/region-sampler';
import { trackPerson, type PoseInputFrame } from '@kinetrace/mocap/pose/track-person';
import type { Keypoints2D } from '@kinetrace/mocap/pose/types';
import { keypoints2DToJson } from '@kinetrace/mocap/formats/keypoints-2d-json';
import { phonePoseUnavailable, type PhonePoseAnswer, type PhonePoseRequest } from './phone-pose-protocol.ts';

/**
 * The engine's pose model on the phone (issue 24), for the capture page: the model runs in a worker
 * (phone-pose-worker.ts) on the phone's GPU, and the person is tracked here, on the page, with the engine's
 * own tracking (trackPerson), as the server's pose worker threads serve its tracking. This module is loaded
 * only by the capture page (a dynamic import), so the app's first load does not carry it.
 */

/** The inference backend, as the keypoints file names it. */
const PHONE_POSE_BACKEND = 'tfjs-webgl';

/**
 * WebGL drawn by the CPU: a phone or browser without graphics acceleration. The model then runs at a tenth of
 * a frame a second (measured in headless chromium on SwiftShader), far from helping, after a minute or more
 * of compiling shaders at full CPU.
 */
const SOFTWARE_RENDERER = /swiftshader|llvmpipe|softpipe|software/i;

/**
 * The renderer of WebGL 2 on an offscreen canvas (what TensorFlow.js's WebGL backend draws on in a worker), or
 * null without it: read before anything is downloaded.
 */
function offscreenWebglRenderer(): string | null {
  const gl = typeof OffscreenCanvas === 'undefined' ? null : new OffscreenCanvas(1, 1).getContext('webgl2');
  if (!gl) return null;
  const debugInfo = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(debugInfo ? debugInfo.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return renderer;
}

/** The pose model in its worker: a pose pool of one, as trackPerson takes it. */
export class PhonePose implements PoseInference {
  readonly size = 1;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (answer: PhonePoseAnswer) => void }>();

  private constructor(
    readonly model: PoseModelName,
    private readonly worker: Worker,
  ) {
    worker.onmessage = ({ data }: MessageEvent<PhonePoseAnswer>) => {
      this.pending.get(data.id)?.resolve(data);
      this.pending.delete(data.id);
    };
    worker.onerror = (event) => this.failAll(event.message || 'the pose worker stopped');
  }

  /**
   * Starts the worker and loads the model in it. A phone without graphics acceleration cannot help, and is
   * refused unless `allowSoftwareRendering` (for tests that compare its keypoints with the server's).
   */
  static async load(model: PoseModelName, options: { allowSoftwareRendering?: boolean } = {}): Promise<PhonePose> {
    const renderer = offscreenWebglRenderer();
    if (renderer === null) throw new Error(phonePoseUnavailable.noWebgl);
    if (SOFTWARE_RENDERER.test(renderer) && !options.allowSoftwareRendering)
      throw new Error(phonePoseUnavailable.noAcceleration);
    const worker = new Worker(new URL('./phone-pose-worker.ts', import.meta.url), { type: 'module' });
    const pose = new PhonePose(model, worker);
    try {
      await pose.ask({ kind: 'load', model, origin: location.origin });
      return pose;
    } catch (error) {
      pose.dispose();
      throw error;
    }
  }

  async infer(image: RgbImage, request: PoseRequest): Promise<PoseEstimate> {
    const answer = await this.ask({ kind: 'infer', image, request });
    if (answer.kind !== 'estimate') throw new Error('the pose worker gave no estimate');
    return answer.estimate;
  }

  dispose(): void {
    this.worker.terminate();
    this.failAll('the pose worker was stopped');
  }

  private ask(request: DistributiveOmit<PhonePoseRequest, 'id'>): Promise<PhonePoseAnswer> {
    const id = this.nextId++;
    return new Promise<PhonePoseAnswer>((resolve) => {
      this.pending.set(id, { resolve });
      this.worker.postMessage({ ...request, id } as PhonePoseRequest);
    }).then((answer) => {
      if (answer.kind === 'failed') throw new Error(answer.message);
      return answer;
    });
  }

  private failAll(message: string): void {
    for (const [id, { resolve }] of this.pending) resolve({ kind: 'failed', id, message });
    this.pending.clear();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * The frames the model can keep up with, from the preview (it shows what the recorder records): each one
 * offered by the preview's frame callback is taken only while the tracker waits for a frame, and skipped
 * while it is busy, so the model never holds up the camera or the recorder. Each is downscaled as the server
 * downscales before pose (POSE_INPUT_MAX_SIDE_PX) and stamped with its time on the recorded video's timeline.
 */
class PreviewFrames implements AsyncIterable<PoseInputFrame> {
  private waiting: ((next: IteratorResult<PoseInputFrame>) => void) | null = null;
  private ended = false;
  private readonly canvas = document.createElement('canvas');
  private readonly context = this.canvas.getContext('2d', { willReadFrequently: true });

  constructor(
    private readonly preview: HTMLVideoElement,
    private readonly videoTimeS: (capturedAtMs: number) => number | null,
    private readonly capturedAtMs: (now: DOMHighResTimeStamp, metadata: VideoFrameCallbackMetadata) => number,
  ) {
    preview.requestVideoFrameCallback(this.offer);
  }

  private readonly offer = (now: DOMHighResTimeStamp, metadata: VideoFrameCallbackMetadata) => {
    if (this.ended) return;
    const timestampS = this.videoTimeS(this.capturedAtMs(now, metadata));
    const take = this.waiting;
    if (take && timestampS !== null) {
      this.waiting = null;
      take({ done: false, value: this.grab(timestampS, metadata.width, metadata.height) });
    }
    this.preview.requestVideoFrameCallback(this.offer);
  };

  /** The frame the preview shows now, as RGB pixels at the model's input size. */
  private grab(timestampS: number, videoWidth: number, videoHeight: number): PoseInputFrame {
    const scale = Math.min(1, POSE_INPUT_MAX_SIDE_PX / Math.max(videoWidth, videoHeight));
    const width = Math.round(videoWidth * scale);
    const height = Math.round(videoHeight * scale);
    if (this.canvas.width !== width || this.canvas.height !== height)
      [this.canvas.width, this.canvas.height] = [width, height];
    const context = this.context!;
    context.drawImage(this.preview, 0, 0, width, height);
    const rgba = context.getImageData(0, 0, width, height).data;
    const data = new Uint8Array(width * height * 3);
    for (let source = 0, target = 0; source < rgba.length; source += 4) {
      data[target++] = rgba[source];
      data[target++] = rgba[source + 1];
      data[target++] = rgba[source + 2];
    }
    return { timestampS, width, height, data };
  }

  end(): void {
    this.ended = true;
    this.waiting?.({ done: true, value: undefined });
    this.waiting = null;
  }

  [Symbol.asyncIterator](): AsyncIterator<PoseInputFrame> {
    return {
      next: () =>
        this.ended
          ? Promise.resolve({ done: true, value: undefined })
          : new Promise((resolve) => {
              this.waiting = resolve;
            }),
    };
  }
}

/**
 * When recording stops, the frame in flight finishes (tens of milliseconds on a phone's GPU); the video
 * waits for it no longer than this, and goes without keypoints past it.
 */
const FINISH_WAIT_MS = 2_000;

/** The keypoints found while one trial records, and how many frames a second the phone kept up with. */
export class PoseWhileRecording {
  private readonly frames: PreviewFrames;
  private readonly startedAtMs = performance.now();
  private framesDone = 0;
  private readonly result: Promise<Keypoints2D | null>;

  constructor(
    private readonly pose: PhonePose,
    preview: HTMLVideoElement,
    videoTimeS: (capturedAtMs: number) => number | null,
    capturedAtMs: (now: DOMHighResTimeStamp, metadata: VideoFrameCallbackMetadata) => number,
  ) {
    this.frames = new PreviewFrames(preview, videoTimeS, capturedAtMs);
    const imageSize = { width: preview.videoWidth, height: preview.videoHeight };
    this.result = trackPerson(this.frames, pose, {
      imageSize,
      onFrameResult: () => this.framesDone++,
      // The subject only: the server checks them against its own detection, which follows the others.
      followOthers: false,
    }).catch((error: unknown) => {
      // Nobody in view the whole time: there is nothing to send.
      if (error instanceof NoPersonFoundError) return null;
      throw error;
    });
  }

  /** Frames processed per second of recording so far. */
  get ratePerSecond(): number {
    const elapsedS = (performance.now() - this.startedAtMs) / 1000;
    return elapsedS > 0 ? this.framesDone / elapsedS : 0;
  }

  /**
   * Stops taking frames; the keypoints of those taken as a Kinetrace keypoints JSON (null when nobody was
   * found), and the rate achieved.
   */
  async stop(): Promise<{ keypoints: Blob | null; ratePerSecond: number }> {
    const ratePerSecond = this.ratePerSecond;
    this.frames.end();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), FINISH_WAIT_MS)));
    const keypoints = await Promise.race([this.result, late]).finally(() => clearTimeout(timer));
    if (!keypoints) return { keypoints: null, ratePerSecond };
    const file = {
      ...keypoints2DToJson(keypoints),
      producer: { model: this.pose.model, backend: PHONE_POSE_BACKEND, achievedHz: ratePerSecond },
    } satisfies KinetraceKeypoints2d;
    return { keypoints: new Blob([JSON.stringify(file)], { type: 'application/json' }), ratePerSecond };
  }
}
