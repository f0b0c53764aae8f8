import type { RecordingOrder } from '@kinetrace/contracts';
import { recordableMimeTypes } from './camera.ts';
import type { ServerClock } from './server-clock.ts';

/** A trial's video as this phone recorded it. */
export interface RecordedVideo {
  trialId: string;
  trialName: string;
  blob: Blob;
  mimeType: string;
  /** When the first frame was taken, on the server's clock (null when the browser could not tell). */
  firstFrameMs: number | null;
  /** The 2D keypoints the phone found while recording (a Kinetrace keypoints JSON), until they are sent. */
  keypoints?: Blob | null;
}

/** MediaRecorder hands over data every second, so a crash loses at most the last second. */
const TIMESLICE_MS = 1_000;

/**
 * When a frame the preview shows was taken, on the local performance.now() clock: its capture time where
 * the camera reports one, else when it is shown.
 */
export const frameCapturedAtMs = (now: DOMHighResTimeStamp, metadata: VideoFrameCallbackMetadata): number =>
  metadata.captureTime ?? metadata.expectedDisplayTime ?? now;

/** A local performance.now() time on the server's clock. */
const performanceToServerMs = (clock: ServerClock, performanceMs: number) =>
  clock.toServerMs(performance.timeOrigin + performanceMs);

/**
 * Records one trial from the open camera: starts when the server's clock reaches the order's start (every
 * phone of the session starts together), notes when the first frame was really taken, and stops when told
 * to or at the order's time limit.
 */
export class TrialRecorder {
  private recorder: MediaRecorder | null = null;
  private readonly chunks: Blob[] = [];
  private firstFrameMs: number | null = null;
  /** When the first recorded frame was taken, on the local performance.now() clock (null until it shows). */
  private firstFrameLocalMs: number | null = null;
  private startedAtLocalMs: number | null = null;
  private limitTimer: ReturnType<typeof setTimeout> | undefined;
  private startTimer: ReturnType<typeof setTimeout> | undefined;
  private stopped: Promise<RecordedVideo> | null = null;
  private discarded = false;

  constructor(
    private readonly stream: MediaStream,
    readonly order: RecordingOrder,
    private readonly clock: ServerClock,
    /** Called when the recording stopped by itself at the time limit. */
    private readonly onLimitReached: () => void,
    /** The preview showing the stream: its frame callbacks tell when the first recorded frame was taken. */
    private readonly preview: HTMLVideoElement | null,
  ) {}

  /** Resolves once recording has begun (at the order's start on the server's clock). */
  start(): Promise<void> {
    const waitMs = Math.max(0, this.order.start_at_ms - this.clock.now());
    return new Promise((resolve, reject) => {
      this.startTimer = setTimeout(() => {
        if (this.discarded) return resolve();
        try {
          this.begin();
          resolve();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }, waitMs);
    });
  }

  private begin(): void {
    const mimeType = recordableMimeTypes()[0];
    const recorder = new MediaRecorder(this.stream, mimeType ? { mimeType } : undefined);
    this.recorder = recorder;
    recorder.ondataavailable = (event) => {
      if (event.data.size > 0) this.chunks.push(event.data);
    };
    recorder.onstart = (event) => {
      this.firstFrameMs ??= performanceToServerMs(this.clock, event.timeStamp);
    };
    // The first frame the preview shows after the start is the first the recorder took: its capture time
    // (camera sources report one) is more exact than the start event.
    this.preview?.requestVideoFrameCallback?.((now, metadata) => {
      this.firstFrameLocalMs = frameCapturedAtMs(now, metadata);
      this.firstFrameMs = performanceToServerMs(this.clock, this.firstFrameLocalMs);
    });
    recorder.start(TIMESLICE_MS);
    this.startedAtLocalMs = Date.now();
    this.limitTimer = setTimeout(() => {
      this.onLimitReached();
    }, this.order.limit_s * 1000);
  }

  /**
   * Where a frame taken at `capturedAtMs` (frameCapturedAtMs) falls on the recorded video's timeline, in
   * seconds from its first frame; null before the first frame (or without a preview to tell it).
   */
  videoTimeS(capturedAtMs: number): number | null {
    return this.firstFrameLocalMs === null || capturedAtMs < this.firstFrameLocalMs
      ? null
      : (capturedAtMs - this.firstFrameLocalMs) / 1000;
  }

  /** How long it has been recording, in ms (0 before the start). */
  elapsedMs(): number {
    return this.startedAtLocalMs === null ? 0 : Date.now() - this.startedAtLocalMs;
  }

  get recording(): boolean {
    return this.recorder?.state === 'recording';
  }

  /** Stops and gives the video (the same promise however often it is asked). */
  stop(): Promise<RecordedVideo> {
    this.stopped ??= new Promise((resolve, reject) => {
      clearTimeout(this.startTimer);
      clearTimeout(this.limitTimer);
      const recorder = this.recorder;
      const finish = () => {
        const mimeType = recorder?.mimeType || this.chunks[0]?.type || 'video/webm';
        resolve({
          trialId: this.order.trial_id,
          trialName: this.order.trial_name,
          blob: new Blob(this.chunks, { type: mimeType }),
          mimeType,
          firstFrameMs: this.firstFrameMs,
        });
      };
      if (!recorder) return reject(new Error('The recording had not started yet.'));
      if (recorder.state === 'inactive') return finish();
      recorder.addEventListener('stop', finish, { once: true });
      recorder.stop();
    });
    return this.stopped;
  }

  /** Drops the recording (the researcher cancelled the trial). */
  discard(): void {
    this.discarded = true;
    clearTimeout(this.startTimer);
    clearTimeout(this.limitTimer);
    if (this.recorder && this.recorder.state !== 'inactive') this.recorder.stop();
    this.chunks.length = 0;
  }
}
