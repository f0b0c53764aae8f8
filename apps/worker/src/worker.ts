import type { Lease } from '@kinetrace/contracts';
import { PoseWorkerPool } from '@kinetrace/mocap/pose/pose-worker-pool';
import { EngineThreads } from '@kinetrace/processing/engine-thread';
import { PosePoolKeeper } from '@kinetrace/processing/pose-pool-keeper';
import { runTrial } from '@kinetrace/processing/run-trial';
import { createRemoteTrialIO } from './remote-trial-io.ts';
import { LeaseGoneError, TokenRefusedError, type WorkerClient } from './worker-client.ts';

export interface WorkerOptions {
  /** Jobs run at once (each a slot that leases its own). */
  jobs: number;
  /** Pose worker threads (default: the machine's cores). */
  poseThreads?: number;
  /** Where the operator installed augmenter weights and OpenSim models (as the server's DATA_DIR). */
  installDir: string;
  /** Where each attempt gets its work folder. */
  workRoot: string;
  log: (line: string) => void;
}

/** How long one lease request waits on the server for a job (a long poll). */
const LEASE_WAIT_S = 20;
/** After the server could not be reached, the next try waits this long. */
const RETRY_AFTER_MS = 2000;
/** The pose model stays loaded this long after a trial, as on the server (processing-service.ts). */
const POSE_POOL_IDLE_MS = 120_000;
/** The engine's threads too (starting one loads the engine, a second or more). */
const ENGINE_THREAD_IDLE_MS = POSE_POOL_IDLE_MS;

/**
 * A remote worker: `jobs` slots, each leasing a job, running it through runTrial over the worker API and
 * heart-beating its lease, until `stop` (SIGTERM: the running jobs finish, no new one is taken). A refused
 * token ends `run` with a TokenRefusedError at once.
 */
export function createWorker(client: WorkerClient, options: WorkerOptions) {
  const stopping = new AbortController();
  const poses = new PosePoolKeeper(POSE_POOL_IDLE_MS, (pool) =>
    PoseWorkerPool.start({ ...pool, ...(options.poseThreads && { workers: options.poseThreads }) }),
  );
  // The engine runs in threads of their own: its synchronous stages leave the heartbeats on time (issue 23).
  const engines = new EngineThreads(ENGINE_THREAD_IDLE_MS);
  let refused: ((error: TokenRefusedError) => void) | undefined;
  const tokenRefused = new Promise<never>((_, reject) => {
    refused = reject;
  });
  tokenRefused.catch(() => undefined);

  async function process(lease: Lease): Promise<void> {
    const { io, current } = createRemoteTrialIO(client, lease, options.installDir);
    const heartbeat = setInterval(() => {
      client.heartbeat(lease.id, current.beat).catch((error: unknown) => {
        if (error instanceof TokenRefusedError) refused?.(error);
        else if (error instanceof LeaseGoneError) options.log(`Trial ${lease.trial_id}: ${error.message}`);
      });
    }, lease.heartbeat_s * 1000);
    try {
      options.log(`Trial ${lease.trial_id} (${lease.kind}): leased`);
      const outcome = await runTrial(lease.trial_id, io, {
        workRoot: options.workRoot,
        finalAttempt: lease.final_attempt,
        timeLimitS: lease.time_limit_s,
        poses,
        engines,
      });
      options.log(`Trial ${lease.trial_id}: ${outcome.status}`);
    } finally {
      clearInterval(heartbeat);
    }
  }

  async function slot(): Promise<void> {
    while (!stopping.signal.aborted) {
      try {
        const lease = await client.lease(LEASE_WAIT_S, stopping.signal);
        if (lease) await process(lease);
      } catch (error) {
        if (error instanceof TokenRefusedError) throw error;
        if (stopping.signal.aborted) return;
        options.log(
          error instanceof LeaseGoneError
            ? `A job was dropped: ${error.message}`
            : `Worker API call failed: ${String(error)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
      }
    }
  }

  return {
    /** Runs until stopped (resolves) or the token is refused (rejects with TokenRefusedError). */
    async run(): Promise<void> {
      try {
        await Promise.race([Promise.all(Array.from({ length: options.jobs }, slot)), tokenRefused]);
      } finally {
        await Promise.all([poses.close(), engines.close()]);
      }
    },
    /** Takes no new job; the running ones finish, then `run` resolves. */
    stop(): void {
      stopping.abort();
    },
  };
}
