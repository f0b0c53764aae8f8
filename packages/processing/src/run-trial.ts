import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESULT_TAGS, type ProcessingStage } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { calibrateSession } from '@kinetrace/mocap/session/calibrate-session';
import { processMovement } from '@kinetrace/mocap/session/process-movement';
import { processNeutral } from '@kinetrace/mocap/session/process-neutral';
import type { CameraModel, RunOptions } from '@kinetrace/mocap/session/types';
import type { PosePoolKeeper } from './pose-pool-keeper.ts';
import type { ResultFile, TrialInputs, TrialIO } from './trial-io.ts';
import { userMessageOf } from './user-errors.ts';

export interface RunTrialOptions {
  /** Where attempts get their work directories (default: the system's temporary folder). */
  workRoot?: string;
  /** Whether an internal failure of this attempt is the last one (no retry follows). */
  finalAttempt: boolean;
  /** The attempt fails as ours after this long (a hung decoder, a runaway stage). */
  timeLimitS: number;
  /** Pose worker pools kept warm between trials (default: a pool started for each trial, as the CLI does). */
  poses?: PosePoolKeeper;
}

/** Seconds an attempt spent in each step, for the log and the benchmark: where the time goes besides the engine. */
export interface TrialSteps {
  /** io.readInputs: the videos copied to the work directory, cameras, model and subject read. */
  inputsS?: number;
  /** The engine's calibrateSession, processNeutral or processMovement, with the last progress write. */
  engineS?: number;
  /** io.complete: the result files stored and registered, the trial marked done. */
  resultsS?: number;
  /** io.progress calls and the seconds they took (they run beside the engine). */
  progressWrites: number;
  progressS: number;
}

export type TrialOutcome = (
  { status: 'done' } | { status: 'user-error'; message: string } | { status: 'internal-error'; error: unknown }
) & { steps: TrialSteps };

/**
 * Progress is written when the stage changes, or when it moved this many percent and this long after
 * the last write: a long pose stage still moves on screen (polled every few seconds, spec §9)
 * without a database write for every few frames.
 */
const PROGRESS_STEP_PERCENT = 2;
const PROGRESS_MIN_INTERVAL_MS = 1000;

export class TimeLimitError extends Error {
  override name = 'TimeLimitError';
}

/**
 * Runs one trial through the engine (spec §4.2, DESIGN §2): calibration, neutral or movement by its
 * inputs' kind. An error the user can act on (userMessageOf, user-errors.ts) ends the trial in error
 * with a message naming no server file (no retry); anything else is an internal failure, reported
 * with `willRetry` unless this is the final attempt. The work directory is removed whatever happens.
 */
export async function runTrial(trialId: string, io: TrialIO, options: RunTrialOptions): Promise<TrialOutcome> {
  const workRoot = options.workRoot ?? tmpdir();
  await mkdir(workRoot, { recursive: true });
  const workDir = await mkdtemp(join(workRoot, `trial-${trialId}-`));
  const progress = progressWriter(io);
  const steps = progress.steps;
  const timed = async <T>(step: 'inputsS' | 'engineS' | 'resultsS', work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      steps[step] = (performance.now() - start) / 1000;
    }
  };
  let inputs: TrialInputs | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeLimit = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TimeLimitError(`Processing exceeded its ${Math.round(options.timeLimitS)} s limit`)),
        options.timeLimitS * 1000,
      );
    });
    const run = async () => {
      const read = await timed('inputsS', () => io.readInputs(join(workDir, 'inputs')));
      inputs = read;
      const outDir = join(workDir, 'outputs');
      await mkdir(outDir, { recursive: true });
      return timed('engineS', async () => {
        // A trial whose every camera came with its 2D keypoints (issue 24) detects nothing: no pose workers to start.
        const detects = read.kind !== 'calibration' && read.videos.some((video) => video.keypoints === undefined);
        const files =
          !detects || !options.poses
            ? await dispatch(read, outDir, { onProgress: progress.report })
            : await options.poses.use(read.settings.poseModel, (pool) =>
                dispatch(read, outDir, { onProgress: progress.report, pool }),
              );
        await progress.flush();
        return files;
      });
    };
    const running = run();
    running.catch(() => undefined); // once past its time limit, the attempt's own end is of no interest
    const files = await Promise.race([running, timeLimit]);
    await timed('resultsS', () => io.complete(files));
    return { status: 'done', steps };
  } catch (error) {
    await progress.flush().catch(() => undefined);
    const message = userMessageOf(error, inputs?.videos);
    if (message !== undefined) {
      await io.fail({ kind: 'user', message, error });
      return { status: 'user-error', message, steps };
    }
    await io.fail({ kind: 'internal', error, willRetry: !options.finalAttempt });
    return { status: 'internal-error', error, steps };
  } finally {
    clearTimeout(timer);
    await rm(workDir, { recursive: true, force: true });
  }
}

