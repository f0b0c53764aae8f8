import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  asyncDownloadResponseSchema,
  dataPaths,
  emptyTrashRequestSchema,
  emptyTrashResponseSchema,
  recycleBinResponseSchema,
  downloadPendingResponseSchema,
  downloadReadyResponseSchema,
  patchSessionRequestSchema,
  renameSessionRequestSchema,
  searchSessionsQuerySchema,
  sessionRowSchema,
  sessionSchema,
  sessionSettingsResponseSchema,
  setMetadataQuerySchema,
  setMetadataResponseSchema,
  setSubjectQuerySchema,
  newSessionQuerySchema,
  validSessionsRequestSchema,
  validSessionsResponseSchema,
  uuidId,
  shareTokenQuerySchema,
  uuidIdParams,
} from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { viewerOf } from '../http/viewer.ts';
import type { Viewer } from '../services/access.ts';
import type { Archive } from '../services/archive-service.ts';
import type { DownloadService } from '../services/download-service.ts';
import type { SessionService } from '../services/session-service.ts';

const tags = ['Sessions'];

/** Streams an archive as a browser download; the zip is built while it is sent. */
async function sendArchive(reply: FastifyReply, archive: Archive): Promise<FastifyReply> {
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'application/zip',
    'content-disposition': `attachment; filename="${archive.fileName}"`,
    'cache-control': 'no-store',
  });
  await archive.write(reply.raw).catch((error: unknown) => {
    reply.log.error({ err: error }, 'archive stream failed');
    reply.raw.destroy(error as Error);
  });
  return reply;
}

/**
 * The two downloads of a session's or a subject's archive (spec §7): `<base>/:id/download/` streams
 * the zip, `<base>/:id/async-download/` has a job build it and answers its task id; both for
 * whoever may read it (share token in the query).
 */
export function registerArchiveRoutes<Id>(
  app: FastifyInstance,
  base: '/sessions' | '/subjects',
  options: {
    tags: string[];
    params: z.ZodType<{ id: Id }>;
    archive: (viewer: Viewer, id: Id) => Promise<Archive>;
    startArchive: (viewer: Viewer, id: Id, clientAddress: string) => Promise<string>;
  },
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { tags, params } = options;
  api.get(
    `${base}/:id/download/`,
    { schema: { tags, params, querystring: shareTokenQuerySchema } },
    async (request, reply) =>
      sendArchive(reply, await options.archive(viewerOf(request, request.query.share_token), request.params.id)),
  );
  api.get(
    `${base}/:id/async-download/`,
    {
      schema: { tags, params, querystring: shareTokenQuerySchema, response: { 200: asyncDownloadResponseSchema } },
    },
    async (request) => ({
      task_id: await options.startArchive(viewerOf(request, request.query.share_token), request.params.id, request.ip),
    }),
  );
}

