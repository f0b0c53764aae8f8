import { join } from 'node:path';
import {
  followUpSchema,
  messages,
  processingMessages,
  processingProgressSchema,
  trialKindOf,
  type ProcessingProgress,
  type TrialKind,
} from '@kinetrace/contracts';
import { EngineThreads } from '@kinetrace/processing/engine-thread';
import { PosePoolKeeper } from '@kinetrace/processing/pose-pool-keeper';
import { runTrial } from '@kinetrace/processing/run-trial';
import type { TrialIO } from '@kinetrace/processing/trial-io';
import { badRequest, notFound } from '../http/http-errors.ts';
import type { JobAttempt } from '../jobs/job-kinds.ts';
import { HEARTBEAT_MS, interruptedJobRecovery } from '../jobs/interrupted-jobs.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { SessionsRepository } from '../repositories/sessions-repository.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialRow, TrialsRepository, TrialVideoRow } from '../repositories/trials-repository.ts';
import type { AuthContext } from '../services/auth-service.ts';
import type { SessionService } from '../services/session-service.ts';
import type { FileStore } from '../storage/file-store.ts';
import { createDetectionsOnArrival } from './detections-on-arrival.ts';
import type { ProcessingRepository } from './processing-repository.ts';
import { createServerTrialIO, type Attempt, type ServerTrialIODeps } from './server-trial-io.ts';

/** Calibration, then neutral, then movement trials; reprocessing after everything recorded (pg-boss: higher first). */
const PRIORITY: Record<TrialKind | 'reprocess', number> = { calibration: 30, neutral: 20, movement: 10, reprocess: 0 };
/**
 * Within a kind, the queue is shared between users in turn: a trial's priority drops by one for each
 * trial its owner already has in the queue, so one user's tenth trial waits behind everyone's first and
 * second (pg-boss takes the highest priority first, then the oldest). Kinds stay apart: a kind's
 * priorities span fewer steps than the gap to the next kind.
 */
const FAIR_SHARE_STEPS = 1000;
const priorityOf = (kind: TrialKind | 'reprocess', ownerPending: number) =>
  PRIORITY[kind] * FAIR_SHARE_STEPS - Math.min(ownerPending, FAIR_SHARE_STEPS - 1);
/** Internal failures are retried twice, 10–20 s then 20–40 s later (pg-boss backoff with jitter); user errors never. */
const RETRY = { retryLimit: 2, retryDelayS: 10, retryBackoff: true };
/**
 * Expected processing time from the videos' total length (all cameras): `npm run bench`
 * (apps/server/bench/processing.bench.ts) took 30–110 s for the 4 x 1.7 s demo trial on a shared
 * 2-core machine, 5–15 s per second of video. The screens warn past a few times this; an attempt
 * is stopped (and retried) at TIME_LIMIT_FACTOR times it.
 */
const EXPECTED_BASE_S = 20;
const EXPECTED_S_PER_VIDEO_S = 8;
const TIME_LIMIT_FACTOR = 10;
const MIN_TIME_LIMIT_S = 600;
/**
 * The pose model stays loaded this long after a trial (a session's trials come minutes apart), then
 * its memory is given back. Starting it costs ~1 s idle and several under load, per trial otherwise
 * (`npm run bench`, apps/server/bench/processing.bench.ts).
 */
const POSE_POOL_IDLE_MS = 120_000;
/** The engine's thread is kept as long, for the same reason (starting it loads the engine, a second or more). */
const ENGINE_THREAD_IDLE_MS = POSE_POOL_IDLE_MS;

const IN_PROGRESS = ['recording', 'uploading', 'processing', 'reprocess'];

