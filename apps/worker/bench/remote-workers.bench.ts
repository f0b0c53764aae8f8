/**
 * Remote workers (issue 23): a WORKERS=remote server (this process, on PostgreSQL) and one real `kinetrace-worker`
 * process process the demo session: its calibration (the board rendered from the four demo cameras), its
 * neutral and its movement trial (Pose2Sim, 4 cameras x 1.7 s). For each trial, from its import to done:
 * the worker process's CPU seconds (all its threads, /proc), the server process's own CPU seconds (the
 * coordination: leases, inputs streamed, results stored, heartbeats; the bench reads the trial's row every
 * 500 ms), PostgreSQL's CPU seconds beside it, and the idle worker's lease-to-start latency (queued → leased,
 * the server's 'trial leased' log).
 * Then trials per hour on the movement trial with 1, 2 and 3 worker processes on this machine: as many
 * trials as workers, queued at once, from the first import to the last done.
 *
 * Goals (issue 23): the server's CPU under 2 % of the worker's; an idle worker starts within 1 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { referencePath } from '../../../packages/mocap/test/reference-data.ts';
import { workerTokenCommand } from '../../server/src/processing/worker-token-cli.ts';
import { createWorkerTokensRepository } from '../../server/src/processing/worker-tokens-repository.ts';
import { createTrialsRepository } from '../../server/src/repositories/trials-repository.ts';
import {
  DEMO_BOARD_QUERY,
  DEMO_SOURCES,
  DEMO_SUBJECT,
  importTrial,
  makeDemoVideos,
} from '../../server/test/support/processing-fixtures.ts';
import { sessionWithSubject } from '../../server/test/support/owned-data.ts';
import { authHeader, postgresAvailable, startTestApp, verifiedUser } from '../../server/test/support/test-app.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const DEMO_TRIAL_S = 1.7;
/** Linux's clock ticks per second for /proc/<pid>/stat times (USER_HZ, 100 on every common build). */
const USER_HZ = 100;

/** CPU seconds a process (all its threads) has used, from /proc/<pid>/stat (utime + stime). */
function processCpuS(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}
/** CPU seconds of each PostgreSQL process on this machine (the cluster's, whichever database they serve), by pid. */
function postgresCpuS(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('postgres'))
        byPid.set(Number(pid), processCpuS(Number(pid)));
    } catch {
      // The process ended while the list was read.
    }
  }
  return byPid;
}
/** PostgreSQL's CPU seconds since `before`, of the processes still running (a connection closed meanwhile drops out). */
function postgresCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpuS] of postgresCpuS()) total += cpuS - (before.get(pid) ?? 0);
  return total;
}
const ownCpuS = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
/** Seconds the idle server is watched for its baseline CPU. */
const IDLE_S = 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** The worker counts whose throughput is measured. */
const WORKER_COUNTS = [1, 2, 3];

