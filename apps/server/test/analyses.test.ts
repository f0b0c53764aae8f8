import { readFileSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schema } from '@kinetrace/db';
import {
  analysisDashboardWithDataSchema,
  analysisFunctionsResponseSchema,
  analysisMessages,
  analysisPaths,
  analysisResultSchema,
  analysisStatesResponseSchema,
  analysisTaskResultSchema,
  RESULT_TAGS,
  type AnalysisDashboardWithData,
  type AnalysisFunction,
  type AnalysisInvokeResponse,
  type AnalysisTaskResult,
  type Session,
  type Subject,
  type Trial,
} from '@kinetrace/contracts';
import { describeWithData, referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { createAnalysisJob } from '../src/analyses/analysis-job.ts';
import { createAnalysisRepository } from '../src/analyses/analysis-repository.ts';
import { AnalysisThread, AnalysisThreadError } from '../src/analyses/analysis-thread.ts';
import { createSubjectsRepository } from '../src/repositories/subjects-repository.ts';
import { createTrialsRepository } from '../src/repositories/trials-repository.ts';
import { sessionWithSubject, subjectBody } from './support/owned-data.ts';
import { seedTrial } from './support/seed.ts';
import {
  authHeader,
  startTestApp,
  testBackends,
  verifiedUser,
  type Backend,
  type TestApp,
} from './support/test-app.ts';

/**
 * Spec §7 Analysis's nine calls on a session whose trials stand in for processed ones: OpenCap's
 * walking trial (its IK .mot and the scaled model of its session) imported through the file store,
 * since these tests are about analyses, not processing. The engine's own figures are tested in
 * packages/mocap; here: jobs, states, results stored as trial results, and who may see what.
 */
const OPENCAP_SESSION =
  'opencap_outputs/opencap-processing@e94e44aeba/ActivityAnalyses/Data/03284efb-2244-4a48-aec9-abc34afdffc8';
const WALK_MOT = `${OPENCAP_SESSION}/OpenSimData/Kinematics/walk.mot`;
const SCALED_MODEL = `${OPENCAP_SESSION}/OpenSimData/Model/LaiArnoldModified2017_poly_withArms_weldHand_scaled.osim`;
const GAIT = 1;
const SQUAT = 2;
const api = (path: string) => `/api${path}`;

/** The walk's motion with every frame the first one: someone standing still for as long. */
function standingStill(motText: string): string {
  const [header, body] = motText.split(/endheader\r?\n/);
  const [columns, ...rows] = body.trim().split(/\r?\n/);
  const first = rows[0].trim().split(/\s+/);
  const still = rows.map((row) => [row.trim().split(/\s+/)[0], ...first.slice(1)].join('\t'));
  return `${header}endheader\n${columns}\n${still.join('\n')}\n`;
}

describeWithData('analyses off the event loop', [WALK_MOT, SCALED_MODEL], () => {
  const request = () => ({
    kind: 'gait' as const,
    files: {
      modelXml: readFileSync(referencePath(SCALED_MODEL), 'utf8'),
      motionText: readFileSync(referencePath(WALK_MOT), 'utf8'),
      heightM: 1.86,
    },
  });

  it('runs analyses in a worker thread while the server keeps its event loop, and stops one past its time limit', async () => {
    const thread = new AnalysisThread(60_000);
    try {
      // A timer of the main thread keeps firing while the thread parses, runs forward kinematics and
      // analyses (on the main thread it could not fire before the whole analysis was done).
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const reply = await thread.run(request(), 120_000);
      clearInterval(timer);
      expect(reply.status === 'done' && analysisResultSchema.parse(reply.result).analysis).toBe('gait');
      expect(ticks).toBeGreaterThan(5);

      // The engine's message for the user comes back as such, on the same thread.
      const files = { ...request().files, motionText: standingStill(request().files.motionText) };
      expect(await thread.run({ kind: 'gait', files }, 120_000)).toEqual({
        status: 'user-error',
        message: expect.stringMatching(/^No complete gait cycle found/),
      });
      // One past its time limit is stopped as ours; the next analysis gets a new thread.
      await expect(thread.run(request(), 1)).rejects.toThrow(AnalysisThreadError);
      expect((await thread.run(request(), 120_000)).status).toBe('done');
    } finally {
      await thread.close();
    }
  }, 60_000);
});

const backends: Backend[] = await testBackends();

for (const backend of backends) {
  describeWithData(`analyses through the API (${backend})`, [WALK_MOT, SCALED_MODEL], () => {
    let test: TestApp;
    let owner: Awaited<ReturnType<typeof verifiedUser>>;
    let other: Awaited<ReturnType<typeof verifiedUser>>;
    let session: Session;
    let subject: Subject;
    const trial: Record<'walk' | 'still' | 'noAngles' | 'binned' | 'busy' | 'neutral', string> = {} as never;

    const get = (url: string, token?: string) =>
      test.call({ method: 'GET', url: api(url), headers: token ? authHeader(token) : {} });
    const invoke = (functionId: number, names: string[], token = owner.token) =>
      test.call({
        method: 'POST',
        url: api(analysisPaths.invoke(functionId)),
        headers: authHeader(token),
        payload: { session_id: session.id, specific_trial_names: names },
      });

    /** Polls the task as the web does (every second; here faster) until it is no longer pending. */
    async function finished(taskId: string): Promise<AnalysisTaskResult> {
      for (let tries = 0; tries < 600; tries++) {
        const response = await get(analysisPaths.result(taskId), owner.token);
        if (response.statusCode === 200) return analysisTaskResultSchema.parse(response.json());
        expect(response.statusCode).toBe(202);
        expect(response.json()).toEqual({ status: 'pending' });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`analysis ${taskId} still pending`);
    }

    beforeAll(async () => {
      test = await startTestApp(backend);
      owner = await verifiedUser(test);
      other = await verifiedUser(test);
      const headers = authHeader(owner.token);
      // The subject of that OpenCap session (its sessionMetadata.yaml).
      ({ session, subject } = await sessionWithSubject(test, owner.token, {
        ...subjectBody,
        name: 'Walker',
        weight: 83,
        height: 1.86,
        birth_year: 1990,
      }));
      const model = readFileSync(referencePath(SCALED_MODEL));
      const walk = readFileSync(referencePath(WALK_MOT));
      trial.neutral = await seedTrial(test, session.id, {
        name: 'neutral',
        results: [{ tag: RESULT_TAGS.opensimModel, fileName: 'scaled.osim', bytes: model }],
      });
      const angles = (bytes: Buffer) => [{ tag: RESULT_TAGS.ikResults, fileName: 'trial.mot', bytes }];
      trial.walk = await seedTrial(test, session.id, { name: 'walk', results: angles(walk) });
      trial.still = await seedTrial(test, session.id, {
        name: 'still',
        results: angles(Buffer.from(standingStill(walk.toString('utf8')))),
      });
      trial.noAngles = await seedTrial(test, session.id, { name: 'no_angles' });
      trial.binned = await seedTrial(test, session.id, { name: 'binned', results: angles(walk) });
      trial.busy = await seedTrial(test, session.id, { name: 'busy', status: 'processing' });
      expect((await test.call({ method: 'POST', url: `/api/trials/${trial.binned}/trash/`, headers })).statusCode).toBe(
        200,
      );
    }, 120_000);

    afterAll(async () => {
      await test?.close();
    });

    it('runs gait on the walk as a job: pending (202), then successfull (200) with its result stored as a trial result', async () => {
      const invoked = await invoke(GAIT, ['walk']);
      expect(invoked.statusCode).toBe(200);
      const { task_id: taskId, tasks } = invoked.json() as AnalysisInvokeResponse;
      expect(tasks).toEqual([{ trial_id: trial.walk, trial_name: 'walk', task_id: taskId }]);

      const done = await finished(taskId);
      expect(done).toEqual({
        state: { status: 'successfull', error: null },
        task_id: taskId,
        menu: [{ label: expect.any(String), result_tag: 'analysis-gait' }],
        dashboard_id: GAIT,
        function_id: GAIT,
        trial_id: trial.walk,
      });

      const walk = (await get(`/trials/${trial.walk}/`, owner.token)).json() as Trial;
      const stored = walk.results.filter((result) => result.tag === 'analysis-gait');
      expect(stored).toHaveLength(1);
      const file = await test.call({ method: 'GET', url: stored[0].media! });
      expect(file.statusCode).toBe(200);
      const result = analysisResultSchema.parse(file.json());
      expect(result.analysis).toBe('gait');
      expect(result.metrics.gait_speed.value).toBeGreaterThan(0.5);
      expect(result.metrics.gait_speed.value).toBeLessThan(2.5);

      const functions = analysisFunctionsResponseSchema.parse((await get(analysisPaths.functions, owner.token)).json());
      const gait = functions.find((fn) => fn.id === GAIT)!;
      expect(gait.kind).toBe('gait');
      expect(gait.title.length).toBeGreaterThan(0);
      expect(gait.results).toEqual([trial.walk]);
      expect(gait.trials).toEqual([]);
      expect(gait.states[trial.walk].task_id).toBe(taskId);
      expect((await get(analysisPaths.taskForTrial(GAIT, trial.walk), owner.token)).json()).toEqual({
        task_id: taskId,
      });
      const states = analysisStatesResponseSchema.parse(
        (await get(`${analysisPaths.states}?session_id=${session.id}`, owner.token)).json(),
      );
      expect(states[String(GAIT)][trial.walk].state.status).toBe('successfull');
      expect(states[String(SQUAT)]).toEqual({});
    });

    it('ends failed with what to do when the trial cannot be analysed, and with our own message when it has no joint angles', async () => {
      const still = (await invoke(GAIT, ['still'])).json() as AnalysisInvokeResponse;
      const failed = await finished(still.task_id);
      expect(failed.state.status).toBe('failed');
      // The engine's own words (packages/mocap gait), not an error's text or a path.
      expect(failed.state.error).toMatch(/^No complete gait cycle found: record at least two steps of each foot/);
      expect(failed.menu).toEqual([]);

      const noAngles = (await invoke(GAIT, ['no_angles'])).json() as AnalysisInvokeResponse;
      expect((await finished(noAngles.task_id)).state).toEqual({ status: 'failed', error: analysisMessages.noResults });
    });

    it('re-runs: a new task replaces the state and the stored result', async () => {
      const before = ((await get(`/trials/${trial.walk}/`, owner.token)).json() as Trial).results.find(
        (r) => r.tag === 'analysis-gait',
      )!;
      const again = (await invoke(GAIT, ['walk'])).json() as AnalysisInvokeResponse;
      expect((await get(analysisPaths.taskForTrial(GAIT, trial.walk), owner.token)).json()).toEqual({
        task_id: again.task_id,
      });
      expect((await finished(again.task_id)).state.status).toBe('successfull');
      const after = ((await get(`/trials/${trial.walk}/`, owner.token)).json() as Trial).results.filter(
        (r) => r.tag === 'analysis-gait',
      );
      expect(after).toHaveLength(1);
      expect(after[0].id).not.toBe(before.id);
      // The replaced file goes once the new result is recorded, so a moment after the state says so.
      await expect.poll(async () => (await test.call({ method: 'GET', url: before.media! })).statusCode).toBe(404);
    });

    it('refuses the neutral, trashed, unfinished and unknown trials with field-keyed messages, and bad input', async () => {
      const refused = async (names: string[]) => {
        const response = await invoke(GAIT, names);
        expect(response.statusCode).toBe(400);
        return response.json() as Record<string, string[]>;
      };
      expect(await refused(['neutral'])).toEqual({ specific_trial_names: [analysisMessages.notOnNeutral] });
      expect(await refused(['binned'])).toEqual({ specific_trial_names: [analysisMessages.notOnTrashed] });
      expect(await refused(['busy', 'nowhere'])).toEqual({
        specific_trial_names: [analysisMessages.notDone('busy'), analysisMessages.trialNotInSession('nowhere')],
      });
      const empty = await test.call({
        method: 'POST',
        url: api(analysisPaths.invoke(GAIT)),
        headers: authHeader(owner.token),
        payload: {},
      });
      expect(empty.statusCode).toBe(400);
      expect(Object.keys(empty.json() as object).sort()).toEqual(['session_id', 'specific_trial_names']);
      expect((await invoke(99, ['walk'])).statusCode).toBe(404);
      expect((await get(analysisPaths.result('00000000-0000-4000-8000-000000000000'), owner.token)).statusCode).toBe(
        404,
      );
      expect((await get('/analysis-result/not-a-task/', owner.token)).statusCode).toBe(404);
      expect((await get(analysisPaths.taskForTrial(SQUAT, trial.walk), owner.token)).statusCode).toBe(404);
      expect((await get(`${analysisPaths.dashboardData(GAIT)}?subject_id=abc`, owner.token)).json()).toHaveProperty(
        'subject_id',
      );
    });

    it('serves the dashboards and, to the owner, the analysed trials with their result files', async () => {
      const dashboards = (await get(analysisPaths.dashboards)).json() as AnalysisDashboardWithData[];
      expect(dashboards.map((dashboard) => dashboard.kind)).toEqual(['gait', 'squat', 'sit-to-stand', 'drop-jump']);
      expect((await get(analysisPaths.dashboard(GAIT))).json()).toEqual(dashboards[0]);
      expect((await get(analysisPaths.dashboard(99))).statusCode).toBe(404);

      const data = analysisDashboardWithDataSchema.parse(
        (await get(analysisPaths.dashboardData(GAIT), owner.token)).json(),
      ).data;
      expect(data.trials).toEqual([{ id: trial.walk, name: 'walk', session: session.id }]);
      expect(data.subjects).toEqual([{ id: subject.id, name: 'Walker' }]);
      expect(data.sessions).toEqual([expect.objectContaining({ id: session.id, subject: subject.id, public: false })]);
      expect(data.results).toHaveLength(1);
      expect(
        analysisResultSchema.parse((await test.call({ method: 'GET', url: data.results[0].media })).json()).analysis,
      ).toBe('gait');
      expect((await get(analysisPaths.dashboardData(SQUAT), owner.token)).json()).toMatchObject({
        data: { trials: [], results: [] },
      });
    });

    it('shows a private session analyses to nobody else, to the holder of the subject share token, and to everyone once public', async () => {
      const { task_id: taskId } = (await get(analysisPaths.taskForTrial(GAIT, trial.walk), owner.token)).json() as {
        task_id: string;
      };
      const dataFor = async (query: string, token?: string) =>
        analysisDashboardWithDataSchema.parse(
          (await get(`${analysisPaths.dashboardData(GAIT)}?${query}`, token)).json(),
        ).data;
      const readCalls = (suffix = '') => [
        `${analysisPaths.result(taskId)}${suffix ? `?${suffix}` : ''}`,
        `${analysisPaths.taskForTrial(GAIT, trial.walk)}${suffix ? `?${suffix}` : ''}`,
        `${analysisPaths.states}?session_id=${session.id}${suffix ? `&${suffix}` : ''}`,
        `${analysisPaths.functions}?session_id=${session.id}${suffix ? `&${suffix}` : ''}`,
      ];

      // Private: the other user and anonymous see nothing of it; only the owner invokes or lists pending.
      for (const token of [other.token, undefined]) {
        for (const url of readCalls()) expect((await get(url, token)).statusCode, url).toBe(404);
        expect(await dataFor(`trial_id=${trial.walk}`, token)).toEqual({
          subjects: [],
          sessions: [],
          trials: [],
          results: [],
        });
        expect(await dataFor(`subject_id=${subject.id}`, token)).toMatchObject({ results: [] });
      }
      expect((await invoke(GAIT, ['walk'], other.token)).statusCode).toBe(404);
      expect((await get(analysisPaths.pending, other.token)).json()).toEqual([]);
      expect((await get(analysisPaths.pending)).statusCode).toBe(401);
      expect(
        (
          await test.call({
            method: 'POST',
            url: api(analysisPaths.invoke(GAIT)),
            payload: { session_id: session.id, specific_trial_names: ['walk'] },
          })
        ).statusCode,
      ).toBe(401);
      const otherFunctions = (await get(analysisPaths.functions, other.token)).json() as AnalysisFunction[];
      expect(otherFunctions.every((fn) => Object.keys(fn.states).length === 0)).toBe(true);

      // The subject's share token opens its analyses to anyone who holds it, not a wrong one.
      const share = `share_token=${subject.share_token}`;
      for (const url of readCalls(share)) expect((await get(url)).statusCode, url).toBe(200);
      const shared = await dataFor(`subject_id=${subject.id}&${share}`);
      expect(shared.trials.map((row) => row.id)).toEqual([trial.walk]);
      expect((await test.call({ method: 'GET', url: shared.results[0].media })).statusCode).toBe(200);
      expect(await dataFor(`subject_id=${subject.id}&share_token=wrong`)).toMatchObject({ trials: [] });
      expect((await get(analysisPaths.result(taskId) + '?share_token=wrong')).statusCode).toBe(404);

      // A public session makes its analyses public.
      const headers = authHeader(owner.token);
      expect(
        (await test.call({ method: 'PATCH', url: `/api/sessions/${session.id}/`, headers, payload: { public: true } }))
          .statusCode,
      ).toBe(200);
      for (const token of [other.token, undefined]) {
        for (const url of readCalls()) expect((await get(url, token)).statusCode, url).toBe(200);
        expect((await dataFor(`trial_id=${trial.walk}`, token)).results.map((row) => row.trial_id)).toEqual([
          trial.walk,
        ]);
      }
      expect((await invoke(GAIT, ['walk'], other.token)).statusCode).toBe(404);

      // Unless the subject's consent shares no data: analyses are processed data (access.ts disclosure).
      const setSharing = (choice: string) =>
        test.call({
          method: 'GET',
          url: `/api/sessions/${session.id}/set_metadata/?settings_data_sharing=${encodeURIComponent(choice)}`,
          headers,
        });
      expect((await setSharing('Share no data')).statusCode).toBe(200);
      const [result, taskForTrial, states] = readCalls();
      expect((await get(result)).statusCode).toBe(404);
      expect((await get(taskForTrial)).statusCode).toBe(404);
      expect(
        Object.values(analysisStatesResponseSchema.parse((await get(states)).json())).flatMap(Object.keys),
      ).toEqual([]);
      expect(await dataFor(`trial_id=${trial.walk}`)).toEqual({ subjects: [], sessions: [], trials: [], results: [] });
      expect((await get(result, owner.token)).statusCode).toBe(200);
      expect((await setSharing('Share processed data')).statusCode).toBe(200);
      await test.call({ method: 'PATCH', url: `/api/sessions/${session.id}/`, headers, payload: { public: false } });
    });

    it('forgets an analysis whose result reprocessing replaced', async () => {
      const again = await seedTrial(test, session.id, {
        name: 'walk_again',
        results: [{ tag: RESULT_TAGS.ikResults, fileName: 'trial.mot', bytes: readFileSync(referencePath(WALK_MOT)) }],
      });
      const { task_id: taskId } = (await invoke(GAIT, ['walk_again'])).json() as AnalysisInvokeResponse;
      expect((await finished(taskId)).state.status).toBe('successfull');
      // What processing's commit does to a reprocessed trial: all its results are replaced.
      await test.backends.database.db.delete(schema.trialResults).where(eq(schema.trialResults.trialId, again));
      expect((await get(analysisPaths.taskForTrial(GAIT, again), owner.token)).statusCode).toBe(404);
      const gait = ((await get(analysisPaths.functions, owner.token)).json() as AnalysisFunction[]).find(
        (fn) => fn.id === GAIT,
      )!;
      expect(gait.states[again]).toBeUndefined();
      expect(gait.results).toEqual([trial.walk]);
    });

    it('drops a trial analysis state with the trial', async () => {
      const victim = await seedTrial(test, session.id, {
        name: 'victim',
        results: [{ tag: RESULT_TAGS.ikResults, fileName: 'trial.mot', bytes: Buffer.from('x') }],
      });
      const { task_id: taskId } = (await invoke(SQUAT, ['victim'])).json() as AnalysisInvokeResponse;
      const headers = authHeader(owner.token);
      expect(
        (await test.call({ method: 'POST', url: `/api/trials/${victim}/permanent_remove/`, headers })).statusCode,
      ).toBe(204);
      expect((await get(analysisPaths.result(taskId), owner.token)).statusCode).toBe(404);
      expect(
        ((await get(analysisPaths.pending, owner.token)).json() as { trial_id: string }[]).map((row) => row.trial_id),
      ).not.toContain(victim);
      const squat = ((await get(analysisPaths.functions, owner.token)).json() as AnalysisFunction[]).find(
        (fn) => fn.id === SQUAT,
      )!;
      expect(squat.states[victim]).toBeUndefined();
    });

    it('ends an analysis interrupted by two restarts failed with the message users read, retries one interrupted once, and fails one its job abandoned', async () => {
      const { db } = test.backends.database;
      const repository = createAnalysisRepository(db);
      const walk = readFileSync(referencePath(WALK_MOT));
      const pending = async (name: string) => {
        const trialId = await seedTrial(test, session.id, {
          name,
          results: [{ tag: RESULT_TAGS.ikResults, fileName: 'trial.mot', bytes: walk }],
        });
        return (await repository.start(trialId, 'gait')).taskId;
      };
      /** What a stopped process leaves: the task's job active in the queue, the task silent for `silentMs`. */
      const interrupted = async (taskId: string, retryCount: number, silentMs: number) => {
        if (retryCount >= 0)
          await test.backends.database.executeSql(
            `insert into pgboss.job (name, data, state, retry_limit, retry_count, started_on)
             values ('analyse-trial', $1::jsonb, 'active', 1, $2, now())`,
            [JSON.stringify({ taskId }), retryCount],
          );
        await db
          .update(schema.analysisResults)
          .set({ updatedAt: new Date(Date.now() - silentMs) })
          .where(eq(schema.analysisResults.taskId, taskId));
      };
      const twice = await pending('interrupted_twice');
      await interrupted(twice, 1, 5 * 60_000); // the retry (1 of 1) was interrupted too
      const once = await pending('interrupted_once');
      await interrupted(once, 0, 5 * 60_000);
      const recent = await pending('still_running');
      await interrupted(recent, 0, 1000); // elsewhere, its heartbeat fresh
      const abandoned = await pending('abandoned');
      await interrupted(abandoned, -1, 2 * 3600_000); // no job left at all

      // The recovery the server runs at start-up and every 30 s (here at once, as a second process would).
      const job = createAnalysisJob({
        analyses: repository,
        trials: createTrialsRepository(db),
        subjects: createSubjectsRepository(db),
        files: test.backends.files,
        queue: test.backends.queue,
        singleProcess: false,
        log: { info: () => undefined, error: () => undefined },
      });
      await job.recover();

      for (const taskId of [twice, abandoned])
        expect((await finished(taskId)).state).toEqual({ status: 'failed', error: analysisMessages.internalFailure });
      // Retried by the queue, and run to its end by this server's worker.
      expect((await finished(once)).state.status).toBe('successfull');
      expect((await get(analysisPaths.result(recent), owner.token)).statusCode).toBe(202);
      const { rows } = await test.backends.database.executeSql(
        `select data->>'taskId' as task, state from pgboss.job where name = 'analyse-trial' and data->>'taskId' = any($1)`,
        [[twice, recent]],
      );
      expect(Object.fromEntries(rows.map((row) => [row.task, row.state]))).toEqual({
        [twice]: 'failed',
        [recent]: 'active',
      });
    }, 60_000);
  });
}
