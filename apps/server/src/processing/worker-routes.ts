import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import {
  addResultsRequestSchema,
  completeRequestSchema,
  failRequestSchema,
  heartbeatRequestSchema,
  inputKeypointsParamsSchema,
  inputLinkParamsSchema,
  inputLinkQuerySchema,
  leaseParamsSchema,
  leaseRequestSchema,
  leaseResponseSchema,
  resultFileRefSchema,
  trialInputsManifestSchema,
  workerAckSchema,
  workerMessages,
  workerPaths,
} from '@kinetrace/contracts';
import { invalidFields } from '../http/http-errors.ts';
import { bearerOf } from '../http/authentication.ts';
import type { Worker } from './worker-tokens-repository.ts';
import type { InputRef, WorkerService } from './worker-service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The remote worker calling the worker API (its token checked on every call, so a revocation holds at once). */
    worker: Worker | null;
  }
  interface FastifyContextConfig {
    /** A route whose credential is a signed link in its URL, not a worker token. */
    signedLink?: boolean;
  }
}

const ack = { ok: true } as const;
const tags = ['Workers'];

/**
 * The worker API (issue 23), registered under WORKER_API_PREFIX in a scope of its own: only worker tokens
 * reach it (a user's token is refused), and the user API's authentication never sees a worker token as a user.
 */
export function registerWorkerRoutes(app: FastifyInstance, workers: WorkerService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.decorateRequest('worker', null);
  api.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.signedLink) return;
    request.worker = await workers.authenticate(bearerOf(request));
  });
  // Result files are streamed into the store as they arrive (their size is the engine's, not a form's).
  api.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
  const workerOf = (request: FastifyRequest) => request.worker!;
  /** A signed input link's file, streamed. */
  async function sendInput(
    reply: FastifyReply,
    lease: string,
    input: InputRef,
    link: { expires: number; signature: string },
  ) {
    const file = await workers.inputFile(lease, input, link.expires, link.signature);
    return reply.header('content-length', file.sizeBytes).type('application/octet-stream').send(file.stream);
  }
  const security = [{ workerToken: [] }];

  api.post(
    workerPaths.lease,
    { schema: { tags, security, body: leaseRequestSchema, response: { 200: leaseResponseSchema } } },
    async (request) => {
      const gone = new AbortController();
      request.raw.once('close', () => gone.abort());
      return { lease: await workers.lease(workerOf(request), request.body.wait_s, gone.signal) };
    },
  );
  api.get(
    workerPaths.inputs(':lease'),
    { schema: { tags, security, params: leaseParamsSchema, response: { 200: trialInputsManifestSchema } } },
    (request) => workers.inputs(workerOf(request), request.params.lease),
  );
  api.get(
    workerPaths.inputVideo(':lease', ':index'),
    {
      config: { signedLink: true },
      schema: { tags, security: [], params: inputLinkParamsSchema, querystring: inputLinkQuerySchema },
    },
    ({ params, query }, reply) => sendInput(reply, params.lease, { index: params.index }, query),
  );
  api.get(
    workerPaths.inputKeypoints(':lease', ':index', ':file'),
    {
      config: { signedLink: true },
      schema: { tags, security: [], params: inputKeypointsParamsSchema, querystring: inputLinkQuerySchema },
    },
    ({ params, query }, reply) =>
      sendInput(reply, params.lease, { index: params.index, keypointsFile: params.file }, query),
  );
  api.put(
    workerPaths.result(':lease'),
    {
      schema: {
        tags,
        security,
        params: leaseParamsSchema,
        querystring: resultFileRefSchema,
        response: { 200: workerAckSchema },
      },
    },
    async (request) => {
      const file = request.body;
      if (!(file instanceof Readable)) throw invalidFields({ file: [workerMessages.resultBodyMissing] });
      await workers.storeResult(workerOf(request), request.params.lease, request.query, file);
      return ack;
    },
  );
  /** A report of the worker on its lease (progress, results, failure): its body checked by `body`, answered with an ack. */
  function leaseReport<Body extends z.ZodType>(
    path: string,
    body: Body,
    report: (worker: Worker, lease: string, body: z.infer<Body>) => Promise<void>,
  ) {
    api.post(
      path,
      { schema: { tags, security, params: leaseParamsSchema, body, response: { 200: workerAckSchema } } },
      async (request) => {
        await report(workerOf(request), request.params.lease, request.body as z.infer<Body>);
        return ack;
      },
    );
  }
  leaseReport(workerPaths.heartbeat(':lease'), heartbeatRequestSchema, workers.heartbeat);
  leaseReport(workerPaths.complete(':lease'), completeRequestSchema, workers.complete);
  leaseReport(workerPaths.fail(':lease'), failRequestSchema, workers.fail);
  leaseReport(workerPaths.addResults(':lease'), addResultsRequestSchema, (worker, lease, { results }) =>
    workers.addResults(worker, lease, results),
  );
  leaseReport(workerPaths.followUpFailed(':lease'), failRequestSchema, workers.followUpFailed);
}
