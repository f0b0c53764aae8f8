import { getEventListeners } from 'node:events';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingAugmenterInputError } from '@kinetrace/mocap/augmenter/marker-augmenter';
import { fitNeutral } from '@kinetrace/mocap/model-fitting/fit-neutral';
import { ScalingError } from '@kinetrace/mocap/scaling/scale-model-to-subject';
import { findStillestWindow } from '@kinetrace/mocap/scaling/stillest-window';
import { VideoReadError } from '@kinetrace/mocap/video/errors';
import { probeVideo } from '@kinetrace/mocap/video/probe';
import { ffmpegPath } from '@kinetrace/mocap/video/binaries';
import { VIDEO_KEYPOINTS } from '@kinetrace/mocap/pose/keypoints';
import type { PoseWorkerPool } from '@kinetrace/mocap/pose/pose-worker-pool';
import type { CameraModel } from '@kinetrace/mocap/session/types';
import { EngineThreads, type EngineRunOptions } from '../src/engine-thread.ts';
import { PosePoolKeeper } from '../src/pose-pool-keeper.ts';
import { runTrial, TimeLimitError } from '../src/run-trial.ts';
import type { TrialFailure, TrialInputs, TrialIO } from '../src/trial-io.ts';
import { userMessageOf, withoutPaths } from '../src/user-errors.ts';

