import {
  ANALYSIS_FUNCTION_IDS,
  analysisMessages,
  analysisResultTag,
  messages,
  trialKindOf,
  type AnalysisDashboard,
  type AnalysisDashboardWithData,
  type AnalysisFunction,
  type AnalysisInvokeRequest,
  type AnalysisInvokeResponse,
  type AnalysisTaskResult,
  type AnalysisTrialState,
} from '@kinetrace/contracts';
import { HttpError, invalidFields, notFound } from '../http/http-errors.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { SubjectRow, SubjectsRepository } from '../repositories/subjects-repository.ts';
import type { TrialsRepository } from '../repositories/trials-repository.ts';
import { sessionView, type Viewer } from '../services/access.ts';
import type { AuthContext } from '../services/auth-service.ts';
import type { MediaUrlSigner } from '../services/media-urls.ts';
import { sessionNameOf } from '../services/presenters.ts';
import type { SessionService } from '../services/session-service.ts';
import type { TrialService } from '../services/trial-service.ts';
import {
  analysisDashboards,
  analysisFunctions,
  dashboardById,
  functionById,
  functionOfKind,
} from './analysis-catalog.ts';
import type { AnalysisRepository, AnalysisRow, AnalysisWithTrial } from './analysis-repository.ts';

/**
 * An analysis takes seconds (it reads two files and runs forward kinematics over the motion); one
 * active for 10 minutes has lost its process or hangs: pg-boss fails it and retries it once.
 */
const JOB_OPTIONS = { retryLimit: 1, retryDelayS: 5, expireInSeconds: 600 };

export interface AnalysisServiceDeps {
  analyses: AnalysisRepository;
  trials: TrialsRepository;
  subjects: SubjectsRepository;
  sessionService: SessionService;
  trialService: TrialService;
  queue: JobQueue;
  media: MediaUrlSigner;
}

/** Spec §3 state of one analysis: a menu to its result once successfull, and its function's dashboard. */
export function toAnalysisState(row: AnalysisRow): AnalysisTrialState {
  const definition = functionOfKind(row.kind);
  return {
    state: { status: row.status, error: row.status === 'failed' ? row.error : null },
    task_id: row.taskId,
    menu: row.status === 'successfull' ? [{ label: definition.title, result_tag: analysisResultTag(row.kind) }] : [],
    dashboard_id: definition.id,
  };
}

/**
 * The rules of analyses (spec §2.13, §3, §6, §7 Analysis): the owner invokes a function on the done
 * movement trials of a session, each runs as a job; whoever may read a trial's session reads its
 * analyses (see the sharing rule in contracts' analysis.ts).
 */
