import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  processingMessages,
  trialKindOf,
  workerMessages,
  workerPaths,
  WORKER_API_PREFIX,
  type CompleteRequest,
  type FailRequest,
  type HeartbeatRequest,
  type Lease,
  type ResultFileRef,
  type TrialInputsManifest,
  type WireKeypoints,
} from '@kinetrace/contracts';
import { manifestOf } from '@kinetrace/processing/trial-manifest';
import { TrialInputError, type TrialFailure } from '@kinetrace/processing/trial-io';
import { keypointsSourceIn } from '@kinetrace/processing/keypoints-files';
import { badRequest, HttpError, unauthorized } from '../http/http-errors.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { TrialRow, TrialsRepository } from '../repositories/trials-repository.ts';
import { hashRandomToken } from '../services/secrets.ts';
import type { FileStore } from '../storage/file-store.ts';
import type { ProcessingRepository } from './processing-repository.ts';
import type { ProcessingService } from './processing-service.ts';
import { importedKeypointsOf, type StoredResult } from './server-trial-io.ts';
import type { Worker, WorkerTokensRepository } from './worker-tokens-repository.ts';

/** A long poll looks at the queue this often for jobs other servers queued (this server's wake it at once). */
const POLL_MS = 500;
/** An input link works this long: the worker downloads its inputs right after asking for them. */
const INPUT_LINK_TTL_MS = 15 * 60_000;

export interface WorkerServiceDeps {
  processing: ProcessingService;
  repository: ProcessingRepository;
  queue: JobQueue;
  trials: TrialsRepository;
  files: FileStore;
  tokens: WorkerTokensRepository;
  /** Signs the input links (an instance secret every server shares). */
  linkSecret: string;
  /** WORKERS=remote: this server hands out jobs; embedded, it processes them itself and leases none. */
  leasesJobs: boolean;
  leaseTimeoutS: number;
  log: { info(object: object, message: string): void };
  now: () => Date;
}

/** 410: the lease expired (its job went back to the queue), or it is another worker's. */
const leaseGone = () => new HttpError(410, { detail: workerMessages.leaseGone });

/** One input of a lease: the video at `index`, or file `keypointsFile` of the 2D keypoints imported with it. */
export interface InputRef {
  index: number;
  keypointsFile?: number;
}

/** A lease id's parts: `<trial>.<job>.<retry>`, the attempt id being `<job>.<retry>`. */
function leaseParts(leaseId: string): { trialId: string; attemptId: string; jobId: string } {
  const [trialId, jobId, retry] = leaseId.split('.');
  return { trialId, jobId, attemptId: `${jobId}.${retry}` };
}

/** A worker's report of a failure as the server's TrialIO takes it (its text in the error, for the log). */
function failureFrom(worker: Worker, failure: FailRequest, willRetry: boolean): TrialFailure {
  return failure.kind === 'user'
    ? { kind: 'user', message: failure.message, error: new Error(`worker ${worker.name}: ${failure.message}`) }
    : { kind: 'internal', error: new Error(`worker ${worker.name}: ${failure.error}`), willRetry };
}

/** The refs of results a worker says it uploaded, each checked to be in the store (else 400 naming it). */
async function uploaded(io: ReturnType<ProcessingService['ioFor']>, refs: ResultFileRef[]): Promise<StoredResult[]> {
  const stored = refs.map((ref) => ({ tag: ref.tag, name: ref.name, cameraName: ref.camera_name }));
  const missing = await io.stored(stored);
  if (missing) throw badRequest(workerMessages.resultMissing(missing.name));
  return stored;
}

/**
 * The worker API's rules (issue 23): remote workers lease 'process-trial' jobs from the pg-boss queue, run the
 * same runTrial as the in-process runner over a TrialIO that calls this, and write through the same server
 * side of the TrialIO (server-trial-io.ts). A worker reaches only the trial it holds the current attempt of;
 * once its lease expired (interrupted-jobs.ts recovers silent attempts) its late writes are refused.
 */
