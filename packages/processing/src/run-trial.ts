import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FollowUpStage, ProcessingStage } from '@kinetrace/contracts';
import { EngineThreads, type EngineResults } from './engine-thread.ts';
import type { PosePoolKeeper } from './pose-pool-keeper.ts';
import type { TrialFailure, TrialInputs, TrialIO } from './trial-io.ts';
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
  /** Engine threads kept between trials (default: a thread started for this trial). */
  engines?: EngineThreads;
  /**
   * Ends the attempt as ours when it aborts (the server stops): its engine thread is ended, the trial is queued
   * to run again while retries remain, as after a crash, and a follow-up under way is reported failed.
   */
  signal?: AbortSignal;
}

/** Seconds an attempt spent in each step, for the log and the benchmark: where the time goes besides the engine. */
export interface TrialSteps {
  /** io.readInputs: the videos copied to the work directory, cameras, model and subject read. */
  inputsS?: number;
  /** The engine's calibrateSession, processNeutral or processMovement, with the last progress write. */
  engineS?: number;
  /** io.complete: the result files stored and registered, the trial marked done. */
  resultsS?: number;
  /** From done to the follow-up's results stored (the synchronised videos), when the trial has one. */
  followUpS?: number;
  /** io.progress calls and the seconds they took (they run beside the engine). */
  progressWrites: number;
  progressS: number;
}