const root = mkdtempSync(join(tmpdir(), 'kinetrace-run-trial-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Where the server keeps uploads: the folder names a failure must not show. */
const uploads = join(root, 'data', 'uploads', '7f3c2a');
mkdirSync(uploads, { recursive: true });

/** A TrialIO recording the failure the runner reports; `readInputs` answers `inputs` or throws. */
function recordingIO(inputs: () => TrialInputs) {
  const failures: TrialFailure[] = [];
  const io: TrialIO = {
    readInputs: async () => inputs(),
    progress: async () => undefined,
    complete: async () => undefined,
    fail: async (failure) => {
      failures.push(failure);
    },
    followUpProgress: async () => undefined,
    addResults: async () => undefined,
    followUpFailed: async (failure) => {
      failures.push(failure);
    },
  };
  return { io, failures };
}

/** What the engine throws for a neutral in which no camera saw the keypoints scaling measures. */
function stillWindowError(): Error {
  const frames = 11;
  const positionsM = new Float64Array(frames * 2 * 3).fill(Number.NaN);
  try {
    findStillestWindow({
      markerNames: ['RKnee', 'LEar'],
      frameRateHz: 60,
      timesS: new Float64Array(frames),
      positionsM,
    });
  } catch (error) {
    return error as Error;
  }
  throw new Error('findStillestWindow found a window without any keypoint');
}

/** What the engine throws for a subject height the model cannot take (contracts allow 0.1 m). */
function heightError(): Error {
  try {
    fitNeutral({
      neutral: { markerNames: [], frameRateHz: 60, timesS: new Float64Array(1), positionsM: new Float64Array() },
      subject: { heightM: 0.3, massKg: 20 },
    });
  } catch (error) {
    return error as Error;
  }
  throw new Error('fitNeutral took a 0.3 m subject');
}

/** The engine's thread, kept between this file's attempts as the server keeps it. */
const engines = new EngineThreads(60_000);

/** A movement trial named walk of these videos (and cameras), with the lite pose model. */
function walkTrial(videos: TrialInputs['videos'], cameras: CameraModel[] = []): TrialInputs {
  return {
    kind: 'movement',
    trialName: 'walk',
    videos,
    cameras,
    scaledModelOsim: '',
    subject: { heightM: 1.7, massKg: 70 },
    settings: {
      board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
      poseModel: 'blazepose-lite',
      filterFrequency: 'default',
      scalingSetup: 'any_pose',
    },
  };
}
afterAll(() => engines.close());

const run = (io: TrialIO, finalAttempt = false) =>
  runTrial('t1', io, { workRoot: join(root, 'work'), finalAttempt, timeLimitS: 60, engines });

describe('runTrial: which failures are the user’s, and what they read', () => {
  it('a calibration whose videos cannot be read ends as a user error naming the cameras, not the files or ffprobe’s text', async () => {
    const broken = join(uploads, 'cam01.mp4');
    writeFileSync(broken, 'not a video at all');
    const { io, failures } = recordingIO(() => ({
      kind: 'calibration',
      videos: [
        { cameraName: 'cam01', path: broken },
        { cameraName: 'cam02', path: join(uploads, 'cam02.mp4') },
      ],
      board: { rows: 4, cols: 5, squareSizeMm: 35, placement: 'Perpendicular' },
    }));
    const outcome = await run(io);
    expect(outcome.status).toBe('user-error');
    expect(failures).toHaveLength(1);
    const [failure] = failures;
    expect(failure.kind).toBe('user');
    if (failure.kind !== 'user') return;
    expect(failure.message).toMatch(/cam01, cam02/);
    expect(failure.message).not.toMatch(/uploads|7f3c2a|\/|ffprobe|Invalid data/);
  });

  it('engine errors for the user (scaling, augmenter input, a video read) are not retried, and their message names no path', async () => {
    const unreadable = await probeVideo(join(uploads, 'missing.mp4')).catch((error: unknown) => error);
    expect(unreadable).toBeInstanceOf(VideoReadError);
    const cases: [Error, RegExp][] = [
      [
        new ScalingError(
          'No measurement could be made: the static trial and the model share none of the measurement marker pairs (a, b).',
        ),
        /No measurement could be made/,
      ],
      [
        new MissingAugmenterInputError(
          'The marker augmenter "v0.3" needs the keypoints RHeel, which this trial lacks.',
        ),
        /needs the keypoints RHeel/,
      ],
      [unreadable as Error, /The video of camera missing cannot be read/],
      // Issue 20 (20), issue 21: a still window the engine cannot find was a RangeError, retried three times.
      [stillWindowError(), /Missing: RKnee \(seen in 0 of 11 frames\), LEar/],
      [heightError(), /The subject's height, 0.3 m, is outside/],
    ];
    for (const [error, shown] of cases) {
      const { io, failures } = recordingIO(() => {
        throw error;
      });
      const outcome = await run(io);
      expect(outcome.status, error.name).toBe('user-error');
      expect(failures[0]).toMatchObject({ kind: 'user', error });
      if (failures[0].kind === 'user') {
        expect(failures[0].message).toMatch(shown);
        expect(failures[0].message).not.toContain(root);
      }
    }
  });

  it('anything else is ours: retried while attempts remain, its text never shown', async () => {
    const error = new Error(`ENOENT: no such file or directory, open '${uploads}/results.json'`);
    for (const finalAttempt of [false, true]) {
      const { io, failures } = recordingIO(() => {
        throw error;
      });
      expect((await run(io, finalAttempt)).status).toBe('internal-error');
      expect(failures).toEqual([{ kind: 'internal', error, willRetry: !finalAttempt }]);
    }
    expect(userMessageOf(new RangeError('x'))).toBeUndefined();
  });

  it('starts no pose workers for a trial whose every camera came with its 2D keypoints, and does for one that detects', async () => {
    const poseModels: string[] = [];
    // A keeper whose pool never starts: asked for one, it fails the attempt, which is all this test needs to see.
    const poses = new PosePoolKeeper(0, async ({ model }) => {
      poseModels.push(String(model));
      throw new Error('no pose workers here');
    });
    const movement = (keypointsOf: (camera: string) => string | undefined): TrialInputs =>
      walkTrial(
        ['cam01', 'cam02'].map((cameraName) => {
          const keypoints = keypointsOf(cameraName);
          return {
            cameraName,
            path: join(uploads, `${cameraName}.mp4`),
            ...(keypoints && { keypoints: { path: keypoints } }),
          };
        }),
      );
    const attempt = (inputs: TrialInputs) =>
      runTrial('t1', recordingIO(() => inputs).io, {
        workRoot: join(root, 'work'),
        finalAttempt: true,
        timeLimitS: 60,
        poses,
        engines,
      });
    await attempt(movement((camera) => join(uploads, `${camera}.json`)));
    expect(poseModels).toEqual([]);
    await attempt(movement((camera) => (camera === 'cam01' ? join(uploads, 'cam01.json') : undefined)));
    expect(poseModels).toEqual(['blazepose-lite']);
    await poses.close();
  });

  it('runs the engine in a thread whose frames go to the caller’s pose pool; its user errors keep their message, and the time limit or a server stop ends it', async () => {
    // Two short videos in which the caller's pool finds nobody, or never answers.
    const videos = ['cam01', 'cam02'].map((cameraName) => {
      const path = join(uploads, `${cameraName}-blank.mp4`);
      execFileSync(ffmpegPath(), [
        ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10:duration=0.5'],
        ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', path],
      ]);
      return { cameraName, path };
    });
    const camera = (name: string): CameraModel => ({
      name,
      imageSize: { width: 64, height: 48 },
      intrinsics: Float64Array.of(60, 0, 32, 0, 60, 24, 0, 0, 1),
      distortion: new Float64Array(5),
      rotationCameraFromWorld: Float64Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1),
      translationCameraFromWorldM: Float64Array.of(0, 0, 3),
    });
    const inputs = walkTrial(
      videos,
      videos.map((video) => camera(video.cameraName)),
    );
    const frameSizes: string[] = [];
    const nobody = (async (image: { width: number; height: number }) => {
      frameSizes.push(`${image.width}x${image.height}`);
      return { found: false, keypoints: new Float32Array(VIDEO_KEYPOINTS.length * 3), trackingRegion: null };
    }) as PoseWorkerPool['infer'];
    const attempt = (infer: PoseWorkerPool['infer'], timeLimitS: number, signal?: AbortSignal) => {
      const recording = recordingIO(() => inputs);
      const poses = new PosePoolKeeper(
        0,
        async () => ({ size: 2, infer, close: async () => undefined }) as unknown as PoseWorkerPool,
      );
      return runTrial('t1', recording.io, {
        workRoot: join(root, 'work'),
        finalAttempt: true,
        timeLimitS,
        poses,
        engines,
        signal,
      }).then((outcome) => ({ outcome, failures: recording.failures }));
    };

    // The server's signal outlives its attempts: each takes its listener away when it ends.
    const server = new AbortController();
    const unseen = await attempt(nobody, 60, server.signal);
    expect(getEventListeners(server.signal, 'abort')).toHaveLength(0);
    expect(frameSizes.length).toBeGreaterThan(0);
    expect(new Set(frameSizes)).toEqual(new Set(['64x48']));
    expect(unseen.outcome.status).toBe('user-error');
    expect(unseen.failures[0]).toMatchObject({
      kind: 'user',
      message: expect.stringMatching(/No person was found in .*cam01, cam02/),
    });

    const hung = await attempt(() => new Promise(() => undefined), 1);
    expect(hung.outcome).toMatchObject({ status: 'internal-error', error: expect.any(TimeLimitError) });

    // The server stops while the thread waits for a frame: the attempt ends at once, as ours (run again after a restart).
    const stopping = new AbortController();
    const serverStop = new Error('the server stops');
    const stopped = await attempt(
      () => {
        stopping.abort(serverStop);
        return new Promise(() => undefined);
      },
      60,
      stopping.signal,
    );
    expect(stopped.outcome).toMatchObject({ status: 'internal-error', error: serverStop });
    expect(stopped.failures).toMatchObject([{ kind: 'internal', error: serverStop }]);
  });

  // An engine that reports progress, and whose synchronised videos end only when the attempt aborts them, as
  // the engine thread's do.
  const abortedFollowUp = {
    run: async (_inputs: TrialInputs, _outDir: string, engine: EngineRunOptions) => {
      engine.onProgress('pose', 0.5);
      return {
        files: [],
        followUp: {
          stage: 'sync_videos' as const,
          files: new Promise<never>((_, reject) =>
            engine.signal.addEventListener('abort', () => reject(engine.signal.reason)),
          ),
        },
      };
    },
    close: async () => undefined,
  } as unknown as EngineThreads;

  it('an attempt that fails after the engine’s results (a progress write, storing them) ends their follow-up, leaving no rejection unhandled', async () => {
    const storeError = new Error('the server is stopping');
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      for (const failing of ['progress', 'complete'] as const) {
        const { io, failures } = recordingIO(() => walkTrial([]));
        io[failing] = async () => {
          throw storeError;
        };
        const outcome = await runTrial('t1', io, {
          workRoot: join(root, 'work'),
          finalAttempt: false,
          timeLimitS: 60,
          engines: abortedFollowUp,
        });
        expect(outcome, failing).toMatchObject({ status: 'internal-error', error: storeError });
        expect(failures).toEqual([{ kind: 'internal', error: storeError, willRetry: true }]);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('a server stop during the follow-up leaves the trial done and reports the follow-up interrupted, not failed', async () => {
    const server = new AbortController();
    const serverStop = new Error('the server stops');
    const { io, failures } = recordingIO(() => walkTrial([]));
    io.complete = async () => {
      server.abort(serverStop);
    };
    const outcome = await runTrial('t1', io, {
      workRoot: join(root, 'work'),
      finalAttempt: false,
      timeLimitS: 60,
      engines: abortedFollowUp,
      signal: server.signal,
    });
    expect(outcome).toMatchObject({ status: 'done', followUp: { stage: 'sync_videos' } });
    expect(failures).toEqual([{ kind: 'internal', error: serverStop, willRetry: false, interrupted: true }]);

    // Its own end (the time limit) is no interruption.
    const { io: slow, failures: slowFailures } = recordingIO(() => walkTrial([]));
    await runTrial('t1', slow, {
      workRoot: join(root, 'work'),
      finalAttempt: false,
      timeLimitS: 0.2,
      engines: abortedFollowUp,
      signal: new AbortController().signal,
    });
    expect(slowFailures).toMatchObject([{ kind: 'internal', willRetry: false }]);
    expect(slowFailures[0]).not.toHaveProperty('interrupted');
  });

  it('times each step of an attempt', async () => {
    const { io } = recordingIO(() => {
      throw new ScalingError('No measurement could be made.');
    });
    const { steps } = await run(io);
    expect(steps.inputsS).toBeGreaterThanOrEqual(0);
    expect(steps.engineS).toBeUndefined();
    expect(steps.progressWrites).toBe(0);
  });
});

describe('withoutPaths', () => {
  it('cuts absolute paths to their file name and leaves units and fractions alone', () => {
    expect(withoutPaths('Cannot read "/srv/kinetrace/data/uploads/7f3c/cam1.mp4" as a video.')).toBe(
      'Cannot read "cam1.mp4" as a video.',
    );
    expect(withoutPaths('Folder C:\\Users\\lab\\augmenters\\v0.3\\ lacks body/.')).toBe('Folder a folder lacks body/.');
    expect(withoutPaths('At 1.2 m/s and 60 frames/s, km/h or and/or: nothing to cut (H.264, VP8/VP9).')).toBe(
      'At 1.2 m/s and 60 frames/s, km/h or and/or: nothing to cut (H.264, VP8/VP9).',
    );
  });
});
