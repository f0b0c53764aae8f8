import { messages, type CaptureState, type RecordingOrder } from '@kinetrace/contracts';
import { DEFAULT_POSE_MODEL } from '@kinetrace/mocap/pose/pose-model';
import { connectDevice, fetchCaptureState } from '../api/capture.ts';
import { ApiError } from '../app/api-client.ts';
import { describeCamera, openCamera, requestFramerate } from './camera.ts';
import { deviceModel } from './device-model.ts';
import { captureDeviceId } from './device-id.ts';
import { MIN_HELPFUL_KEYPOINT_RATE_HZ } from './keypoints-rate.ts';
import { pendingVideos } from './pending-videos.ts';
import { CLOCK_REMEASURE_INTERVAL_MS, ServerClock } from './server-clock.ts';
import { frameCapturedAtMs, TrialRecorder, type RecordedVideo } from './trial-recorder.ts';
import { UploadRefusedError, uploadKeypoints, uploadVideo } from './video-upload.ts';

type PhonePoseModule = typeof import('./phone-pose.ts');
type PhonePose = import('./phone-pose.ts').PhonePose;
type PoseWhileRecording = InstanceType<PhonePoseModule['PoseWhileRecording']>;

/**
 * The phone polls its state every half second: that is also its heartbeat (the server counts a phone as
 * connected while it polled in the last 5 s), and a recording order reaches it within half a second.
 */
export const PHONE_POLL_INTERVAL_MS = 500;

export interface UploadView {
  trialId: string;
  trialName: string;
  sentBytes: number;
  totalBytes: number;
  status: 'uploading' | 'done' | 'failed';
  message: string | null;
}

/** Everything the capture page shows. */
export interface PhoneView {
  phase: 'starting' | 'connected' | 'reconnecting' | 'failed';
  /** Why the page cannot work (camera refused, not https, pairing link no longer valid). */
  error: string | null;
  stream: MediaStream | null;
  sessionName: string;
  camerasConnected: number;
  videosUploaded: number;
  recording: { trialName: string; elapsedMs: number; waitingForStart: boolean } | null;
  uploads: UploadView[];
  /** The phone's own 2D keypoints (issue 24): the rate it keeps up with, and whether it sends them. */
  keypoints: KeypointsView;
}

export interface KeypointsView {
  /** 'loading' the model, 'ready' to run, 'unavailable' on this phone (message says why). */
  status: 'loading' | 'ready' | 'unavailable';
  /** Frames a second it processed while recording the latest trial (null before any). */
  ratePerSecond: number | null;
  /** Whether the latest trial's keypoints go with its video (null while it records, or before any). */
  sent: boolean | null;
  message: string | null;
}

const initialView: PhoneView = {
  phase: 'starting',
  error: null,
  stream: null,
  sessionName: '',
  camerasConnected: 0,
  videosUploaded: 0,
  recording: null,
  uploads: [],
  keypoints: { status: 'loading', ratePerSecond: null, sent: null, message: null },
};

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The phone side of a session: opens the camera, pairs with the session of the QR code's token, follows the
 * session's state, records when the researcher records (all phones start at the same server time), and
 * uploads each video resumably, keeping it on the phone until the server has it.
 */
export class CaptureController {
  private view: PhoneView = initialView;
  private readonly listeners = new Set<() => void>();
  private readonly clock = new ServerClock();
  private readonly deviceId = captureDeviceId();
  private active: TrialRecorder | null = null;
  /** The pose running on the active recording's frames, when its order asks for the phone's keypoints. */
  private activePose: PoseWhileRecording | null = null;
  /** The engine's pose model in this browser, loaded once the phone is paired (null until asked for). */
  private pose: Promise<{ module: PhonePoseModule; model: PhonePose } | null> | null = null;
  /** Trials this page has recorded already: an order still showing after a stop at the limit is not recorded twice. */
  private readonly recordedTrialIds = new Set<string>();
  /** Videos kept until uploaded, by trial id. */
  private readonly stored = new Map<string, RecordedVideo>();
  private readonly uploading = new Map<string, () => void>();
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private clockTimer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  private firstState = true;

  constructor(
    private readonly pairingToken: string,
    /** The preview element, for the first frame's capture time. */
    private readonly preview: () => HTMLVideoElement | null,
  ) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  snapshot = () => this.view;

  private update(change: Partial<PhoneView>): void {
    this.view = { ...this.view, ...change };
    for (const listener of this.listeners) listener();
  }

  private fail(message: string): void {
    this.update({ phase: 'failed', error: message });
    this.close();
  }

