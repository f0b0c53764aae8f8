import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { trialKindOf } from '@kinetrace/contracts';
import type { EngineThreads } from '@kinetrace/processing/engine-thread';
import type { PosePoolKeeper } from '@kinetrace/processing/pose-pool-keeper';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { TrialRow, TrialsRepository, TrialVideoRow } from '../repositories/trials-repository.ts';
import { trialFilesPrefix } from '../services/storage-keys.ts';
import type { FileStore } from '../storage/file-store.ts';
import { trialSettingsOf } from './server-trial-io.ts';

/**
 * Issue 24: a trial's processing starts when its last video is in, but a camera's 2D keypoints depend only on
 * its own video (each camera tracks its person over its own frames). So when a neutral or movement trial's
 * video arrives and others are still on their way, its keypoints are detected at once, as processing will
 * detect them (detectOnArrival, in an engine thread below the API's priority, its frames to the one kept pose
 * pool), and stored beside the video with how they were made; processing then uses them for that camera when it
 * detects the same way (processTrial), and detects the camera itself otherwise, or when this failed. The clock
 * after the last byte then covers the last video and the stages after pose only.
 *
 * For the in-process runner only: with WORKERS=remote the server runs no pose model, and its trials are
 * detected whole by the worker that leases them.
 */
export function createDetectionsOnArrival(deps: {
  trials: TrialsRepository;
  sessions: SessionsRepository;
  files: FileStore;
  poses: PosePoolKeeper;
  engines: EngineThreads;
  /** Where detections get their work folders. */
  workRoot: string;
  installDir: string;
  log: { info(object: object, message: string): void };
}) {
  const { trials, files, poses } = deps;
  /** Each trial's detections under way. */
  const running = new Map<string, Set<Promise<void>>>();
  const stopping = new AbortController();

  async function detect(trial: TrialRow, video: TrialVideoRow & { storageKey: string }): Promise<void> {
    const kind = trialKindOf(trial.name);
    const session = await deps.sessions.findById(trial.sessionId);
    if (kind === 'calibration' || !session) return;
    const settings = await trialSettingsOf(trials, trial, session, deps.installDir);
    // Another model's trial holding the pose pool: no second pool beside it; processing detects this camera.
    if (!poses.keeps(settings.poseModel)) return;
    await mkdir(deps.workRoot, { recursive: true });
    const workDir = await mkdtemp(join(deps.workRoot, `arrival-${video.id}-`));
    try {
      const path = join(workDir, `video.${video.storageKey.split('.').at(-1)}`);
      const stored = await files.read(video.storageKey);
      if (!stored) return;
      await pipeline(stored.stream, createWriteStream(path));
      const outPath = join(workDir, 'keypoints.json');
      const detection = await poses.use(settings.poseModel, (pool) =>
        deps.engines.detect(
          { video: { cameraName: video.deviceId, path }, trial: { kind, name: trial.name, settings }, outPath },
          pool,
          stopping.signal,
        ),
      );
      // Under the video's row id: a video stored again (another row) never finds these.
      const key = `${trialFilesPrefix(trial.sessionId, trial.id)}/detected-on-arrival/${video.id}.json`;
      await files.put(key, createReadStream(outPath));
      // The trial deleted meanwhile: nothing is left behind.
      if (!(await trials.addVideoParameters(video.id, { detected_on_arrival: { key, detection } })))
        await files.remove(key);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }

  return {
    /** Starts detecting `video` of `trial`, which waits for other videos; a failure is only logged. */
    start(trial: TrialRow, video: TrialVideoRow): void {
      const { storageKey } = video;
      if (stopping.signal.aborted || !storageKey) return;
      const detection = detect(trial, { ...video, storageKey })
        .catch((error: unknown) =>
          deps.log.info(
            { err: error, trialId: trial.id, deviceId: video.deviceId },
            'detection on arrival failed: processing detects this camera itself',
          ),
        )
        .finally(() => {
          const ofTrial = running.get(trial.id);
          ofTrial?.delete(detection);
          if (ofTrial?.size === 0) running.delete(trial.id);
        });
      running.set(trial.id, (running.get(trial.id) ?? new Set()).add(detection));
    },

    /** Once the detections of the trial's videos under way have ended (well or not). */
    async ended(trialId: string): Promise<void> {
      await Promise.all([...(running.get(trialId) ?? new Set<Promise<void>>())]);
    },

    /** Ends the detections under way (the server stops). */
    stop(): void {
      stopping.abort(new Error('the server stops'));
    },
  };
}

export type DetectionsOnArrival = ReturnType<typeof createDetectionsOnArrival>;
