import { text } from 'node:stream/consumers';
import { analysisMessages, analysisResultSchema, analysisResultTag, RESULT_TAGS } from '@kinetrace/contracts';
import { AnalysisError, analyseTrial, loadAnalysisInput } from '@kinetrace/mocap/analyses/index';
import type { JobAttempt } from '../jobs/job-kinds.ts';
import type { SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialResultRow, TrialsRepository } from '../repositories/trials-repository.ts';
import { trialFilesPrefix } from '../services/storage-keys.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { AnalysisOutcome, AnalysisRepository, AnalysisWithTrial } from './analysis-repository.ts';

export interface AnalysisJobDeps {
  analyses: AnalysisRepository;
  trials: TrialsRepository;
  subjects: SubjectsRepository;
  files: FileStore;
  log: { error(object: object, message: string): void };
}

/** What the trial lacks for an analysis, said to the user (a trial done without joint angles or model). */
class MissingInput extends Error {}

/**
 * The 'analyse-trial' job: reads the trial's joint angles (ik_results .mot), its scaled model (the
 * trial's own opensim_model, else the session's newest done neutral's) and the subject's height and
 * mass, runs the engine's analysis, and stores the result as the trial's `analysis-<kind>` result.
 * The engine's AnalysisError ends the task failed with its message; any other error is retried
 * once, then ends it failed with a generic message (the error itself goes to the log only).
 */
export function createAnalysisJob(deps: AnalysisJobDeps) {
  const { analyses, trials, subjects, files, log } = deps;

  async function storedText(result: TrialResultRow | undefined): Promise<string> {
    const stored = result?.storageKey ? await files.read(result.storageKey) : null;
    if (!stored) throw new MissingInput(analysisMessages.noResults);
    return text(stored.stream);
  }

  async function inputOf({ trial, session }: AnalysisWithTrial) {
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
    return loadAnalysisInput({
      modelXml,
      motionText,
      ...(subject && { heightM: subject.heightM, massKg: subject.weightKg }),
    });
  }

  /** Records the outcome; the files of replaced results go, or this task's own file when the task was superseded. */
  async function finish(taskId: string, outcome: AnalysisOutcome): Promise<void> {
    const replaced = await analyses.finish(taskId, outcome);
    const unused = replaced ?? (outcome.status === 'successfull' ? [outcome.storageKey] : []);
    await Promise.all(unused.map((key) => files.remove(key)));
  }

  return async function runJob({ taskId }: { taskId: string }, attempt: JobAttempt): Promise<void> {
    const task = await analyses.byTask(taskId);
    if (!task || task.analysis.status !== 'pending') return;
    const { trial, analysis } = task;
    try {
      const result = analysisResultSchema.parse(analyseTrial(analysis.kind, await inputOf(task)));
      const storageKey = `${trialFilesPrefix(trial.sessionId, trial.id)}/results/analyses/${taskId}/${analysisResultTag(analysis.kind)}.json`;
      await files.put(storageKey, Buffer.from(JSON.stringify(result)));
      await finish(taskId, { status: 'successfull', storageKey });
    } catch (error) {
      if (error instanceof AnalysisError || error instanceof MissingInput)
        return finish(taskId, { status: 'failed', error: error.message });
      const willRetry = attempt.retryCount < attempt.retryLimit;
      log.error({ err: error, trialId: trial.id, taskId, kind: analysis.kind, willRetry }, 'analysis failed');
      if (willRetry) throw error;
      await finish(taskId, { status: 'failed', error: analysisMessages.internalFailure });
    }
  };
}
