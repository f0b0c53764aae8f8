import { createWriteStream, openAsBlob } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import {
  leaseResponseSchema,
  trialInputsManifestSchema,
  WORKER_API_PREFIX,
  workerMessages,
  workerPaths,
  type CompleteRequest,
  type FailRequest,
  type HeartbeatRequest,
  type Lease,
  type ResultFileRef,
  type TrialInputsManifest,
} from '@kinetrace/contracts';

/** The server refused the token (revoked or wrong): the worker stops. */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
}
/** The lease expired (its job went back to the queue): the worker drops the job. */
export class LeaseGoneError extends Error {
  override name = 'LeaseGoneError';
}
/** The server says the user must act first (the trial's calibration or neutral is missing): `message` says what. */
export class UserInputError extends Error {
  override name = 'UserInputError';
}

/** The worker API (packages/contracts workers.ts) over HTTP, with the worker's token. */
export function createWorkerClient(server: string, token: string) {
  const base = new URL(server.endsWith('/') ? server : `${server}/`);
  const urlOf = (path: string) => new URL(path.replace(/^\//, ''), base);
  const authorization = { authorization: `Token ${token}` };

  async function call(method: string, path: string, init: { json?: unknown; body?: Blob; signal?: AbortSignal } = {}) {
    const response = await fetch(urlOf(`${WORKER_API_PREFIX}${path}`), {
      method,
      headers: {
        ...authorization,
        ...(init.json !== undefined && { 'content-type': 'application/json' }),
        ...(init.body && { 'content-type': 'application/octet-stream' }),
      },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      signal: init.signal,
    });
    if (response.ok) return response.json() as Promise<unknown>;
    const detail = await response
      .json()
      .then((body: { detail?: unknown; user_error?: unknown }) => body)
      .catch(() => ({}) as { detail?: unknown; user_error?: unknown });
    const message = typeof detail.detail === 'string' ? detail.detail : `HTTP ${response.status}`;
    if (response.status === 401) throw new TokenRefusedError(message || workerMessages.tokenRefused);
    if (response.status === 410) throw new LeaseGoneError(message);
    if (response.status === 422 && detail.user_error === true) throw new UserInputError(message);
    throw new Error(`${method} ${path}: ${response.status} ${message}`);
  }

  return {
    /** Waits up to `waitS` on the server for a job. */
    async lease(waitS: number, signal: AbortSignal): Promise<Lease | null> {
      return leaseResponseSchema.parse(await call('POST', workerPaths.lease, { json: { wait_s: waitS }, signal }))
        .lease;
    },
    async heartbeat(lease: string, beat: HeartbeatRequest): Promise<void> {
      await call('POST', workerPaths.heartbeat(lease), { json: beat });
    },
    async inputs(lease: string): Promise<TrialInputsManifest> {
      return trialInputsManifestSchema.parse(await call('GET', workerPaths.inputs(lease)));
    },
    /** Downloads a signed input link (absolute, or on the server) to `path`. */
    async download(link: string, path: string): Promise<void> {
      const response = await fetch(urlOf(link));
      if (!response.ok || !response.body) {
        if (response.status === 410) throw new LeaseGoneError(workerMessages.leaseGone);
        throw new Error(`Downloading an input failed: ${response.status}`);
      }
      await pipeline(Readable.fromWeb(response.body as ReadableStream), createWriteStream(path));
    },
    /** Uploads one result file; uploading it again replaces it. */
    async uploadResult(lease: string, ref: ResultFileRef, path: string): Promise<void> {
      const query = new URLSearchParams({
        tag: ref.tag,
        name: ref.name,
        ...(ref.camera_name && { camera_name: ref.camera_name }),
      });
      await call('PUT', `${workerPaths.result(lease)}?${query}`, { body: await openAsBlob(path) });
    },
    async complete(lease: string, request: CompleteRequest): Promise<void> {
      await call('POST', workerPaths.complete(lease), { json: request });
    },
    async fail(lease: string, failure: FailRequest): Promise<void> {
      await call('POST', workerPaths.fail(lease), { json: failure });
    },
    async addResults(lease: string, results: ResultFileRef[]): Promise<void> {
      await call('POST', workerPaths.addResults(lease), { json: { results } });
    },
    async followUpFailed(lease: string, failure: FailRequest): Promise<void> {
      await call('POST', workerPaths.followUpFailed(lease), { json: failure });
    },
  };
}

export type WorkerClient = ReturnType<typeof createWorkerClient>;
