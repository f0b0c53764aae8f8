/**
 * The demo movement trial (Pose2Sim, 4 cameras, 1.7 s at 60 fps, phone-sized 544 x 960) processed
 * twice: through the server (import of its videos → the in-process runner → `done`, on PGlite) and
 * through the engine alone (`processMovement` on the same videos, cameras and scaled model, as
 * `kinetrace process` runs it). Prints the seconds from the last upload to done (the joint angles
 * on screen) and to its synchronised videos ready (made after done since issue 24; done included
 * them before), the time per stage of each, what the server adds, and the longest stall of the
 * server's event loop (its API) while each of its trials processed.
 *
 * Then issue 24's 10 s trial from two phones at 60 fps, from the last upload to done: (a) with the server's pose
 * on every frame, (b) with its speed-ups (the pose model at the rate the trial's filter needs, the server's
 * default), (c) with the phones' keypoints; and the RMS difference of (b)'s and (c)'s hip, knee and ankle angles
 * from (a)'s, beside (a) and (b) each against itself; and (b) as two phones upload it, the second video in
 * SECOND_UPLOAD_AFTER_S after the first, whose camera is detected meanwhile (issue 24). KINETRACE_BENCH_ONLY=10s
 * runs only that trial, KINETRACE_BENCH_ROUNDS sets the runs of each path (default 3), KINETRACE_BENCH_KEEP=<folder>
 * keeps each 10 s trial's angles, markers and quality report there.
 *
 * Goals: the server adds under 10 % to the engine's time (issue 9); no stall of the API over 100 ms
 * while a trial processes (issue 24); (b) under 30 s and (c) under 15 s, within 2° RMS of (a) (issue 24).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { RESULT_TAGS, type ProcessingStage, type Session, type Subject, type Trial } from '@kinetrace/contracts';
import { readStorage, type StorageTable } from '@kinetrace/mocap/formats/mot';
import { compareMotions, type CoordinateComparison } from '@kinetrace/mocap/ik/compare-motions';
import { detectPoseInVideo } from '@kinetrace/mocap/pose/video-pose';
import { readKinetraceCameras } from '@kinetrace/mocap/camera/formats/kinetrace-json';
import { PoseWorkerPool } from '@kinetrace/mocap/pose/pose-worker-pool';
import { probeVideo } from '@kinetrace/mocap/video/probe';
import { processMovement } from '@kinetrace/mocap/session/process-movement';
import type { QualityReport } from '@kinetrace/mocap/report/quality-report';
import { resolveProcessingSettings } from '@kinetrace/processing/processing-settings';
import { FLEXION_COORDINATES } from '../../../packages/mocap/test/model-fitting/pose2sim-demo-chain.ts';
import { POSE2SIM_DEMO } from '../../../packages/mocap/test/calibration/pose2sim-reference.ts';
import { referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { buildApp } from '../src/app.ts';
import { openBackends } from '../src/backends.ts';
import { loadConfig } from '../src/config.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_SUBJECT,
  DEMO_SOURCES,
  importForm,
  loopedDemoVideos,
  makeBoardVideos,
  makeDemoVideos,
  type TrialVideos,
} from '../test/support/processing-fixtures.ts';
import { codeIn, readOutbox } from '../test/support/outbox.ts';
import { pairPhones, phoneKeypointsFile, recordOnPhones } from '../test/support/fake-phone.ts';

const DEMO_TRIAL_S = 1.7;
/** Issue 24's goal is set on a 10 s trial from two phones. */
const TEN_SECOND_TRIAL_S = 10;
/**
 * (b) as phones upload it: the second phone's video in this long after the first's. Each phone sends its 10 s video
 * (about 10 MB at phone bitrates) when the recording stops, one after the other over a shared Wi-Fi at a few
 * MB/s: seconds apart, 15 s being a slow network's figure. Meanwhile the first is detected on arrival (issue 24).
 */