export type TrialOutcome = (
  | { status: 'done'; followUp?: { stage: FollowUpStage; failure?: TrialFailure } }
  | { status: 'user-error'; message: string }
  | { status: 'internal-error'; error: unknown }
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
 * inputs' kind, in a thread of its own (engine-thread.ts) that the time limit ends. An error the user can act on (userMessageOf, user-errors.ts) ends the trial in error
 * with a message naming no server file (no retry); anything else is an internal failure, reported
 * with `willRetry` unless this is the final attempt. A movement trial is done once its results are
 * stored; its synchronised videos follow (issue 24), and their failure leaves it done (followUp).
 * The work directory is removed whatever happens.
 */
export async function runTrial(trialId: string, io: TrialIO, options: RunTrialOptions): Promise<TrialOutcome> {
  const workRoot = options.workRoot ?? tmpdir();
  await mkdir(workRoot, { recursive: true });
  const workDir = await mkdtemp(join(workRoot, `trial-${trialId}-`));
  const engines = options.engines ?? new EngineThreads(0);
  const steps: TrialSteps = { progressWrites: 0, progressS: 0 };
  const progress = progressWriter(steps, (stage: ProcessingStage, percent) => io.progress(stage, percent));
  const followUpProgress = progressWriter(steps, (_stage: FollowUpStage, percent) => io.followUpProgress(percent));
  const timed = async <T>(
    step: 'inputsS' | 'engineS' | 'resultsS' | 'followUpS',
    work: () => Promise<T>,
  ): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      steps[step] = (performance.now() - start) / 1000;
    }
  };
  let inputs: TrialInputs | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Past the time limit, or when `options.signal` aborts, the engine's thread is ended.
  const stop = new AbortController();
  let endAttempt!: (error: Error) => void;
  const { signal } = options;
  const onSignal = () => endAttempt(signal!.reason as Error);
  try {
    const attemptEnded = new Promise<never>((_, reject) => {
      endAttempt = (error: Error) => {
        stop.abort(error);
        reject(error);
      };
    });
    timer = setTimeout(
      () => endAttempt(new TimeLimitError(`Processing exceeded its ${Math.round(options.timeLimitS)} s limit`)),
      options.timeLimitS * 1000,
    );
    // The signal outlives the attempt (the server's): its listener goes with the attempt.
    if (signal?.aborted) onSignal();
    else signal?.addEventListener('abort', onSignal, { once: true });
    const run = async () => {
      const read = await timed('inputsS', () => io.readInputs(join(workDir, 'inputs')));
      inputs = read;
      const outDir = join(workDir, 'outputs');
      await mkdir(outDir, { recursive: true });
      return timed('engineS', async () => {
        // A trial whose every camera came with its 2D keypoints (issue 24) detects nothing: no pose workers to start.
        // A phone's keypoints are checked against a sample the pose model detects, so they need them too, and
        // keypoints detected on arrival are detected again when the trial's settings changed since.
        const detects =
          read.kind !== 'calibration' &&
          read.videos.some(
            (video) => !video.keypoints || video.keypoints.fromPhone || video.keypoints.detectedWith !== undefined,
          );
        const engine = {
          onProgress: progress.report,
          onFollowUpProgress: (fraction: number) => followUpProgress.report('sync_videos', fraction),
          signal: stop.signal,
        };
        // Should the attempt fail after the engine's results (releasing the pose pool, a progress write, storing
        // them), their follow-up is aborted unawaited: its rejection then is expected, not unhandled.
        const followUpHandled = (results: EngineResults) => {
          results.followUp?.files.catch(() => undefined);
          return results;
        };
        const results =
          !detects || !options.poses
            ? await engines.run(read, outDir, engine).then(followUpHandled)
            : await options.poses.use(read.settings.poseModel, (pool) =>
                engines.run(read, outDir, { ...engine, pool }).then(followUpHandled),
              );
        await progress.flush();
        return results;
      });
    };
    const running = run();
    running.catch(() => undefined); // once past its time limit, the attempt's own end is of no interest
    const results = await Promise.race([running, attemptEnded]);
    const followUp = results.followUp;
    await timed('resultsS', () => io.complete(results.files, followUp && { followUp: followUp.stage }));
    if (!followUp) return { status: 'done', steps };
    const failure = await timed('followUpS', () =>
      finishFollowUp(io, followUp, attemptEnded, followUpProgress, signal),
    );
    return { status: 'done', followUp: { stage: followUp.stage, ...(failure && { failure }) }, steps };
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
    signal?.removeEventListener('abort', onSignal);
    // A follow-up still running when the attempt failed (its results could not be stored) ends with it.
    if (!stop.signal.aborted) stop.abort(new Error('the attempt is over'));
    if (!options.engines) await engines.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * The follow-up of a done trial to its end: its results added, or its failure reported (the engine's thread
 * tried it twice when the fault was ours; the time limit or the server stopping, `serverStop`, ends it too:
 * the latter reported as interrupted). Answers the failure, if any; never throws, as the trial is done
 * whatever happens here.
 */
async function finishFollowUp(
  io: TrialIO,
  followUp: NonNullable<EngineResults['followUp']>,
  attemptEnded: Promise<never>,
  progress: ReturnType<typeof progressWriter<FollowUpStage>>,
  serverStop: AbortSignal | undefined,
): Promise<TrialFailure | undefined> {
  try {
    const files = await Promise.race([followUp.files, attemptEnded]);
    await progress.flush();
    await io.addResults(files);
    return undefined;
  } catch (error) {
    await progress.flush().catch(() => undefined);
    const message = userMessageOf(error);
    const interrupted = serverStop?.aborted === true && error === serverStop.reason;
    const failure: TrialFailure =
      message === undefined
        ? { kind: 'internal', error, willRetry: false, ...(interrupted && { interrupted }) }
        : { kind: 'user', message, error };
    await io.followUpFailed(failure).catch(() => undefined);
    return failure;
  }
}

/** Engine progress (stage, fraction) into `write` as a percentage: throttled, in order, errors surfaced at flush. */
function progressWriter<Stage extends string>(
  steps: TrialSteps,
  write: (stage: Stage, percent: number) => Promise<void>,
) {
  let lastStage: Stage | undefined;
  let lastPercent = -Infinity;
  let lastWriteMs = -Infinity;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  return {
    report(stage: Stage, fraction: number) {
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
          await write(stage, percent);
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