export function registerSessionRoutes(
  app: FastifyInstance,
  sessions: SessionService,
  downloads: DownloadService,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    dataPaths.newSession,
    { schema: { tags, querystring: newSessionQuerySchema, response: { 200: z.array(sessionSchema) } } },
    async (request) => [await sessions.create(requireVerified(request), { reuseEmpty: request.query.reuse_empty })],
  );

  api.post(
    dataPaths.validSessions,
    { schema: { tags, body: validSessionsRequestSchema, response: { 200: validSessionsResponseSchema } } },
    (request) => sessions.listValid(viewerOf(request, request.body.share_token), request.body),
  );

  // OpenCap's client (opencap-processing utils.py) lists with GET and reads a plain list of full sessions.
  for (const [path, onlyValid] of [
    [dataPaths.sessions, false],
    [dataPaths.validSessions, true],
  ] as const) {
    api.get(path, { schema: { tags, response: { 200: z.array(sessionSchema) } } }, (request) =>
      sessions.listInFull(requireVerified(request), onlyValid),
    );
  }

  api.get(
    dataPaths.searchSessions,
    { schema: { tags, querystring: searchSessionsQuerySchema, response: { 200: z.array(sessionRowSchema) } } },
    (request) => sessions.search(requireVerified(request), request.query.text, request.query.include_trashed),
  );

  api.get(dataPaths.recycleBin, { schema: { tags, response: { 200: recycleBinResponseSchema } } }, (request) =>
    sessions.recycleBin(requireVerified(request)),
  );

  api.post(
    dataPaths.emptyTrash,
    { schema: { tags, body: emptyTrashRequestSchema, response: { 200: emptyTrashResponseSchema } } },
    (request) => sessions.emptyTrash(requireVerified(request), request.body),
  );

  api.get(
    '/sessions/:id/',
    { schema: { tags, params: uuidIdParams, querystring: shareTokenQuerySchema, response: { 200: sessionSchema } } },
    (request) => sessions.get(viewerOf(request, request.query.share_token), request.params.id),
  );

  api.patch(
    '/sessions/:id/',
    { schema: { tags, params: uuidIdParams, body: patchSessionRequestSchema, response: { 200: sessionSchema } } },
    (request) => sessions.setPublic(requireVerified(request), request.params.id, request.body.public),
  );

  api.get(
    '/sessions/:id/get_qr/',
    { schema: { tags, params: uuidIdParams, response: { 200: z.object({ qr: z.string() }) } } },
    async (request) => ({
      qr: await sessions.qrCode(requireVerified(request), request.params.id),
    }),
  );

  api.post(
    '/sessions/:id/rename/',
    { schema: { tags, params: uuidIdParams, body: renameSessionRequestSchema, response: { 200: sessionSchema } } },
    (request) => sessions.rename(requireVerified(request), request.params.id, request.body.sessionNewName),
  );

  api.get(
    '/sessions/:id/set_subject/',
    { schema: { tags, params: uuidIdParams, querystring: setSubjectQuerySchema, response: { 200: sessionSchema } } },
    (request) => sessions.setSubject(requireVerified(request), request.params.id, request.query.subject_id),
  );

  api.get(
    '/sessions/:id/set_metadata/',
    {
      schema: {
        tags,
        params: uuidIdParams,
        querystring: setMetadataQuerySchema,
        response: { 200: setMetadataResponseSchema },
      },
    },
    (request) => sessions.setMetadata(requireVerified(request), request.params.id, request.query),
  );

  api.get(
    '/sessions/:id/get_session_settings/',
    {
      schema: {
        tags,
        params: uuidIdParams,
        querystring: shareTokenQuerySchema,
        response: { 200: sessionSettingsResponseSchema },
      },
    },
    async (request) => {
      await sessions.access(viewerOf(request, request.query.share_token), request.params.id);
      return sessions.settings();
    },
  );

  for (const action of ['trash', 'restore'] as const) {
    api.post(
      `/sessions/:id/${action}/`,
      { schema: { tags, params: uuidIdParams, response: { 200: sessionSchema } } },
      (request) => sessions[action](requireVerified(request), request.params.id),
    );
  }

  api.post('/sessions/:id/permanent_remove/', { schema: { tags, params: uuidIdParams } }, async (request, reply) => {
    await sessions.permanentRemove(requireVerified(request), request.params.id);
    return reply.code(204).send();
  });

  registerArchiveRoutes(app, '/sessions', {
    tags,
    params: uuidIdParams,
    archive: (viewer, id) => downloads.sessionArchive(viewer, id),
    startArchive: (viewer, id, clientAddress) => downloads.startSessionArchive(viewer, id, clientAddress),
  });

  api.get(
    '/logs/:taskId/on-ready/',
    {
      schema: {
        tags,
        params: z.object({ taskId: uuidId }),
        response: { 200: downloadReadyResponseSchema, 202: downloadPendingResponseSchema },
      },
    },
    async (request, reply) => {
      const state = await downloads.state(viewerOf(request), request.params.taskId);
      return state.ready
        ? reply.code(200).send({ url: state.url })
        : reply.code(202).send({ status: state.status, progress: state.progress });
    },
  );
}