const SECOND_UPLOAD_AFTER_S = 15;
/** Frames either way searched for the lag between two runs' angles of one trial. */
const MAX_LAG_FRAMES = 30;
/** The event loop's delay is sampled this often (ms); the longest delay over it is the longest stall. */
const STALL_RESOLUTION_MS = 10;
const STALL_GOAL_MS = 100;
/** Runs of each path, alternated. */
const ROUNDS = Number(process.env.KINETRACE_BENCH_ROUNDS ?? 3);
/** KINETRACE_BENCH_ONLY=10s runs only issue 24's 10 s trial (its session's calibration and neutral included). */
const TEN_SECONDS_ONLY = process.env.KINETRACE_BENCH_ONLY === '10s';
/** A folder to keep each 10 s trial's joint angles (.mot) and quality report in, for a closer look (default: none). */
const KEEP_DIR = process.env.KINETRACE_BENCH_KEEP;
/** The runner's trace of each processed trial ('trial processed' log lines: queue wait and seconds per step, processing-service.ts). */
const traces = new Map<string, Record<string, number>>();
/** The server's log at its default level (info), kept only for the traces. */
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.includes('"trial processed"')) continue;
      const { trialId, queuedS, inputsS, engineS, resultsS, followUpS, progressWrites, progressS } = JSON.parse(
        line,
      ) as Record<string, number> & { trialId: string };
      traces.set(trialId, { queuedS, inputsS, engineS, resultsS, followUpS, progressWrites, progressS });
    }
    done();
  },
});

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor((values.length - 1) / 2)];

/** The machine's load averages (1, 5, 15 min), as `uptime` shows them: figures from a busy machine are noise. */
const loadText = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');

/** Runs `work` with the event loop watched: its result and the longest stall meanwhile, ms. */
async function watchingStalls<T>(work: () => Promise<T>): Promise<T & { stallMs: number }> {
  const delay = monitorEventLoopDelay({ resolution: STALL_RESOLUTION_MS });
  delay.enable();
  try {
    const result = await work();
    // The histogram counts from the resolution's tick: what is over it is the stall.
    return { ...result, stallMs: Math.max(0, delay.max / 1e6 - STALL_RESOLUTION_MS) };
  } finally {
    delay.disable();
  }
}

/** Where a trial's result with `tag` is served. */
function resultUrl(trial: Trial, tag: string): string {
  const media = trial.results.find((result) => result.tag === tag)?.media;
  if (!media) throw new Error(`trial ${trial.name} has no ${tag}`);
  return media;
}

/** Seconds spent in each stage, from the times each stage was first seen. */
function stageSeconds(changes: { stage: string; atS: number }[], endS: number): Map<string, number> {
  const seconds = new Map<string, number>();
  changes.forEach((change, index) => {
    const next = changes[index + 1]?.atS ?? endS;
    seconds.set(change.stage, (seconds.get(change.stage) ?? 0) + next - change.atS);
  });
  return seconds;
}

