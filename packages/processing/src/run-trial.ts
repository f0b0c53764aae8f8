import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESULT_TAGS, type ProcessingStage } from '@kinetrace/contracts';
import { writeKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { ProcessingError } from '@kinetrace/mocap/pipeline/processing-error';
import { calibrateSession } from '@kinetrace/mocap/session/calibrate-session';
import { processMovement } from '@kinetrace/mocap/session/process-movement';
import { processNeutral } from '@kinetrace/mocap/session/process-neutral';
import type { CameraModel, RunOptions } from '@kinetrace/mocap/session/types';
import { TrialInputError, type ResultFile, type TrialInputs, type TrialIO } from './trial-io.ts';

export interface RunTrialOptions {
  /** Where attempts get their work directories (default: the system's temporary folder). */
  workRoot?: string;
  /** Whether an internal failure of this attempt is the last one (no retry follows). */
  finalAttempt: boolean;
  /** The attempt fails as ours after this long (a hung decoder, a runaway stage). */
  timeLimitS: number;
}

export type TrialOutcome = { status: 'done' } | { status: 'user-error'; message: string } | { status: 'internal-error'; error: unknown };

/** Progress is written when the stage changes or every this many percent, so a long pose stage still moves on screen. */
const PROGRESS_STEP_PERCENT = 2;

export class TimeLimitError extends Error {
  override name = 'TimeLimitError';
}

/**
 * Runs one trial through the engine (spec §4.2, DESIGN §2): calibration, neutral or movement by its
 * inputs' kind. A ProcessingError or TrialInputError ends the trial in error with its message as is
 * (the user must act: no retry); anything else is an internal failure, reported with `willRetry` unless this is the final
 * attempt. The work directory is removed whatever happens.
 */
export async function runTrial(trialId: string, io: TrialIO, options: RunTrialOptions): Promise<TrialOutcome> {
  const workRoot = options.workRoot ?? tmpdir();
  await mkdir(workRoot, { recursive: true });
  const workDir = await mkdtemp(join(workRoot, `trial-${trialId}-`));
  const progress = progressWriter(io);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeLimit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeLimitError(`Processing exceeded its ${Math.round(options.timeLimitS)} s limit`)), options.timeLimitS * 1000);
    });
    const run = async () => {
      const inputs = await io.readInputs(join(workDir, 'inputs'));
      const outDir = join(workDir, 'outputs');
      await mkdir(outDir, { recursive: true });
      const files = await dispatch(inputs, outDir, { onProgress: progress.report });
      await progress.flush();
      return files;
    };
    const running = run();
    running.catch(() => undefined); // once past its time limit, the attempt's own end is of no interest
    const files = await Promise.race([running, timeLimit]);
    await io.complete(files);
    return { status: 'done' };
  } catch (error) {
    await progress.flush().catch(() => undefined);
    if (error instanceof ProcessingError || error instanceof TrialInputError) {
      await io.fail({ kind: 'user', message: error.message });
      return { status: 'user-error', message: error.message };
    }
    await io.fail({ kind: 'internal', error, willRetry: !options.finalAttempt });
    return { status: 'internal-error', error };
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
        const path = await writeCameraFile(outDir, camera.cameraName, camera.solutions.map((solution) => solution.camera), {
          boardRmsPx: camera.solutions.map((solution) => solution.boardRmsPx),
          intrinsicsEstimated: camera.intrinsicsEstimated,
        });
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
          const path = await writeCameraFile(outDir, cameraName, [camera], { chosenForSession: true, ...(typeof boardRmsPx === 'number' && { boardRmsPx: [boardRmsPx] }) });
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
async function writeCameraFile(outDir: string, cameraName: string, models: CameraModel[], calibration: Record<string, unknown>): Promise<string> {
  const folder = join(outDir, 'camera-parameters');
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${cameraName.replace(/[^A-Za-z0-9_-]+/g, '_')}.json`);
  await writeFile(path, writeKinetraceCameras(models, calibration));
  return path;
}

/** Engine progress (stage, fraction of the whole trial) into io.progress: throttled, in order, errors surfaced at flush. */
function progressWriter(io: TrialIO) {
  let lastStage: ProcessingStage | undefined;
  let lastPercent = -Infinity;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  return {
    report(stage: ProcessingStage, fraction: number) {
      const percent = Math.min(100, Math.max(0, Math.round(fraction * 1000) / 10));
      if (stage === lastStage && percent - lastPercent < PROGRESS_STEP_PERCENT) return;
      lastStage = stage;
      lastPercent = percent;
      chain = chain.then(() => io.progress(stage, percent)).catch((error: unknown) => {
        failure ??= error;
      });
    },
    async flush() {
      await chain;
      if (failure) throw failure;
    },
  };
}