  async start(): Promise<void> {
    let stream: MediaStream;
    try {
      stream = await openCamera();
    } catch (error) {
      return this.fail(errorMessage(error));
    }
    if (this.closed) return stream.getTracks().forEach((track) => track.stop());
    this.update({ stream });
    // A phone on a tripod must not lock its screen: a locked phone stops polling and misses the recording.
    void navigator.wakeLock?.request('screen').catch(() => undefined);
    try {
      await this.clock.measure();
      const answer = await connectDevice(this.pairingToken, {
        device_id: this.deviceId,
        capabilities: describeCamera(stream, await deviceModel()),
      });
      this.update({ sessionName: answer.session_name });
      if (answer.phone_keypoints) this.pose = this.loadPose();
      for (const video of await pendingVideos.all()) this.stored.set(video.trialId, video);
    } catch (error) {
      return this.fail(
        error instanceof ApiError && error.status === 404 ? messages.pairingInvalid : errorMessage(error),
      );
    }
    this.clockTimer = setInterval(() => void this.clock.measure().catch(() => undefined), CLOCK_REMEASURE_INTERVAL_MS);
    void this.poll();
  }

  /** Loads the pose model ahead of the first recording (a few MB, cached), so that recording starts with it. */
  private async loadPose(): Promise<{ module: PhonePoseModule; model: PhonePose } | null> {
    try {
      const module = await import('./phone-pose.ts');
      const model = await module.PhonePose.load(DEFAULT_POSE_MODEL);
      this.setKeypoints({ status: 'ready' });
      return { module, model };
    } catch (error) {
      this.setKeypoints({
        status: 'unavailable',
        message: `This phone cannot find keypoints (${errorMessage(error)}): the server finds them.`,
      });
      return null;
    }
  }