async function main(): Promise<void> {
  const missing = DEMO_SOURCES.filter((path) => !existsSync(referencePath(path)));
  if (missing.length > 0) {
    console.log(`skipped: reference data missing (${missing.join(', ')})`);
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'kinetrace-remote-bench-'));
  const leases = new Map<string, number>();
  // PostgreSQL, as a scaled-out server runs: with PGlite the database's own work counted as the server's.
  const backend = (await postgresAvailable()) ? 'postgres' : 'pglite';
  const test = await startTestApp(backend, { LOG_LEVEL: 'info', WORKERS: 'remote' });
  // The server's 'trial leased' lines (worker-service.ts): queued → leased, seconds.
  const logged = test.logs.push.bind(test.logs);
  test.logs.push = (...lines: string[]) => {
    for (const line of lines.join('\n').split('\n'))
      if (line.includes('"trial leased"')) {
        const { trialId, queuedS } = JSON.parse(line) as { trialId: string; queuedS: number };
        leases.set(trialId, queuedS);
      }
    return logged(...lines);
  };
  const workers: ChildProcess[] = [];
  try {
    const videos = await makeDemoVideos(join(root, 'videos'), DEMO_TRIAL_S);
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const address = test.app.server.address();
    const server = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    /** One more `kinetrace-worker` process, with a token of its own. */
    const startWorker = async () => {
      const made = await workerTokenCommand(
        ['create', '--name', `bench-worker-${workers.length + 1}`],
        createWorkerTokensRepository(test.backends.database.db),
        server,
      );
      const token = /^kwt_\S+$/m.exec(made.output)![0];
      const args = ['apps/worker/bin/kinetrace-worker.mjs', '--server', server, '--token', token];
      workers.push(spawn(process.execPath, args, { cwd: repoRoot, stdio: 'ignore' }));
    };
    await startWorker();
    const workerPid = workers[0].pid!;
    console.log(
      `machine: ${availableParallelism()} cores, load ${loadavg()
        .map((load) => load.toFixed(2))
        .join(
          ', ',
        )}; Node ${process.version}; ${backend === 'postgres' ? 'PostgreSQL' : 'PGlite (PostgreSQL not reachable: the database works in the server process)'}; one worker process (pose threads: one per core)`,
    );

    const owner = await verifiedUser(test);
    const get = async <T>(path: string) =>
      (await test.call({ method: 'GET', url: `/api${path}`, headers: authHeader(owner.token) })).json() as T;
    const sessionId = (await sessionWithSubject(test, owner.token, DEMO_SUBJECT)).session.id;
    await get(`/sessions/${sessionId}/set_metadata/?${DEMO_BOARD_QUERY}&settings_scaling_setup=any_pose`);
    // The worker is idle, waiting in its long poll, before each trial is queued. What the idle server spends
    // meanwhile (the queue's polls of its other job kinds, PGlite in this process, the worker's long poll) is
    // its baseline, which it spends whether or not a trial runs.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idleFrom = { cpuS: ownCpuS(), atMs: performance.now() };
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
    const idleCpuPerS = (ownCpuS() - idleFrom.cpuS) / ((performance.now() - idleFrom.atMs) / 1000);
    console.log(`idle server (one worker long-polling): ${(1000 * idleCpuPerS).toFixed(1)} ms CPU per second`);

    console.log(
      'trial        worker CPU s  server CPU s  server/worker  above idle/worker  PostgreSQL CPU s  lease-to-start s  import to done s',
    );
    const latencies: number[] = [];
    // The bench watches a trial by its row, not through the API, so that the server's CPU is the coordination
    // alone (a screen watching a trial adds its own polls, every few seconds).
    const trialRows = createTrialsRepository(test.backends.database.db);
    const untilEnded = async (trialId: string) => {
      let state = (await trialRows.findById(trialId))!;
      while (state.status !== 'done' && state.status !== 'error') {
        await new Promise((resolve) => setTimeout(resolve, 500));
        state = (await trialRows.findById(trialId))!;
      }
      return state;
    };
    for (const [name, files] of [
      ['calibration', videos.calibration],
      ['neutral', videos.neutral],
      ['balance', videos.trial],
    ] as const) {
      const workerBefore = processCpuS(workerPid);
      const databaseBefore = postgresCpuS();
      const started = performance.now();
      const trial = await importTrial(test, owner.token, sessionId, name, files);
      // The import itself (upload parsing, probing) is the server's whether or not workers are remote.
      const serverAfterImport = ownCpuS();
      const afterImportMs = performance.now();
      const state = await untilEnded(trial.id);
      const workerS = processCpuS(workerPid) - workerBefore;
      const serverS = ownCpuS() - serverAfterImport;
      const databaseS = postgresCpuSince(databaseBefore);
      const aboveIdleS = serverS - idleCpuPerS * ((performance.now() - afterImportMs) / 1000);
      const latencyS = leases.get(trial.id) ?? NaN;
      latencies.push(latencyS);
      console.log(
        `${name.padEnd(12)} ${workerS.toFixed(2).padStart(12)}  ${serverS.toFixed(2).padStart(12)}  ${`${((100 * serverS) / workerS).toFixed(2)} %`.padStart(13)}  ${`${((100 * aboveIdleS) / workerS).toFixed(2)} %`.padStart(17)}  ${databaseS.toFixed(2).padStart(16)}  ${latencyS.toFixed(3).padStart(16)}  ${((performance.now() - started) / 1000).toFixed(1).padStart(16)}${state.status === 'done' ? '' : `  (${state.status}: ${String((state.meta as { error_msg?: unknown }).error_msg)})`}`,
      );
    }
    console.log(
      `idle worker's lease-to-start latency: median ${median(latencies).toFixed(3)} s, max ${Math.max(...latencies).toFixed(3)} s (goal: under 1 s); server CPU after the import (goal: under 2 % of the worker's)`,
    );

    // The session now has its calibration and neutral: each movement trial is the same work.
    console.log('workers  trials  first import to last done s  trials per hour  load average (1 min) after');
    for (const count of WORKER_COUNTS) {
      while (workers.length < count) await startWorker();
      const started = performance.now();
      const trials = [];
      for (let index = 0; index < count; index++)
        trials.push(await importTrial(test, owner.token, sessionId, `balance_${count}_${index}`, videos.trial));
      const states = await Promise.all(trials.map((trial) => untilEnded(trial.id)));
      const wallS = (performance.now() - started) / 1000;
      const failed = states.filter((state) => state.status !== 'done');
      console.log(
        `${String(count).padStart(7)}  ${String(count).padStart(6)}  ${wallS.toFixed(1).padStart(27)}  ${((3600 * count) / wallS).toFixed(0).padStart(15)}  ${loadavg()[0].toFixed(2).padStart(27)}${failed.length ? `  (${failed.length} not done: ${String((failed[0].meta as { error_msg?: unknown }).error_msg)})` : ''}`,
      );
    }
  } finally {
    for (const worker of workers) worker.kill('SIGTERM');
    await test.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