export interface ProcessingServiceDeps {
  trials: TrialsRepository;
  sessions: SessionsRepository;
  subjects: SubjectsRepository;
  files: FileStore;
  queue: JobQueue;
  repository: ProcessingRepository;
  sessionService: SessionService;
  dataDir: string;
  /** PGlite with in-process workers: one process owns the database, so a job active at start-up has lost its process. */
  singleProcess: boolean;
  /** An attempt (a remote worker's lease) silent this long has lost its process: the job goes back to the queue. */
  staleAfterMs: number;
  /** The owner's lens calibration of a device model, when lens calibrations are kept. */
  lensFor?: ServerTrialIODeps['lensFor'];
  /** Whether this server detects a trial's videos as they arrive (detections-on-arrival.ts): when it runs trials itself. */
  detectOnArrival: boolean;
  log: { info(object: object, message: string): void; error(object: object, message: string): void };
  now: () => Date;
}

/** An attempt begun for a runner: the server's side of its TrialIO and its limits. */
export interface BegunAttempt {
  attempt: Attempt;
  io: ReturnType<typeof createServerTrialIO>;
  timeLimitS: number;
  /** No retry follows an internal failure of this attempt. */
  finalAttempt: boolean;
  /** Seconds the trial waited in the queue, for the log. */
  queuedS: number | undefined;
}

/**
 * The rules of processing (spec §4.2, §4.3; DESIGN §2): queueing by kind, movement trials waiting for
 * the neutral (and the neutral for the calibration), retries of internal failures only, a time limit
 * growing with the videos, and recovery of attempts whose process stopped.
 */