async function main(): Promise<void> {
  const missing = DEMO_SOURCES.filter((path) => !existsSync(referencePath(path)));
  if (missing.length > 0) {
    console.log(`skipped: reference data missing (${missing.join(', ')})`);
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-processing-bench-'));
  try {
    const videos = await makeDemoVideos(join(root, 'videos'), DEMO_TRIAL_S);
    const config = loadConfig({
      DATA_DIR: join(root, 'data'),
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'http://kinetrace.bench',
    });
    const backends = await openBackends(config, () => undefined);
    const app = await buildApp(config, backends, { logStream: logSink });
    console.log(
      `machine: ${availableParallelism()} cores, load ${loadText()}; Node ${process.version}; trial: 4 cameras x ${DEMO_TRIAL_S} s, 544 x 960, 60 fps`,
    );

    // A verified researcher with a calibrated session and a processed neutral.
    const username = 'bench_researcher';
    await app.inject({
      method: 'POST',
      url: '/api/register/',
      payload: {
        username,
        first_name: 'B',
        last_name: 'R',
        email: 'bench@lab.example.org',
        country: 'France',
        institution: 'Lab',
        profession: 'Researcher',
        reason: 'Benchmark',
        website: '',
        password: 'correct horse battery staple',
        newsletter: false,
      },
    });
    const { token } = (
      await app.inject({
        method: 'POST',
        url: '/api/login/',
        payload: { username, password: 'correct horse battery staple' },
      })
    ).json() as { token: string };
    const headers = { authorization: `Token ${token}` };
    await app.inject({
      method: 'POST',
      url: '/api/verify/',
      headers,
      payload: { otp_token: codeIn(readOutbox(join(config.dataDir, 'outbox')).at(-1)!.text) },
    });
    const get = async <T>(url: string) => (await app.inject({ method: 'GET', url: `/api${url}`, headers })).json() as T;
    const subject = (
      await app.inject({ method: 'POST', url: '/api/subjects/', headers, payload: DEMO_SUBJECT })
    ).json() as Subject;
    const sessionId = (await get<Session[]>('/sessions/new/'))[0].id;
    await get(`/sessions/${sessionId}/set_subject/?subject_id=${subject.id}`);
    await get(`/sessions/${sessionId}/set_metadata/?${DEMO_BOARD_QUERY}&settings_scaling_setup=any_pose`);
    const importInto = async (session: string, name: string, files: TrialVideos) =>
      (
        await app.inject({
          method: 'POST',
          url: `/api/sessions/${session}/import/`,
          headers,
          payload: importForm(name, files),
        })
      ).json() as Trial;
    const importTrial = (name: string, files: TrialVideos) => importInto(sessionId, name, files);

    /**
     * Polls the trial until it ends and its follow-up (the synchronised videos) with it, noting when each
     * stage first shows. The ends are the server's own clock, so the figures do not depend on how often it
     * is polled: done when the follow-up started (written with the status done), the videos at the trial's
     * `updated_at` once they are in (the same for a trial without follow-up). Polling twice a second keeps
     * the observer's load on the server low (the web app polls every 5 s, spec §9).
     */
    async function follow(trialId: string, startS: number) {
      const changes: { stage: string; atS: number }[] = [];
      const wallStartMs = Date.now() - (performance.now() - startS * 1000);
      const polls = { count: 0, s: 0 };
      let doneS: number | undefined;
      for (;;) {
        const pollStart = performance.now();
        const trial = await get<Trial>(`/trials/${trialId}/`);
        polls.count++;
        polls.s += (performance.now() - pollStart) / 1000;
        const atS = performance.now() / 1000 - startS;
        const followUp = trial.meta.follow_up as { stage: string; status: string; started_at: string } | undefined;
        if (followUp) doneS = (Date.parse(followUp.started_at) - wallStartMs) / 1000;
        const stage =
          followUp?.status === 'running'
            ? `${followUp.stage} (done)`
            : (trial.meta.progress as { stage?: string } | undefined)?.stage;
        if (stage && stage !== changes.at(-1)?.stage) changes.push({ stage, atS });
        if ((trial.status === 'done' && followUp?.status !== 'running') || trial.status === 'error') {
          const totalS = (Date.parse(trial.updated_at) - wallStartMs) / 1000;
          return { trial, doneS: doneS ?? totalS, totalS, changes, polls };
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    // The demo trial, through the server and through the engine alone (skipped with KINETRACE_BENCH_ONLY=10s).
    if (!TEN_SECONDS_ONLY) {
      for (const [name, files] of [
        ['calibration', videos.calibration],
        ['neutral', videos.neutral],
      ] as const) {
        const startS = performance.now() / 1000;
        const { trial, totalS, stallMs } = await watchingStalls(async () =>
          follow((await importTrial(name, files)).id, startS),
        );
        console.log(`${name}: ${trial.status} in ${totalS.toFixed(1)} s, longest API stall ${stallMs.toFixed(0)} ms`);
        if (trial.status !== 'done') throw new Error(`${name}: ${String(trial.meta.error_msg)}`);
      }

      // The neutral's cameras and model from the server, for the engine's runs.
      const neutral = (await get<Session>(`/sessions/${sessionId}/`)).trials.find((trial) => trial.name === 'neutral')!;
      const fetchText = async (url: string) => (await app.inject({ method: 'GET', url })).body;
      const cameraFiles = neutral.results.filter((result) => result.tag === RESULT_TAGS.cameraParameters);
      const cameras = await Promise.all(
        videos.trial.map(async (video, index) => {
          const stem = video.name.replace(/\.mp4$/, '');
          const result = cameraFiles.find((file) => file.meta?.camera_name === stem) ?? cameraFiles[index];
          return { ...readKinetraceCameras(await fetchText(result.media!))[0], name: stem };
        }),
      );
      const scaledModelOsim = await fetchText(
        neutral.results.find((result) => result.tag === RESULT_TAGS.opensimModel)!.media!,
      );
      const settings = resolveProcessingSettings(
        (await get<Session>(`/sessions/${sessionId}/`)).meta,
        60,
        config.dataDir,
      );

      /** The trial through the engine alone, as `kinetrace process` runs it. */
      async function throughEngine(round: number) {
        const outDir = join(root, `engine-out-${round}`);
        mkdirSync(outDir, { recursive: true });
        const changes: { stage: string; atS: number }[] = [];
        const startS = performance.now() / 1000;
        await processMovement(
          {
            videos: videos.trial.map((video) => ({ cameraName: video.name.replace(/\.mp4$/, ''), path: video.path })),
            cameras,
            scaledModelOsim,
            subject: { heightM: DEMO_SUBJECT.height, massKg: DEMO_SUBJECT.weight },
            settings,
            outDir,
            trialName: 'balance',
          },
          {
            onProgress: (stage: ProcessingStage) => {
              if (stage !== changes.at(-1)?.stage) changes.push({ stage, atS: performance.now() / 1000 - startS });
            },
          },
        );
        const totalS = performance.now() / 1000 - startS;
        return { totalS, stages: stageSeconds(changes, totalS) };
      }

      /** The trial through the server: the clock starts when the import call returns (its last video is in). */
      async function throughServer(round: number) {
        const imported = await importTrial(`balance_${round}`, videos.trial);
        const run = await watchingStalls(() => follow(imported.id, performance.now() / 1000));
        if (run.trial.status !== 'done') throw new Error(`balance: ${String(run.trial.meta.error_msg)}`);
        return {
          doneS: run.doneS,
          totalS: run.totalS,
          stallMs: run.stallMs,
          stages: stageSeconds(run.changes, run.totalS),
          trace: { ...traces.get(imported.id), polls: run.polls.count, pollsS: run.polls.s } as Record<string, number>,
        };
      }

      // Alternating runs, as the shared machine's load drifts; medians compared.
      const engineRuns: Awaited<ReturnType<typeof throughEngine>>[] = [];
      const serverRuns: Awaited<ReturnType<typeof throughServer>>[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        engineRuns.push(await throughEngine(round));
        serverRuns.push(await throughServer(round));
        const { trace } = serverRuns.at(-1)!;
        console.log(
          `round ${round}: server done ${serverRuns.at(-1)!.doneS.toFixed(1)} s, synchronised videos ${serverRuns.at(-1)!.totalS.toFixed(1)} s (queue ${trace.queuedS?.toFixed(2)}, inputs ${trace.inputsS?.toFixed(2)}, ` +
            `engine ${trace.engineS?.toFixed(1)}, results ${trace.resultsS?.toFixed(2)}; longest API stall ${serverRuns.at(-1)!.stallMs.toFixed(0)} ms), ` +
            `engine alone ${engineRuns.at(-1)!.totalS.toFixed(1)} s; load ${loadText()}`,
        );
      }
      const serverDoneS = median(serverRuns.map((run) => run.doneS));
      const serverS = median(serverRuns.map((run) => run.totalS));
      const engineS = median(engineRuns.map((run) => run.totalS));
      // Stage times as seen by polling the trial (the quick stages after pose run within one poll) and by the engine's progress.
      console.log('stage (median s)   server (polled)   engine');
      const stages = new Set([...serverRuns, ...engineRuns].flatMap((run) => [...run.stages.keys()]));
      for (const stage of stages) {
        const of = (runs: { stages: Map<string, number> }[]) =>
          median(runs.map((run) => run.stages.get(stage) ?? 0)).toFixed(1);
        console.log(`${stage.padEnd(18)} ${of(serverRuns).padStart(15)}   ${of(engineRuns).padStart(6)}`);
      }
      console.log(`last upload -> done through the server: ${serverDoneS.toFixed(1)} s (median of ${ROUNDS})`);
      console.log(
        `last upload -> synchronised videos ready: ${serverS.toFixed(1)} s (median of ${ROUNDS}; done waited for them before issue 24)`,
      );
      console.log(`the same trial through the engine, videos included: ${engineS.toFixed(1)} s (median of ${ROUNDS})`);
      console.log(
        `longest API stall while the trial processed: ${Math.max(...serverRuns.map((run) => run.stallMs)).toFixed(0)} ms ` +
          `(worst of ${ROUNDS}; goal < ${STALL_GOAL_MS} ms)`,
      );
      // The runner's own trace of the server runs: what the server does besides the engine.
      const traced = (key: string) => median(serverRuns.map((run) => run.trace[key] ?? Number.NaN));
      const steps = {
        queuedS: 'queue pickup',
        inputsS: 'inputs (videos copied, cameras, model read)',
        engineS: 'engine (with the last progress write)',
        resultsS: 'results stored and registered',
        followUpS: 'synchronised videos, after done',
      };
      console.log('server trace (median s)');
      for (const [key, label] of Object.entries(steps)) console.log(`  ${label.padEnd(46)} ${traced(key).toFixed(2)}`);
      console.log(
        `  ${'progress writes (beside the engine)'.padEnd(46)} ${traced('progressS').toFixed(2)} (${traced('progressWrites')} writes)`,
      );
      console.log(
        `  ${"this bench's status polls (beside the engine)".padEnd(46)} ${traced('pollsS').toFixed(2)} (${traced('polls')} polls)`,
      );
      const untraced = serverS - Object.keys(steps).reduce((sum, key) => sum + traced(key), 0);
      console.log(`  ${'rest (job start, status reads, clock)'.padEnd(46)} ${untraced.toFixed(2)}`);
      // The server keeps its pose pool warm between trials (pose-pool-keeper.ts); the engine alone, like the CLI, starts one per run.
      const poolStartS = performance.now() / 1000;
      await (await PoseWorkerPool.start({ model: settings.poseModel })).close();
      console.log(
        `pose pool start (paid by each engine-alone run, not by the server's warm pool): ${(performance.now() / 1000 - poolStartS).toFixed(1)} s`,
      );
      console.log(
        `server overhead: ${(((serverS - engineS) / engineS) * 100).toFixed(1)} % (goal < 10 %); load ${loadText()}`,
      );
    }

    // Issue 24's trial: 10 s from two phones at 60 fps (the demo's cam01 and cam02 looped), in a session
    // calibrated and neutral-processed with those two cameras.
    const pairSession = (await get<Session[]>('/sessions/new/'))[0].id;
    await get(`/sessions/${pairSession}/set_subject/?subject_id=${subject.id}`);
    await get(`/sessions/${pairSession}/set_metadata/?${DEMO_BOARD_QUERY}&settings_scaling_setup=any_pose`);
    for (const [name, files] of [
      ['calibration', await makeBoardVideos(join(root, 'pair-calibration'), 2)],
      ['neutral', videos.neutral.slice(0, 2)],
    ] as const) {
      const run = await follow((await importInto(pairSession, name, files)).id, performance.now() / 1000);
      if (run.trial.status !== 'done') throw new Error(`two cameras, ${name}: ${String(run.trial.meta.error_msg)}`);
    }
    const tenSeconds = loopedDemoVideos(join(root, 'ten-seconds'), TEN_SECOND_TRIAL_S, 2);
    const report = async (trial: Trial) =>
      (await (
        await app.inject({ method: 'GET', url: resultUrl(trial, RESULT_TAGS.qualityReport) })
      ).json()) as QualityReport;
    /** Each camera's sync offset (s, on the trial's clock) and how its keypoints were found. */
    const camerasText = async (trial: Trial) =>
      (await report(trial)).cameras
        .map(
          (camera) =>
            `${camera.name} offset ${camera.sync.offsetS.toFixed(3)} s${camera.sync.refined ? '' : ' (not refined)'}, ` +
            `${camera.keypoints2D}${camera.detectedHz !== undefined ? ` at ${camera.detectedHz.toFixed(0)} Hz` : ''}` +
            `${camera.detectedOnArrival ? ' on arrival' : ''}` +
            `${camera.phoneKeypoints?.reason ? ` (${camera.phoneKeypoints.reason})` : ''}`,
        )
        .join('; ');
    if (KEEP_DIR) mkdirSync(KEEP_DIR, { recursive: true });
    const keep = async (trial: Trial) => {
      if (!KEEP_DIR) return;
      for (const [tag, suffix] of [
        [RESULT_TAGS.ikResults, '.mot'],
        [RESULT_TAGS.qualityReport, '_report.json'],
        [RESULT_TAGS.markerData, '.trc'],
      ] as const)
        writeFileSync(
          join(KEEP_DIR, `${trial.name}${suffix}`),
          (await app.inject({ method: 'GET', url: resultUrl(trial, tag) })).body,
        );
    };
    // (a) server-side pose on every frame, as before issue 24, and (b) with the server-side speed-ups (the server's
    // default: the pose model at the rate the filter needs), alternated in one session (set_metadata's pose_rate).
    type Run = Awaited<ReturnType<typeof follow>> & { stallMs: number };
    const serverPose: Run[] = [];
    const speedUps: Run[] = [];
    const paths = [
      { label: '(a) server-side pose', poseRate: 'every_frame', runs: serverPose, name: 'walk_10s' },
      { label: '(b) server-side speed-ups', poseRate: 'filter', runs: speedUps, name: 'walk_10s_fast' },
    ] as const;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const path of paths) {
        await get(`/sessions/${pairSession}/set_metadata/?settings_pose_rate=${path.poseRate}`);
        const imported = await importInto(pairSession, `${path.name}_${round}`, tenSeconds);
        const run = await watchingStalls(() => follow(imported.id, performance.now() / 1000));
        if (run.trial.status !== 'done') throw new Error(`10 s trial: ${String(run.trial.meta.error_msg)}`);
        path.runs.push(run);
        await keep(run.trial);
        console.log(
          `10 s trial, round ${round}: ${path.label}: done ${run.doneS.toFixed(1)} s, synchronised videos ${run.totalS.toFixed(1)} s, longest API stall ${run.stallMs.toFixed(0)} ms; ` +
            `${await camerasText(run.trial)}; load ${loadText()}`,
        );
      }
    }
    await get(`/sessions/${pairSession}/set_metadata/?settings_pose_rate=filter`);
    const settings = resolveProcessingSettings(
      (await get<Session>(`/sessions/${pairSession}/`)).meta,
      60,
      config.dataDir,
    );

    // (c) The same videos recorded by two phones that ran our model and send their keypoints at 30 Hz
    // (made here beforehand by the engine's detector, as the phone's browser makes them); the clock starts when the last video is in.
    const baseUrl = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('[::1]', '127.0.0.1');
    const { phones } = await pairPhones({ backends }, baseUrl, pairSession, 2);
    const phoneFiles = await Promise.all(
      tenSeconds.map(async (video) =>
        phoneKeypointsFile(await detectPoseInVideo(video.path, { model: settings.poseModel }), {
          model: settings.poseModel,
          backend: 'bench (tfjs-wasm)',
        }),
      ),
    );
    const phoneKeypoints: (Awaited<ReturnType<typeof follow>> & { stallMs: number })[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const { trialId } = await recordOnPhones(phones, pairSession, `walk_10s_phones_${round}`, get);
      for (const [index, phone] of phones.entries()) await phone.upload(trialId, phoneFiles[index], 'keypoints');
      await phones[0].upload(trialId, readFileSync(tenSeconds[0].path));
      const lastUpload = phones[1].upload(trialId, readFileSync(tenSeconds[1].path));
      const run = await watchingStalls(async () => {
        await lastUpload;
        return follow(trialId, performance.now() / 1000);
      });
      if (run.trial.status !== 'done') throw new Error(`10 s trial, phones: ${String(run.trial.meta.error_msg)}`);
      phoneKeypoints.push(run);
      await keep(run.trial);
      console.log(
        `10 s trial, round ${round}: (c) phone keypoints: done ${run.doneS.toFixed(1)} s, synchronised videos ${run.totalS.toFixed(1)} s, longest API stall ${run.stallMs.toFixed(0)} ms; ` +
          `${await camerasText(run.trial)}; load ${loadText()}`,
      );
    }
    // (b) recorded by two phones without keypoints, the second video in SECOND_UPLOAD_AFTER_S after the first: the
    // first camera is detected while the second arrives, so the clock from the last byte covers only the rest.
    const onArrival: (Awaited<ReturnType<typeof follow>> & { stallMs: number })[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const { trialId } = await recordOnPhones(phones, pairSession, `walk_10s_arrival_${round}`, get);
      await phones[0].upload(trialId, readFileSync(tenSeconds[0].path));
      await new Promise((resolve) => setTimeout(resolve, SECOND_UPLOAD_AFTER_S * 1000));
      const lastUpload = phones[1].upload(trialId, readFileSync(tenSeconds[1].path));
      const run = await watchingStalls(async () => {
        await lastUpload;
        return follow(trialId, performance.now() / 1000);
      });
      if (run.trial.status !== 'done') throw new Error(`10 s trial, on arrival: ${String(run.trial.meta.error_msg)}`);
      onArrival.push(run);
      await keep(run.trial);
      console.log(
        `10 s trial, round ${round}: (b) second upload ${SECOND_UPLOAD_AFTER_S} s after the first: done ${run.doneS.toFixed(1)} s after the last byte, longest API stall ${run.stallMs.toFixed(0)} ms; ` +
          `${await camerasText(run.trial)}; load ${loadText()}`,
      );
    }
    const motion = async (trial: Trial) =>
      readStorage((await app.inject({ method: 'GET', url: resultUrl(trial, RESULT_TAGS.ikResults) })).body);
    const anglesFromServerPose = await motion(serverPose[0].trial);
    // The two trials' clocks start differently (an import has no capture times): their angles are compared
    // at the frame lag that brings them closest, printed.
    const anglesFromPhoneKeypoints = await motion(phoneKeypoints[0].trial);
    const meanRms = (comparisons: CoordinateComparison[]) =>
      comparisons.reduce((sum, c) => sum + c.rmsDifferenceDeg, 0) / comparisons.length;
    const closest = (ours: StorageTable, reference: StorageTable) =>
      Array.from({ length: 2 * MAX_LAG_FRAMES + 1 }, (_, i) => i - MAX_LAG_FRAMES)
        .map((lag) => [lag, compareMotions(ours, reference, FLEXION_COORDINATES, lag)] as const)
        .reduce((best, next) => (meanRms(next[1]) < meanRms(best[1]) ? next : best));
    const [lagFrames, anglesFromPhones] = closest(anglesFromPhoneKeypoints, anglesFromServerPose);
    const rmsText = (comparisons: readonly CoordinateComparison[]) =>
      comparisons.map((c) => `${c.coordinate} ${c.rmsDifferenceDeg.toFixed(1)}`).join(', ');
    // (a) and (b) against themselves: 0 as the detection is deterministic. That is no floor under the (b) and (c)
    // figures: these two cameras' angles move by several degrees whenever the 2D keypoints change by the detector's
    // own crop noise (docs/pose.md, "At the rate the filter needs").
    if (ROUNDS > 1)
      for (const path of paths) {
        const [lag, repeated] = closest(await motion(path.runs[1].trial), await motion(path.runs[0].trial));
        console.log(
          `10 s trial: angles of ${path.label.slice(0, 3)} round 2 against round 1 (determinism, not a noise floor) at a lag of ${lag} frames, RMS deg: ${rmsText(repeated)}`,
        );
      }
    // The yardstick for those figures: the trial repeats the demo's frames, so (a) against itself one loop later
    // compares the same frames, re-encoded and entered by the tracker from another place.
    const loopFrames = (await probeVideo(referencePath(`${POSE2SIM_DEMO}/videos/cam01.mp4`))).frameCount;
    console.log(
      `10 s trial: angles of (a) one loop against the next (the same ${loopFrames} frames: the two-camera chain's own spread), RMS deg: ` +
        rmsText(compareMotions(anglesFromServerPose, anglesFromServerPose, FLEXION_COORDINATES, loopFrames)),
    );
    const [speedUpLag, anglesFromSpeedUps] = closest(await motion(speedUps[0].trial), anglesFromServerPose);
    console.log(
      `10 s, 2 cameras, 60 fps (544 x 960): last upload -> done (c) phone keypoints ${median(phoneKeypoints.map((run) => run.doneS)).toFixed(1)} s ` +
        `(median of ${ROUNDS}; goal < 15 s), longest API stall ${Math.max(...phoneKeypoints.map((run) => run.stallMs)).toFixed(0)} ms; ` +
        `angles of (c) against (a) at a lag of ${lagFrames} frames, RMS deg (goal < 2): ${rmsText(anglesFromPhones)}`,
    );
    console.log(
      `10 s, 2 cameras, 60 fps (544 x 960): last upload -> done (b) server-side speed-ups (pose at the rate the filter needs) ${median(speedUps.map((run) => run.doneS)).toFixed(1)} s ` +
        `(median of ${ROUNDS}; goal < 30 s), longest API stall ${Math.max(...speedUps.map((run) => run.stallMs)).toFixed(0)} ms; ` +
        `angles of (b) against (a) at a lag of ${speedUpLag} frames, RMS deg (goal < 2): ${rmsText(anglesFromSpeedUps)}`,
    );
    const [arrivalLag, anglesOnArrival] = closest(await motion(onArrival[0].trial), await motion(speedUps[0].trial));
    console.log(
      `10 s, 2 cameras, 60 fps (544 x 960): last upload -> done (b) with the second phone's upload ending ${SECOND_UPLOAD_AFTER_S} s after the first's ` +
        `(the first camera detected on arrival) ${median(onArrival.map((run) => run.doneS)).toFixed(1)} s (median of ${ROUNDS}), ` +
        `longest API stall ${Math.max(...onArrival.map((run) => run.stallMs)).toFixed(0)} ms; ` +
        `angles against (b) imported at a lag of ${arrivalLag} frames, RMS deg: ${rmsText(anglesOnArrival)}`,
    );
    console.log(
      `10 s, 2 cameras, 60 fps (544 x 960): last upload -> done (a) server-side pose ${median(serverPose.map((run) => run.doneS)).toFixed(1)} s ` +
        `(median of ${ROUNDS}; goal for (c) phone keypoints < 15 s, (b) server-side speed-ups < 30 s), longest API stall ${Math.max(...serverPose.map((run) => run.stallMs)).toFixed(0)} ms`,
    );
    await app.close();
    await backends.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
