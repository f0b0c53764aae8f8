import { text } from 'node:stream/consumers';
import { analysisMessages, analysisResultTag, RESULT_TAGS } from '@kinetrace/contracts';
import type { JobAttempt } from '../jobs/job-kinds.ts';
import { HEARTBEAT_MS, interruptedJobRecovery } from '../jobs/interrupted-jobs.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialResultRow, TrialsRepository } from '../repositories/trials-repository.ts';
import { trialFilesPrefix } from '../services/storage-keys.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { AnalysisOutcome, AnalysisRepository, AnalysisWithTrial } from './analysis-repository.ts';
import { AnalysisThread, type AnalysisThreadRequest } from './analysis-thread.ts';

/**
 * An analysis takes under a second (OpenCap's 3.7 s walk: 0.1–0.6 s on a shared 2-core machine,
 * `npx tsx scripts/bench.ts analysis.bench`); one still running after five minutes is stopped and
 * the attempt fails as ours.
 */
const TIME_LIMIT_MS = 5 * 60_000;
/** The analysis thread is kept this long after an analysis (a session's trials are analysed together), then given back. */
const THREAD_IDLE_MS = 120_000;
/**
 * A pending analysis untouched this long has no job left to end it (the server stopped between the
 * analysis's start and its job's sending, or its job ended without its handler): far longer than
 * two attempts at the time limit, the retry delay and any wait in the queue.
 */
const ABANDONED_AFTER_MS = 60 * 60_000;

export interface AnalysisJobDeps {
  analyses: AnalysisRepository;
  trials: TrialsRepository;
  subjects: SubjectsRepository;
  files: FileStore;
  queue: JobQueue;
  /** PGlite: one process owns the database, so a job active at start-up has lost its process. */
  singleProcess: boolean;
  log: { info(object: object, message: string): void; error(object: object, message: string): void };
}

/** What the trial lacks for an analysis, said to the user (a trial done without joint angles or model). */
class MissingInput extends Error {}

/**
 * The 'analyse-trial' job: reads the trial's joint angles (ik_results .mot), its scaled model (the
 * trial's own opensim_model, else the session's newest done neutral's) and the subject's height and
 * mass, runs the engine's analysis in a worker thread, and stores the result as the trial's
 * `analysis-<kind>` result. The engine's AnalysisError ends the task failed with its message; any
 * other error is retried once, then ends it failed with a generic message (the error itself goes to
 * the log only). Attempts whose process stopped are recovered: retried while they may be, else
 * failed, so that no analysis stays pending for ever.
 */
export function createAnalysisJob(deps: AnalysisJobDeps) {
  const { analyses, trials, subjects, files, queue, log } = deps;
  /** pg-boss ids of the attempts running in this process. */
  const running = new Set<string>();
  const thread = new AnalysisThread(THREAD_IDLE_MS);

  async function storedText(result: TrialResultRow | undefined): Promise<string> {
    const stored = result?.storageKey ? await files.read(result.storageKey) : null;
    if (!stored) throw new MissingInput(analysisMessages.noResults);
    return text(stored.stream);
  }

  async function requestOf({ trial, session, analysis }: AnalysisWithTrial): Promise<AnalysisThreadRequest> {
    const results = await trials.resultsOf(trial.id);
    let model = results.find((result) => result.tag === RESULT_TAGS.opensimModel);
    if (!model) {
      const neutral = (await trials.ofSession(session.id))
        .filter((row) => row.name === 'neutral' && !row.trashed && row.status === 'done')
        .at(-1);
      model = neutral && (await trials.resultsOf(neutral.id)).find((result) => result.tag === RESULT_TAGS.opensimModel);
    }
    const [modelXml, motionText] = await Promise.all([
      storedText(model),
      storedText(results.find((result) => result.tag === RESULT_TAGS.ikResults)),
    ]);
    const subject = session.subjectId === null ? undefined : await subjects.findById(session.subjectId);
    return {
      kind: analysis.kind,
      files: { modelXml, motionText, ...(subject && { heightM: subject.heightM, massKg: subject.weightKg }) },
    };
  }

  /** Records the outcome; the files of replaced results go, or this task's own file when the task was superseded. */
  async function finish(taskId: string, outcome: AnalysisOutcome): Promise<void> {
    const replaced = await analyses.finish(taskId, outcome);
    const unused = replaced ?? (outcome.status === 'successfull' ? [outcome.storageKey] : []);
    await Promise.all(unused.map((key) => files.remove(key)));
  }

  async function run({ taskId }: { taskId: string }, attempt: JobAttempt): Promise<void> {
    const task = await analyses.byTask(taskId);
    if (!task || task.analysis.status !== 'pending') return;
    const { trial, analysis } = task;
    running.add(attempt.id);
    const heartbeat = setInterval(() => {
      analyses.touch(taskId).catch((error: unknown) => log.error({ err: error, taskId }, 'analysis heartbeat failed'));
    }, HEARTBEAT_MS);
    try {
      await analyses.touch(taskId);
      const reply = await thread.run(await requestOf(task), TIME_LIMIT_MS);
      if (reply.status === 'user-error') return await finish(taskId, { status: 'failed', error: reply.message });
      const storageKey = `${trialFilesPrefix(trial.sessionId, trial.id)}/results/analyses/${taskId}/${analysisResultTag(analysis.kind)}.json`;
      await files.put(storageKey, Buffer.from(JSON.stringify(reply.result)));
      await finish(taskId, { status: 'successfull', storageKey });
    } catch (error) {
      if (error instanceof MissingInput) return finish(taskId, { status: 'failed', error: error.message });
      const willRetry = attempt.retryCount < attempt.retryLimit;
      log.error({ err: error, trialId: trial.id, taskId, kind: analysis.kind, willRetry }, 'analysis failed');
      if (willRetry) throw error;
      await finish(taskId, { status: 'failed', error: analysisMessages.internalFailure });
    } finally {
      clearInterval(heartbeat);
      running.delete(attempt.id);
    }
  }

  /**
   * Attempts whose process stopped (a crash, a restart) are retried while they may be, else their
   * analysis ends failed; then pending analyses abandoned by their job end failed too.
   */
  const recovery = interruptedJobRecovery(
    queue,
    {
      kind: 'analyse-trial',
      running,
      singleProcess: deps.singleProcess,
      find: async (job) => {
        const task = await analyses.byTask(job.payload.taskId);
        return task && { item: task.analysis, aliveAt: task.analysis.updatedAt };
      },
      interrupted: async (analysis, job, lastAttempt) => {
        if (analysis?.status === 'pending' && lastAttempt)
          await finish(job.payload.taskId, { status: 'failed', error: analysisMessages.internalFailure });
      },
      log,
    },
    async () => {
      for (const taskId of await analyses.pendingSince(new Date(Date.now() - ABANDONED_AFTER_MS))) {
        await finish(taskId, { status: 'failed', error: analysisMessages.internalFailure });
        log.info({ taskId }, 'abandoned analysis failed');
      }
    },
  );

  return {
    run,
    /** One recovery pass, as a process that did not start the attempts does it. */
    recover: () => recovery.recover(false),
    /** Recovers interrupted attempts now and every 30 s until stop(). */
    startRecovery: () => recovery.start(),
    /** Stops recovery and the analysis thread. */
    async stop(): Promise<void> {
      recovery.stop();
      await thread.close();
    },
  };
}
