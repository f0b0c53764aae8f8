import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FailRequest, HeartbeatRequest, Lease, ResultFileRef } from '@kinetrace/contracts';
import { placeKeypoints } from '@kinetrace/processing/keypoints-files';
import { resultFileNames } from '@kinetrace/processing/result-names';
import { inputsOf } from '@kinetrace/processing/trial-manifest';
import { TrialInputError, type ResultFile, type TrialFailure, type TrialIO } from '@kinetrace/processing/trial-io';
import { UserInputError, type WorkerClient } from './worker-client.ts';

/** A result upload that fails on the network is tried this often in all (the server stores it once however often it arrives). */
const UPLOAD_TRIES = 3;

/** An error as the server's log should read it: its name, message and stack. */
const describe = (error: unknown) =>
  error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);

/**
 * The remote worker's TrialIO over the worker API: the same runTrial as the server's in-process runner
 * reads its inputs from signed links, reports its progress (the lease's heartbeat carries the last one)
 * and uploads its results, each once whatever the retries.
 */
export function createRemoteTrialIO(client: WorkerClient, lease: Lease, installDir: string) {
  /** What the screens show now (the processing's stage, then the follow-up's); the heartbeat repeats it. */
  const current: { beat: HeartbeatRequest } = {
    beat: { stage: lease.kind === 'calibration' ? 'board' : 'pose', percent: 0 },
  };
  /** Our failure as the server's log should read it; the user's message as they read it. */
  const failRequestOf = (failure: TrialFailure): FailRequest =>
    failure.kind === 'user'
      ? { kind: 'user', message: failure.message.slice(0, 2000) }
      : { kind: 'internal', error: describe(failure.error).slice(0, 10_000) };
  /** Uploads the result files (each once whatever the retries): their refs for the server. */
  async function uploadAll(results: ResultFile[]): Promise<ResultFileRef[]> {
    const names = resultFileNames(results);
    const refs = results.map((result, index) => ({
      tag: result.tag,
      name: names[index],
      ...(result.cameraName !== undefined && { camera_name: result.cameraName }),
    }));
    for (const [index, result] of results.entries()) await upload(lease.id, refs[index], result.path);
    return refs;
  }

  async function upload(...args: Parameters<WorkerClient['uploadResult']>): Promise<void> {
    for (let tried = 1; ; tried++) {
      try {
        return await client.uploadResult(...args);
      } catch (error) {
        // fetch's network failures are TypeErrors; an answer of the server is final.
        if (!(error instanceof TypeError) || tried >= UPLOAD_TRIES) throw error;
      }
    }
  }

  const io: TrialIO = {
    async readInputs(workDir) {
      const manifest = await client.inputs(lease.id).catch((error: unknown) => {
        throw error instanceof UserInputError ? new TrialInputError(error.message) : error;
      });
      await mkdir(workDir, { recursive: true });
      await Promise.all(
        manifest.videos.map(async (video) => {
          await client.download(video.url, join(workDir, video.fileName));
          // Laid out as the server's in-process runner lays them out, so that runTrial reads the same inputs.
          if (video.keypoints)
            await placeKeypoints(workDir, video.keypoints, (file, path) => client.download(file.url, path));
        }),
      );
      return inputsOf(manifest, workDir, installDir);
    },
    async progress(stage, percent) {
      current.beat = { stage, percent };
      await client.heartbeat(lease.id, current.beat);
    },
    async complete(results, options) {
      const refs = await uploadAll(results);
      await client.complete(lease.id, { results: refs, ...(options?.followUp && { follow_up: options.followUp }) });
      // The lease lasts through the follow-up: the heartbeat now carries its progress.
      if (options?.followUp) current.beat = { follow_up: options.followUp, percent: 0 };
    },
    async fail(failure: TrialFailure) {
      await client.fail(lease.id, failRequestOf(failure));
    },
    async followUpProgress(percent) {
      if (!('follow_up' in current.beat)) return;
      current.beat = { ...current.beat, percent };
      await client.heartbeat(lease.id, current.beat);
    },
    async addResults(results) {
      await client.addResults(lease.id, await uploadAll(results));
    },
    async followUpFailed(failure: TrialFailure) {
      await client.followUpFailed(lease.id, failRequestOf(failure));
    },
  };
  return { io, current };
}