export function createAnalysisService(deps: AnalysisServiceDeps) {
  const { analyses, trials, subjects, sessionService, trialService, queue, media } = deps;

  /**
   * The states the viewer may see: a session's (any reader of it, when its data-sharing choice
   * shares processed data, as analyses are), else the signed-in user's own.
   */
  async function visibleStates(viewer: Viewer, sessionId?: string): Promise<AnalysisWithTrial[]> {
    if (sessionId === undefined) return viewer.user ? analyses.ofUser(viewer.user.id) : [];
    const { access, view } = await sessionService.access(viewer, sessionId);
    if (!view.disclosure.processedData) return [];
    const rows = (await trials.ofSession(sessionId)).filter((trial) => access === 'owner' || !trial.trashed);
    return analyses.ofTrials(rows.map((trial) => trial.id));
  }

  function requireFunction(id: number) {
    const definition = functionById(id);
    if (!definition) throw notFound(analysisMessages.functionNotFound);
    return definition;
  }

  /** Whether the viewer may read the trial (GET /trials/{id}/'s rule) and its processed data; else 404 with `detail`. */
  async function assertAnalysesReadable(viewer: Viewer, trialId: string, detail: string): Promise<void> {
    const trial = await trialService.get(viewer, trialId).catch((error: unknown) => {
      throw error instanceof HttpError && error.statusCode === 404 ? notFound(detail) : error;
    });
    const { view } = await sessionService.access(viewer, trial.session);
    if (!view.disclosure.processedData) throw notFound(detail);
  }

  function dashboard(id: number): AnalysisDashboard {
    const found = dashboardById(id);
    if (!found) throw notFound(analysisMessages.dashboardNotFound);
    return found;
  }

  return {
    async functions(viewer: Viewer, sessionId?: string): Promise<AnalysisFunction[]> {
      const rows = await visibleStates(viewer, sessionId);
      return analysisFunctions.map((definition) => {
        const own = rows.filter((row) => row.analysis.kind === definition.kind);
        const withStatus = (status: AnalysisRow['status']) =>
          own.filter((row) => row.analysis.status === status).map((row) => row.trial.id);
        return {
          ...definition,
          trials: withStatus('pending'),
          results: withStatus('successfull'),
          states: Object.fromEntries(own.map((row) => [row.trial.id, toAnalysisState(row.analysis)])),
        };
      });
    },

    async states(viewer: Viewer, sessionId?: string): Promise<Record<string, Record<string, AnalysisTrialState>>> {
      const rows = await visibleStates(viewer, sessionId);
      return Object.fromEntries(
        analysisFunctions.map((definition) => [
          String(definition.id),
          Object.fromEntries(
            rows
              .filter((row) => row.analysis.kind === definition.kind)
              .map((row) => [row.trial.id, toAnalysisState(row.analysis)]),
          ),
        ]),
      );
    },

    async pending(context: AuthContext) {
      const rows = await analyses.ofUser(context.user.id, { status: 'pending' });
      return rows.map((row) => ({
        function_id: ANALYSIS_FUNCTION_IDS[row.analysis.kind],
        trial_id: row.trial.id,
        task_id: row.analysis.taskId,
      }));
    },

    async taskForTrial(viewer: Viewer, functionId: number, trialId: string): Promise<{ task_id: string }> {
      const definition = requireFunction(functionId);
      await assertAnalysesReadable(viewer, trialId, messages.trialNotFound);
      const row = (await analyses.ofTrials([trialId])).find((candidate) => candidate.analysis.kind === definition.kind);
      if (!row) throw notFound(analysisMessages.taskNotFound);
      return { task_id: row.analysis.taskId };
    },

    /** Owner only; every named trial must be a done movement trial not in the recycle bin, or nothing starts. */
    async invoke(
      context: AuthContext,
      functionId: number,
      request: AnalysisInvokeRequest,
    ): Promise<AnalysisInvokeResponse> {
      const definition = requireFunction(functionId);
      const { session, access } = await sessionService.access({ user: context.user }, request.session_id);
      if (access !== 'owner') throw notFound(messages.sessionNotFound);
      const ofSession = await trials.ofSession(session.id);
      const chosen = [...new Set(request.specific_trial_names)].map((name) => {
        const trial =
          ofSession.find((row) => row.name === name) ??
          ofSession.find((row) => row.name.toLowerCase() === name.toLowerCase());
        const error = !trial
          ? analysisMessages.trialNotInSession(name)
          : trialKindOf(trial.name) !== 'movement'
            ? analysisMessages.notOnNeutral
            : trial.trashed
              ? analysisMessages.notOnTrashed
              : trial.status !== 'done'
                ? analysisMessages.notDone(trial.name)
                : null;
        return { trial, error };
      });
      const refused = chosen.flatMap((item) => (item.error ? [item.error] : []));
      if (refused.length > 0) throw invalidFields({ specific_trial_names: refused });
      const tasks = [];
      for (const { trial } of chosen) {
        const row = await analyses.start(trial!.id, definition.kind);
        await queue.send('analyse-trial', { taskId: row.taskId }, JOB_OPTIONS);
        tasks.push({ trial_id: trial!.id, trial_name: trial!.name, task_id: row.taskId });
      }
      return { task_id: tasks[0].task_id, tasks };
    },

    /** 202 while pending (`{ status: 'pending' }`), then the state. */
    async result(
      viewer: Viewer,
      taskId: string,
    ): Promise<{ pending: true } | { pending: false; result: AnalysisTaskResult }> {
      const row = await analyses.byTask(taskId);
      if (!row) throw notFound(analysisMessages.taskNotFound);
      await assertAnalysesReadable(viewer, row.trial.id, analysisMessages.taskNotFound);
      if (row.analysis.status === 'pending') return { pending: true };
      return {
        pending: false,
        result: {
          ...toAnalysisState(row.analysis),
          function_id: ANALYSIS_FUNCTION_IDS[row.analysis.kind],
          trial_id: row.trial.id,
        },
      };
    },

    dashboards(): AnalysisDashboard[] {
      return analysisDashboards;
    },

    dashboard,

    /**
     * The dashboard with what the viewer may open in it: successfull results of its kind, of the
     * owner's trials, of one subject (owner or share token) or of one trial (any reader), each as the
     * viewer's session view discloses it (access.ts): results are processed data; subject names only
     * for those who may read the subject.
     */
    async dashboardData(
      viewer: Viewer,
      id: number,
      query: { subject_id?: number; trial_id?: string },
    ): Promise<AnalysisDashboardWithData> {
      const { kind } = dashboard(id);
      const narrowed = query.subject_id !== undefined || query.trial_id !== undefined;
      const rows =
        narrowed || viewer.user
          ? await analyses.successfull(kind, {
              ...(narrowed ? {} : { userId: viewer.user!.id }),
              ...(query.subject_id !== undefined && { subjectId: query.subject_id }),
              ...(query.trial_id !== undefined && { trialId: query.trial_id }),
            })
          : [];
      const subjectRows = new Map<number, SubjectRow | undefined>();
      for (const subjectId of new Set(
        rows.flatMap((row) => (row.session.subjectId === null ? [] : [row.session.subjectId])),
      )) {
        subjectRows.set(subjectId, await subjects.findById(subjectId));
      }
      const subjectOf = (row: AnalysisWithTrial) =>
        row.session.subjectId === null ? undefined : subjectRows.get(row.session.subjectId);
      const readable = rows.flatMap((row) => {
        const view = sessionView(row.session, viewer, subjectOf(row));
        return view?.disclosure.processedData ? [{ ...row, view }] : [];
      });
      const keys = await analyses.resultKeys(readable.map((row) => row.analysis.resultId!));
      const unique = <T extends { id: unknown }>(items: T[]) => [
        ...new Map(items.map((item) => [item.id, item])).values(),
      ];
      return {
        ...dashboard(id),
        data: {
          subjects: unique(
            readable.flatMap((row) => {
              const subject = subjectOf(row);
              if (!subject) return [];
              return [
                {
                  id: subject.id,
                  name: row.view.disclosure.subjectDetails
                    ? subject.name
                    : analysisMessages.undisclosedSubject(subject.id),
                },
              ];
            }),
          ),
          sessions: unique(
            readable.map(({ session }) => ({
              id: session.id,
              name: sessionNameOf(session),
              created_at: session.createdAt.toISOString(),
              subject: session.subjectId,
              public: session.public,
            })),
          ),
          trials: readable.map(({ trial }) => ({ id: trial.id, name: trial.name, session: trial.sessionId })),
          results: readable.flatMap(({ trial, analysis, view }) => {
            const key = keys.get(analysis.resultId!);
            return key
              ? [
                  {
                    trial_id: trial.id,
                    task_id: analysis.taskId,
                    media: media.url(key, { grant: view.grant, kind: 'data' }),
                  },
                ]
              : [];
          }),
        },
      };
    },
  };
}

export type AnalysisService = ReturnType<typeof createAnalysisService>;