  private setKeypoints(change: Partial<KeypointsView>): void {
    this.update({ keypoints: { ...this.view.keypoints, ...change } });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.pollTimer);
    clearInterval(this.clockTimer);
    this.active?.discard();
    void this.activePose?.stop().catch(() => undefined);
    void this.pose?.then((pose) => pose?.model.dispose());
    for (const abort of this.uploading.values()) abort();
    this.view.stream?.getTracks().forEach((track) => track.stop());
  }

  private async poll(): Promise<void> {
    if (this.closed) return;
    try {
      const state = await fetchCaptureState(this.pairingToken, this.deviceId);
      this.follow(state);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return this.fail(messages.pairingInvalid);
      this.update({ phase: 'reconnecting' });
    }
    this.pollTimer = setTimeout(() => void this.poll(), PHONE_POLL_INTERVAL_MS);
  }

  private follow(state: CaptureState): void {
    const cancelled = new Set(state.cancelled_trial_ids);
    const expected = new Set(state.uploads_expected.map((upload) => upload.trial_id));
    const order = state.recording;

    if (this.active && (cancelled.has(this.active.order.trial_id) || order?.trial_id !== this.active.order.trial_id)) {
      if (cancelled.has(this.active.order.trial_id)) this.dropActive();
      else void this.finishActive();
    }
    if (order && !this.active && !this.recordedTrialIds.has(order.trial_id) && !cancelled.has(order.trial_id))
      this.record(order);

    for (const trialId of cancelled) this.forget(trialId);
    for (const [trialId, video] of this.stored) {
      if (this.uploading.has(trialId)) continue;
      // After a reload, a kept video the server no longer waits for was uploaded (or its trial is gone).
      if (this.firstState && !expected.has(trialId)) void this.forgetStored(trialId);
      else if (expected.has(trialId)) this.upload(video);
    }
    this.firstState = false;

    this.update({
      phase: 'connected',
      sessionName: state.session_name,
      camerasConnected: state.n_cameras_connected,
      videosUploaded: state.n_videos_uploaded,
      recording: this.active
        ? {
            trialName: this.active.order.trial_name,
            elapsedMs: this.active.elapsedMs(),
            waitingForStart: !this.active.recording,
          }
        : null,
      ...(this.activePose
        ? { keypoints: { ...this.view.keypoints, ratePerSecond: this.activePose.ratePerSecond } }
        : {}),
    });
  }

  private record(order: RecordingOrder): void {
    const stream = this.view.stream;
    if (!stream) return;
    this.recordedTrialIds.add(order.trial_id);
    const recorder = new TrialRecorder(stream, order, this.clock, () => void this.finishActive(), this.preview());
    this.active = recorder;
    void requestFramerate(stream, order.framerate)
      .then(() => recorder.start())
      .then(() => this.findKeypointsWhileRecording(recorder))
      .catch((error: unknown) => {
        if (this.active === recorder) this.active = null;
        this.update({ error: `The recording could not start: ${errorMessage(error)}` });
      });
    this.update({ recording: { trialName: order.trial_name, elapsedMs: 0, waitingForStart: true } });
  }

  /** Runs the pose model on the frames it can keep up with while `recorder` records, when its order asks. */
  private async findKeypointsWhileRecording(recorder: TrialRecorder): Promise<void> {
    const preview = this.preview();
    if (!recorder.order.phone_keypoints || !preview) return;
    // Turned on after this phone paired: the model loads for the next trial, the server detects this one.
    if (!this.pose) {
      this.pose = this.loadPose();
      return;
    }
    const pose = await this.pose;
    // The model was still loading when the trial ended, or cannot run here: the server detects the keypoints.
    if (!pose || this.active !== recorder || !recorder.recording) return;
    this.activePose = new pose.module.PoseWhileRecording(
      pose.model,
      preview,
      (capturedAtMs) => recorder.videoTimeS(capturedAtMs),
      frameCapturedAtMs,
    );
    this.setKeypoints({ ratePerSecond: 0, sent: null });
  }

  /** The keypoints of the trial that just stopped, when the phone kept up well enough for them to help. */
  private async stopFindingKeypoints(): Promise<Blob | null> {
    const pose = this.activePose;
    this.activePose = null;
    if (!pose) return null;
    try {
      const { keypoints, ratePerSecond } = await pose.stop();
      const helps = keypoints !== null && ratePerSecond >= MIN_HELPFUL_KEYPOINT_RATE_HZ;
      this.setKeypoints({ ratePerSecond, sent: helps, message: null });
      return helps ? keypoints : null;
    } catch (error) {
      this.setKeypoints({ sent: false, message: `The keypoints failed (${errorMessage(error)}).` });
      return null;
    }
  }

  private dropActive(): void {
    this.active?.discard();
    void this.activePose?.stop().catch(() => undefined);
    this.activePose = null;
    this.active = null;
    this.update({ recording: null });
  }

  private async finishActive(): Promise<void> {
    const recorder = this.active;
    if (!recorder) return;
    this.active = null;
    this.update({ recording: null });
    let video: RecordedVideo;
    try {
      const [recorded, keypoints] = await Promise.all([recorder.stop(), this.stopFindingKeypoints()]);
      video = { ...recorded, keypoints };
    } catch (error) {
      this.update({ error: errorMessage(error) });
      return;
    }
    this.stored.set(video.trialId, video);
    try {
      await pendingVideos.save(video);
    } catch {
      // Private browsing may refuse IndexedDB: the upload still runs, it just cannot survive a reload.
    }
    this.upload(video);
  }

  private setUpload(trialId: string, change: Partial<UploadView> & Pick<UploadView, 'trialName'>): void {
    const others = this.view.uploads.filter((upload) => upload.trialId !== trialId);
    const current = this.view.uploads.find((upload) => upload.trialId === trialId);
    const next: UploadView = {
      trialId,
      sentBytes: 0,
      totalBytes: 0,
      status: 'uploading',
      message: null,
      ...current,
      ...change,
    };
    this.update({ uploads: [...others, next] });
  }

  /**
   * Uploads the trial's keypoints (when the phone found them), then its video, whether or not the keypoints
   * went: they are optional, and sent once (a failed keypoints upload is not tried again; the server then
   * detects them itself).
   */
  private upload(video: RecordedVideo): void {
    if (this.uploading.has(video.trialId)) return;
    const keypoints = video.keypoints;
    if (!keypoints) return this.uploadVideoOnly(video);
    const { done, abort } = uploadKeypoints({ ...video, keypoints }, this.target);
    this.uploading.set(video.trialId, abort);
    void done
      .catch(() =>
        this.setKeypoints({ sent: false, message: 'The keypoints could not be sent: the server finds them.' }),
      )
      .then(async () => {
        if (this.uploading.get(video.trialId) !== abort) return;
        this.uploading.delete(video.trialId);
        const withoutKeypoints = { ...video, keypoints: null };
        if (this.stored.has(video.trialId)) {
          this.stored.set(video.trialId, withoutKeypoints);
          await pendingVideos.save(withoutKeypoints).catch(() => undefined);
        }
        this.uploadVideoOnly(withoutKeypoints);
      });
  }

  private get target() {
    return { pairingToken: this.pairingToken, deviceId: this.deviceId };
  }

  private uploadVideoOnly(video: RecordedVideo): void {
    const { trialId, trialName } = video;
    this.setUpload(trialId, { trialName, status: 'uploading', message: null, totalBytes: video.blob.size });
    const { done, abort } = uploadVideo(video, this.target, (sentBytes, totalBytes) =>
      this.setUpload(trialId, { trialName, sentBytes, totalBytes }),
    );
    this.uploading.set(trialId, abort);
    done.then(
      async () => {
        this.uploading.delete(trialId);
        this.setUpload(trialId, { trialName, status: 'done', sentBytes: video.blob.size });
        await this.forgetStored(trialId);
      },
      async (error: unknown) => {
        this.uploading.delete(trialId);
        this.setUpload(trialId, { trialName, status: 'failed', message: errorMessage(error) });
        // A refusal is final; any other failure is tried again on a later poll while the server waits for it.
        if (error instanceof UploadRefusedError) await this.forgetStored(trialId);
      },
    );
  }

  private async forgetStored(trialId: string): Promise<void> {
    this.stored.delete(trialId);
    await pendingVideos.remove(trialId).catch(() => undefined);
  }

  /** The researcher cancelled the trial: its recording and upload are dropped. */
  private forget(trialId: string): void {
    this.uploading.get(trialId)?.();
    this.uploading.delete(trialId);
    if (this.stored.has(trialId)) void this.forgetStored(trialId);
    if (this.view.uploads.some((upload) => upload.trialId === trialId))
      this.update({ uploads: this.view.uploads.filter((upload) => upload.trialId !== trialId) });
  }
}