async function dispatch(inputs: TrialInputs, outDir: string, runOptions: RunOptions): Promise<ResultFile[]> {
  switch (inputs.kind) {
    case 'calibration': {
      const outcome = await calibrateSession({ videos: inputs.videos, board: inputs.board, outDir }, runOptions);
      const files: ResultFile[] = [];
      for (const camera of outcome.cameras) {
        const path = await writeCameraFile(
          outDir,
          camera.cameraName,
          camera.solutions.map((solution) => solution.camera),
          {
            boardRmsPx: camera.solutions.map((solution) => solution.boardRmsPx),
            intrinsicsEstimated: camera.intrinsicsEstimated,
          },
        );
        files.push({ tag: RESULT_TAGS.cameraParameters, path, cameraName: camera.cameraName });
        files.push({ tag: RESULT_TAGS.calibrationImage, path: camera.imagePath, cameraName: camera.cameraName });
      }
      return files;
    }
    case 'neutral': {
      const outcome = await processNeutral({ ...inputs, outDir }, runOptions);
      const chosen = await Promise.all(
        outcome.cameras.map(async (camera, index) => {
          const cameraName = inputs.videos[index].cameraName;
          const boardRmsPx = outcome.calibrationErrorsPx?.[index];
          const path = await writeCameraFile(outDir, cameraName, [camera], {
            chosenForSession: true,
            ...(typeof boardRmsPx === 'number' && { boardRmsPx: [boardRmsPx] }),
          });
          return { tag: RESULT_TAGS.cameraParameters, path, cameraName } satisfies ResultFile;
        }),
      );
      return [...chosen, ...(outcome.files as ResultFile[])];
    }
    case 'movement': {
      const outcome = await processMovement({ ...inputs, outDir }, runOptions);
      return outcome.files as ResultFile[];
    }
  }
}

/** One camera's candidate models (best first) as a Kinetrace camera file named after the camera. */
async function writeCameraFile(
  outDir: string,
  cameraName: string,
  models: CameraModel[],
  calibration: Record<string, unknown>,
): Promise<string> {
  const folder = join(outDir, 'camera-parameters');
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${cameraName.replace(/[^A-Za-z0-9_-]+/g, '_')}.json`);
  await writeFile(path, writeKinetraceCameras(models, calibration));
  return path;
}

/** Engine progress (stage, fraction of the whole trial) into io.progress: throttled, in order, errors surfaced at flush. */
function progressWriter(io: TrialIO) {
  const steps: TrialSteps = { progressWrites: 0, progressS: 0 };
  let lastStage: ProcessingStage | undefined;
  let lastPercent = -Infinity;
  let lastWriteMs = -Infinity;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  return {
    steps,
    report(stage: ProcessingStage, fraction: number) {
      const percent = Math.min(100, Math.max(0, Math.round(fraction * 1000) / 10));
      const now = performance.now();
      if (
        stage === lastStage &&
        (percent - lastPercent < PROGRESS_STEP_PERCENT || now - lastWriteMs < PROGRESS_MIN_INTERVAL_MS)
      )
        return;
      lastStage = stage;
      lastPercent = percent;
      lastWriteMs = now;
      chain = chain
        .then(async () => {
          const start = performance.now();
          await io.progress(stage, percent);
          steps.progressWrites++;
          steps.progressS += (performance.now() - start) / 1000;
        })
        .catch((error: unknown) => {
          failure ??= error;
        });
    },
    async flush() {
      await chain;
      if (failure) throw failure;
    },
  };
}