export function createWorkerService(deps: WorkerServiceDeps) {
  const { processing, repository, queue, tokens, now } = deps;

  const signature = (leaseId: string, { index, keypointsFile }: InputRef, expires: number) => {
    const input = keypointsFile === undefined ? `${index}` : `${index}/keypoints/${keypointsFile}`;
    return createHmac('sha256', deps.linkSecret).update(`${leaseId}\n${input}\n${expires}`).digest('base64url');
  };
  /** A link to one input of the lease that works until `expires` (the lease lasting). */
  const inputLink = (leaseId: string, input: InputRef, expires: number) => {
    const path =
      input.keypointsFile === undefined
        ? workerPaths.inputVideo(leaseId, input.index)
        : workerPaths.inputKeypoints(leaseId, input.index, input.keypointsFile);
    return `${WORKER_API_PREFIX}${path}?expires=${expires}&signature=${signature(leaseId, input, expires)}`;
  };

  /** The trial while `worker` holds the lease, else 410. */
  async function leased(
    worker: Worker,
    leaseId: string,
  ): Promise<{ trial: TrialRow; attemptId: string; jobId: string }> {
    const { trialId, attemptId, jobId } = leaseParts(leaseId);
    const trial = await repository.leasedTrial(trialId, attemptId, worker.id);
    if (!trial) throw leaseGone();
    return { trial, attemptId, jobId };
  }

  async function attemptIO(worker: Worker, leaseId: string) {
    const { trial, attemptId, jobId } = await leased(worker, leaseId);
    const attempt = await processing.resumeAttempt(trial, attemptId);
    if (!attempt) throw leaseGone();
    return { trial, attempt, jobId, io: processing.ioFor(attempt) };
  }

  /** Waits `ms`, or less when this server queues a trial or the caller goes away. */
  function pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stopListening();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      const stopListening = processing.onQueued(done);
      signal.addEventListener('abort', done);
    });
  }

  return {
    /** The worker holding this live token, its contact recorded; 401 for anything else (a user's token too). */
    async authenticate(bearer: string | undefined): Promise<Worker> {
      const worker = bearer ? await tokens.contact(hashRandomToken(bearer), now()) : undefined;
      if (!worker) throw unauthorized(workerMessages.tokenRefused);
      return worker;
    },

    /** The next job, leased to `worker`: waits up to `waitS` for one (long poll); null when none came. */
    async lease(worker: Worker, waitS: number, signal: AbortSignal): Promise<Lease | null> {
      if (!deps.leasesJobs) throw new HttpError(409, { detail: workerMessages.embeddedServer });
      const deadline = Date.now() + waitS * 1000;
      while (!signal.aborted) {
        const job = await queue.take('process-trial');
        if (job) {
          const begun = await processing.beginAttempt(job.payload, job, worker.id).catch(async (error: unknown) => {
            await queue.fail('process-trial', job.id, String(error));
            throw error;
          });
          // Nothing to run (done, trashed, or now waiting for its calibration or neutral): the job is over.
          if (!begun) {
            await queue.complete('process-trial', job.id);
            continue;
          }
          // queuedS: from the trial queued to its lease (`npm run bench` reads it).
          deps.log.info(
            { trialId: job.payload.trialId, attempt: begun.attempt.id, worker: worker.name, queuedS: begun.queuedS },
            'trial leased',
          );
          return {
            id: `${job.payload.trialId}.${begun.attempt.id}`,
            trial_id: job.payload.trialId,
            kind: trialKindOf(begun.attempt.trial.name),
            final_attempt: begun.finalAttempt,
            time_limit_s: begun.timeLimitS,
            heartbeat_s: deps.leaseTimeoutS / 4,
            lease_timeout_s: deps.leaseTimeoutS,
          };
        }
        const left = deadline - Date.now();
        if (left <= 0) break;
        await pause(Math.min(POLL_MS, left), signal);
      }
      return null;
    },

    /** The worker's progress (or, once the trial is done, its follow-up's), which the screens show; also what keeps its lease. */
    async heartbeat(worker: Worker, leaseId: string, beat: HeartbeatRequest): Promise<void> {
      const { trial, attemptId } = await leased(worker, leaseId);
      if ('follow_up' in beat) {
        if (!(await repository.setFollowUpProgress(trial.id, attemptId, beat.percent))) throw leaseGone();
        return;
      }
      const progress = (await processing.resumeAttempt(trial, attemptId))?.progress;
      if (!progress || !(await repository.setProgress(trial.id, attemptId, { ...progress, ...beat })))
        throw leaseGone();
    },

    /**
     * The trial's inputs, each video and each file of its imported 2D keypoints a signed link that works for
     * INPUT_LINK_TTL_MS while the lease lasts.
     */
    async inputs(worker: Worker, leaseId: string): Promise<TrialInputsManifest> {
      const { io } = await attemptIO(worker, leaseId);
      const expires = now().getTime() + INPUT_LINK_TTL_MS;
      const fileNames = new Map<string, string>();
      // The engine's keypoints source stands for its files' links by its name in the work folder (one per video).
      const keypointsLinks = new Map<string, WireKeypoints>();
      try {
        const inputs = await io.inputsWith(
          async ({ index }, fileName) => {
            const link = inputLink(leaseId, { index }, expires);
            fileNames.set(link, fileName);
            return link;
          },
          async ({ files, ...keypoints }, index) => {
            keypointsLinks.set(keypoints.name, {
              ...keypoints,
              files: files.map(({ fileName }, keypointsFile) => ({
                fileName,
                url: inputLink(leaseId, { index, keypointsFile }, expires),
              })),
            });
            // The source stands for the links by its name alone (no work folder here).
            return keypointsSourceIn('', keypoints);
          },
        );
        return manifestOf(
          inputs,
          (link) => fileNames.get(link)!,
          (source) => keypointsLinks.get(source.path)!,
        );
      } catch (error) {
        // The user must act first (calibrate, record the neutral): the worker fails the trial with this message.
        if (error instanceof TrialInputError) throw new HttpError(422, { detail: error.message, user_error: true });
        throw error;
      }
    },

    /**
     * A video of a lease's inputs, or a file of its imported keypoints, for a link `inputs` signed, while it
     * has not expired and the lease lasts.
     */
    async inputFile(
      leaseId: string,
      input: InputRef,
      expires: number,
      given: string,
    ): Promise<{ stream: Readable; sizeBytes: number }> {
      const refused = () => new HttpError(403, { detail: workerMessages.inputLinkInvalid });
      const expected = Buffer.from(signature(leaseId, input, expires));
      const actual = Buffer.from(given);
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual) || expires < now().getTime())
        throw refused();
      const { trialId, attemptId } = leaseParts(leaseId);
      const trial = await deps.trials.findById(trialId);
      if ((trial?.meta as { processing_attempt?: unknown } | undefined)?.processing_attempt !== attemptId)
        throw leaseGone();
      const video = (await deps.trials.videosOf(trialId))[input.index];
      const storageKey =
        video && input.keypointsFile !== undefined
          ? importedKeypointsOf(video)?.files[input.keypointsFile]?.storageKey
          : video?.storageKey;
      const stored = storageKey ? await deps.files.read(storageKey) : null;
      if (!stored) throw refused();
      return stored;
    },

    /** Stores one result file of the attempt; the same file uploaded again replaces it (never a second result). */
    async storeResult(worker: Worker, leaseId: string, ref: ResultFileRef, data: Readable): Promise<void> {
      const { io } = await attemptIO(worker, leaseId);
      await io.storeResult({ tag: ref.tag, name: ref.name }, data);
    },

    /**
     * Registers the uploaded results and marks the trial done, and what waited for the trial runs. The job ends,
     * unless a follow-up comes (the lease then lasts until addResults or followUpFailed).
     */
    async complete(worker: Worker, leaseId: string, { results, follow_up: followUp }: CompleteRequest): Promise<void> {
      const { io, trial, attempt, jobId } = await attemptIO(worker, leaseId);
      if (!(await io.commit(await uploaded(io, results), followUp))) throw leaseGone();
      if (!followUp) await queue.complete('process-trial', jobId);
      deps.log.info({ trialId: trial.id, attempt: attempt.id, worker: worker.name, followUp }, 'trial processed');
      await processing.releaseWaiting(trial);
    },

    /** Adds the follow-up's uploaded results to the done trial's; the follow-up and the job end. */
    async addResults(worker: Worker, leaseId: string, refs: ResultFileRef[]): Promise<void> {
      const { io, trial, attempt, jobId } = await attemptIO(worker, leaseId);
      if (!(await io.commitFollowUp(await uploaded(io, refs)))) throw leaseGone();
      await queue.complete('process-trial', jobId);
      deps.log.info({ trialId: trial.id, attempt: attempt.id, worker: worker.name }, 'trial follow-up stored');
    },

    /** The follow-up failed: the trial stays done without its results and says so; the job ends (the worker retried it). */
    async followUpFailed(worker: Worker, leaseId: string, failure: FailRequest): Promise<void> {
      const { io, jobId } = await attemptIO(worker, leaseId);
      await io.followUpFailed(failureFrom(worker, failure, false));
      await queue.complete('process-trial', jobId);
    },

    /**
     * Ends the attempt in failure: one the user can act on ends the trial in error with the worker's message;
     * an internal one is retried while attempts remain, else ends the trial in error.
     */
    async fail(worker: Worker, leaseId: string, failure: FailRequest): Promise<void> {
      const { io, trial, attempt, jobId } = await attemptIO(worker, leaseId);
      // After its complete made the trial done (the answer lost on the way): the trial stays done, its follow-up is given up.
      await repository.failFollowUp(trial.id, attempt.id, processingMessages.syncVideosFailed);
      const { number = 1, of = 1 } = attempt.progress.attempt ?? {};
      const willRetry = failure.kind === 'internal' && number < of;
      await io.fail(failureFrom(worker, failure, willRetry));
      if (failure.kind === 'user') await queue.complete('process-trial', jobId);
      else await queue.fail('process-trial', jobId, `worker ${worker.name}: ${failure.error}`);
      if (!willRetry) await processing.releaseWaiting(trial);
    },
  };
}

export type WorkerService = ReturnType<typeof createWorkerService>;