export function createProcessingService(deps: ProcessingServiceDeps) {
  const { trials, sessions, queue, repository, log, now } = deps;
  const running = new Set<string>();
  /**
   * Aborts the attempts under way when the server stops: each is queued to run again, as after a crash. Left to
   * run, an attempt could mark its trial done during the queue's graceful stop, its follow-up then cut off with
   * the database, and the retried job would find a done trial and leave that follow-up "running" for ever.
   */
  const stopping = new AbortController();
  const poses = new PosePoolKeeper(POSE_POOL_IDLE_MS);
  const engines = new EngineThreads(ENGINE_THREAD_IDLE_MS);
  const arrivals = createDetectionsOnArrival({
    trials,
    sessions,
    files: deps.files,
    poses,
    engines,
    workRoot: join(deps.dataDir, 'work'),
    installDir: deps.dataDir,
    log,
  });

  const progressAt = (stage: ProcessingProgress['stage'], expectedS?: number): ProcessingProgress => ({
    stage,
    percent: 0,
    started_at: now().toISOString(),
    ...(expectedS !== undefined && { expected_s: expectedS }),
  });

  async function expectedSeconds(trialId: string): Promise<number> {
    const videos = await trials.videosOf(trialId);
    const totalS = videos.reduce(
      (sum, video) => sum + (typeof video.parameters.duration_s === 'number' ? video.parameters.duration_s : 0),
      0,
    );
    return Math.round(EXPECTED_BASE_S + EXPECTED_S_PER_VIDEO_S * totalS);
  }

  async function timeLimitOf(trialId: string): Promise<{ expectedS: number; timeLimitS: number }> {
    const expectedS = await expectedSeconds(trialId);
    return { expectedS, timeLimitS: Math.max(MIN_TIME_LIMIT_S, TIME_LIMIT_FACTOR * expectedS) };
  }

  /** Told each time a trial is queued here (remote workers' long polls on this server take it at once). */
  const queuedListeners = new Set<() => void>();

  async function send(trial: TrialRow, reprocess: boolean): Promise<void> {
    const { timeLimitS } = await timeLimitOf(trial.id);
    const ownerPending = await repository.pendingOfOwner(trial.sessionId, trial.id);
    await queue.send(
      'process-trial',
      { trialId: trial.id },
      {
        priority: priorityOf(reprocess ? 'reprocess' : trialKindOf(trial.name), ownerPending),
        ...RETRY,
        expireInSeconds: timeLimitS + 120,
      },
    );
    for (const listener of queuedListeners) listener();
  }

  /**
   * Hands a trial to the queue: status processing (or reprocess), stage queued; only from the status `trial`
   * was read in, so that a trial two callers saw ready at once (the last two uploads) is queued once.
   */
  async function enqueue(trial: TrialRow, reprocess = false): Promise<void> {
    const status = reprocess ? 'reprocess' : 'processing';
    if (await repository.markQueued(trial.id, status, progressAt('queued'), trial.status)) await send(trial, reprocess);
  }

  /** What `trial` waits for before it can run, if anything: a calibration or neutral still on its way. */
  async function prerequisiteStage(trial: TrialRow): Promise<'waiting_for_calibration' | 'waiting_for_neutral' | null> {
    const kind = trialKindOf(trial.name);
    if (kind === 'calibration') return null;
    const needed = kind === 'neutral' ? 'calibration' : 'neutral';
    const newest = (await trials.ofSession(trial.sessionId))
      .filter((row) => row.name === needed && !row.trashed)
      .at(-1);
    if (kind === 'neutral') return newest && IN_PROGRESS.includes(newest.status) ? 'waiting_for_calibration' : null;
    return newest?.status === 'done' ? null : 'waiting_for_neutral';
  }

  /**
   * A trial trashed before it ran (queued or waiting, or interrupted and then replaced by a newer
   * calibration or neutral) is not processed, and does not stay "processing" in the recycle bin: it ends
   * in error saying so, which lets its owner reprocess it once restored.
   */
  async function stopInRecycleBin(trial: TrialRow): Promise<void> {
    await repository.markError(trial.id, null, processingMessages.notProcessedInRecycleBin);
  }

  /** When a calibration or neutral has ended, the trials that waited for it are queued (or stopped, if trashed). */
  async function releaseWaiting(trial: TrialRow): Promise<void> {
    const kind = trialKindOf(trial.name);
    if (kind === 'movement') return;
    for (const waiting of await repository.waitingAt(
      trial.sessionId,
      kind === 'calibration' ? 'waiting_for_calibration' : 'waiting_for_neutral',
    )) {
      await (waiting.trashed ? stopInRecycleBin(waiting) : enqueue(waiting));
    }
  }

  /** Every failure goes to the log with its own error (paths, a tool's output): users read only its message. */
  const logFailure: ServerTrialIODeps['logFailure'] = (id, failure) =>
    failure.kind === 'user'
      ? log.info(
          { err: failure.error, trialId: id, userMessage: failure.message },
          'trial processing ended in an error the user can act on',
        )
      : log.error({ err: failure.error, trialId: id, willRetry: failure.willRetry }, 'trial processing failed');

  /** The server's side of one attempt's TrialIO (server-trial-io.ts). */
  const ioFor = (attempt: Attempt) =>
    createServerTrialIO(
      {
        trials,
        subjects: deps.subjects,
        files: deps.files,
        repository,
        installDir: deps.dataDir,
        lensFor: deps.lensFor,
        logFailure,
        detectionsOnArrivalEnded: arrivals.ended,
      },
      attempt,
    );

  /**
   * Starts one attempt of a 'process-trial' job, in this process or for the remote worker `workerId`: null
   * when there is nothing to run (the trial is gone, done, trashed, or now waits for its calibration or neutral).
   */
  async function beginAttempt(
    { trialId }: { trialId: string },
    job: JobAttempt,
    workerId?: number,
  ): Promise<BegunAttempt | null> {
    let trial = await trials.findById(trialId);
    // Wall-clock seconds since the trial was queued (not the rules' clock, which tests move).
    const queuedAt = (trial?.meta as { progress?: { stage?: unknown; started_at?: unknown } } | undefined)?.progress;
    const queuedS =
      queuedAt?.stage === 'queued' && typeof queuedAt.started_at === 'string'
        ? (Date.now() - Date.parse(queuedAt.started_at)) / 1000
        : undefined;
    if (!trial || (trial.status !== 'processing' && trial.status !== 'reprocess')) return null;
    if (trial.trashed) {
      await stopInRecycleBin(trial);
      return null;
    }
    const waitFor = await prerequisiteStage(trial);
    if (waitFor) {
      await repository.markWaiting(trialId, progressAt(waitFor));
      // The prerequisite may have finished between the check and the mark: look once more, so no trial waits for ever.
      if (await prerequisiteStage(trial)) return null;
      trial = (await trials.findById(trialId))!;
    }
    const session = await sessions.findById(trial.sessionId);
    if (!session) return null;

    const attemptId = `${job.id}.${job.retryCount}`;
    const { expectedS, timeLimitS } = await timeLimitOf(trialId);
    const progress: ProcessingProgress = {
      ...progressAt(trialKindOf(trial.name) === 'calibration' ? 'board' : 'pose', expectedS),
      attempt: { number: job.retryCount + 1, of: job.retryLimit + 1 },
    };
    await repository.startAttempt(trialId, attemptId, progress, workerId);
    const attempt = { id: attemptId, trial, session, progress };
    return { attempt, io: ioFor(attempt), timeLimitS, finalAttempt: job.retryCount >= job.retryLimit, queuedS };
  }

  /**
   * The attempt `attemptId` of a trial a remote worker holds, to carry on with it (null when it is not the current
   * one): processing, or done with its follow-up running (its progress then the last the processing showed).
   */
  async function resumeAttempt(trial: TrialRow, attemptId: string): Promise<Attempt | null> {
    const meta = trial.meta as { progress?: unknown; follow_up?: unknown };
    const followUp = followUpSchema.safeParse(meta.follow_up);
    const progress =
      trial.status === 'done' && followUp.success && followUp.data.status === 'running'
        ? processingProgressSchema.safeParse({ stage: 'outputs', percent: 100, started_at: followUp.data.started_at })
        : processingProgressSchema.safeParse(meta.progress);
    const session = await sessions.findById(trial.sessionId);
    if (!session || !progress.success) return null;
    return { id: attemptId, trial, session, progress: progress.data };
  }

  /** The 'process-trial' job in this process: one attempt at one trial. Throws only to have pg-boss retry an internal failure. */
  async function runJob(payload: { trialId: string }, job: JobAttempt): Promise<void> {
    const begun = await beginAttempt(payload, job);
    if (!begun) return;
    const { attempt, io, finalAttempt } = begun;
    const { trial, progress } = attempt;
    running.add(job.id);
    /** What the heartbeat repeats: the processing's progress, then, once the trial is done, its follow-up's. */
    let beat = () => repository.setProgress(trial.id, attempt.id, progress);
    const heartbeat = setInterval(() => {
      beat().catch(() => undefined);
    }, HEARTBEAT_MS);
    try {
      // Keep the reported progress as the heartbeat's base: the heartbeat must not move the stage back.
      const reporting: TrialIO = {
        ...io,
        progress: async (stage: ProcessingProgress['stage'], percent: number) => {
          Object.assign(progress, { stage, percent });
          await io.progress(stage, percent);
        },
        complete: async (results, options) => {
          await io.complete(results, options);
          if (options?.followUp) beat = () => repository.setFollowUpProgress(trial.id, attempt.id, 0);
        },
        followUpProgress: async (percent: number) => {
          beat = () => repository.setFollowUpProgress(trial.id, attempt.id, percent);
          await io.followUpProgress(percent);
        },
      };
      const outcome = await runTrial(trial.id, reporting, {
        workRoot: join(deps.dataDir, 'work'),
        finalAttempt,
        timeLimitS: begun.timeLimitS,
        poses,
        engines,
        signal: stopping.signal,
      });
      // Where the time went (`npm run bench` reads it): the queue's pickup, each step of the attempt.
      if (outcome.status === 'done')
        log.info(
          { trialId: trial.id, attempt: attempt.id, queuedS: begun.queuedS, ...outcome.steps },
          'trial processed',
        );
      if (outcome.status === 'internal-error' && !finalAttempt) throw new Error('Trial processing failed; retrying');
      // Whatever the end, what waited for this trial runs again: with it, or to wait for the next one, or to say what is missing.
      await releaseWaiting(trial);
    } finally {
      clearInterval(heartbeat);
      running.delete(job.id);
    }
  }

  /** Attempts whose process stopped: queued again while a retry remains, else ended in error. */
  const recovery = interruptedJobRecovery(queue, {
    kind: 'process-trial',
    running,
    singleProcess: deps.singleProcess,
    staleAfterMs: deps.staleAfterMs,
    find: async (job) => {
      const trial = await trials.findById(job.payload.trialId);
      return trial && { item: trial, aliveAt: trial.updatedAt };
    },
    interrupted: async (trial, _job, lastAttempt) => {
      // Stopped after the trial was done, during its follow-up: it stays done, and says the follow-up's outputs are missing.
      if (trial?.status === 'done')
        await repository.failFollowUp(trial.id, null, processingMessages.syncVideosInterrupted);
      else if (trial && lastAttempt) await repository.markError(trial.id, null, processingMessages.internalFailure);
      else if (trial)
        await repository.markQueued(
          trial.id,
          trial.status === 'reprocess' ? 'reprocess' : 'processing',
          progressAt('queued'),
          trial.status,
        );
    },
    log,
  });

  /** Trials the owner may queue again: finished ones (done or error) with their videos. */
  const reprocessable = (trial: TrialRow) => !trial.trashed && (trial.status === 'done' || trial.status === 'error');

  return {
    enqueue,
    /** A video of a trial that waits for others is in: its keypoints are detected now, when this server runs trials. */
    videoArrived(trial: TrialRow, video: TrialVideoRow): void {
      if (deps.detectOnArrival) arrivals.start(trial, video);
    },
    runJob,
    beginAttempt,
    resumeAttempt,
    /** Calls `listener` whenever this process queues a trial; answers how to stop. */
    onQueued(listener: () => void): () => void {
      queuedListeners.add(listener);
      return () => queuedListeners.delete(listener);
    },
    ioFor,
    releaseWaiting,

    /** Recovers interrupted attempts now and every 30 s until stop(). */
    startRecovery: () => recovery.start(),
    /** Stops recovery, ends the attempts under way (queued again) and gives the pose model's and the engine's memory back. */
    async stop(): Promise<void> {
      recovery.stop();
      arrivals.stop();
      stopping.abort(new Error('the server stops'));
      await Promise.all([poses.close(), engines.close()]);
    },

    async reprocessTrial(context: AuthContext, trialId: string): Promise<{ trials: string[] }> {
      const trial = await trials.findById(trialId);
      const session = trial && (await sessions.findById(trial.sessionId));
      if (!trial || trial.trashed || session?.userId !== context.user.id) throw notFound(messages.trialNotFound);
      if (!reprocessable(trial) || (await trials.videosOf(trial.id)).length === 0)
        throw badRequest(processingMessages.notProcessable);
      await enqueue(trial, true);
      return { trials: [trial.id] };
    },

    /** Every finished trial of the session, calibration first, then neutral, then movement trials in recording order. */
    async reprocessSession(context: AuthContext, sessionId: string): Promise<{ trials: string[] }> {
      await deps.sessionService.ownSession(context, sessionId);
      const order = (trial: TrialRow) => PRIORITY[trialKindOf(trial.name)];
      const candidates = (await trials.ofSession(sessionId)).filter(reprocessable);
      const queued: string[] = [];
      for (const trial of candidates.sort((a, b) => order(b) - order(a))) {
        if ((await trials.videosOf(trial.id)).length === 0) continue;
        await enqueue(trial, true);
        queued.push(trial.id);
      }
      return { trials: queued };
    },
  };
}

export type ProcessingService = ReturnType<typeof createProcessingService>;
