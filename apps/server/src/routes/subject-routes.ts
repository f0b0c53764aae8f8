import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  subjectInputSchema,
  subjectListQuerySchema,
  subjectListResponseSchema,
  subjectSchema,
  subjectTagItemSchema,
  serialIdParams,
  shareTokenQuerySchema,
} from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { viewerOf } from '../http/viewer.ts';
import type { DownloadService } from '../services/download-service.ts';
import type { SubjectService } from '../services/subject-service.ts';
import { registerArchiveRoutes } from './session-routes.ts';

const tags = ['Subjects'];

export function registerSubjectRoutes(
  app: FastifyInstance,
  subjects: SubjectService,
  downloads: DownloadService,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/subjects/',
    { schema: { tags, querystring: subjectListQuerySchema, response: { 200: subjectListResponseSchema } } },
    (request) => subjects.list(requireVerified(request), request.query),
  );

  api.post(
    '/subjects/',
    { schema: { tags, body: subjectInputSchema, response: { 201: subjectSchema } } },
    async (request, reply) => reply.code(201).send(await subjects.create(requireVerified(request), request.body)),
  );

  api.get(
    '/subjects/:id/',
    { schema: { tags, params: serialIdParams, querystring: shareTokenQuerySchema, response: { 200: subjectSchema } } },
    (request) => subjects.get(viewerOf(request, request.query.share_token), request.params.id),
  );

  api.put(
    '/subjects/:id/',
    { schema: { tags, params: serialIdParams, body: subjectInputSchema, response: { 200: subjectSchema } } },
    (request) => subjects.update(requireVerified(request), request.params.id, request.body),
  );

  for (const [action, run] of [
    ['trash', subjects.trash],
    ['restore', subjects.restore],
    ['replace_share_token', subjects.replaceShareToken],
    ['revoke_share_token', subjects.revokeShareToken],
  ] as const) {
    api.post(
      `/subjects/:id/${action}/`,
      { schema: { tags, params: serialIdParams, response: { 200: subjectSchema } } },
      (request) => run(requireVerified(request), request.params.id),
    );
  }

  api.post('/subjects/:id/permanent_remove/', { schema: { tags, params: serialIdParams } }, async (request, reply) => {
    await subjects.permanentRemove(requireVerified(request), request.params.id);
    return reply.code(204).send();
  });

  api.get(
    '/subject-tags/:id/get_tags_subject/',
    {
      schema: {
        tags,
        params: serialIdParams,
        querystring: shareTokenQuerySchema,
        response: { 200: z.array(subjectTagItemSchema) },
      },
    },
    (request) => subjects.tags(viewerOf(request, request.query.share_token), request.params.id),
  );

  registerArchiveRoutes(app, '/subjects', {
    tags,
    params: serialIdParams,
    archive: (viewer, id) => downloads.subjectArchive(viewer, id),
    startArchive: (viewer, id, clientAddress) => downloads.startSubjectArchive(viewer, id, clientAddress),
  });
}
