import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  modifyTrialTagsRequestSchema,
  renameTrialRequestSchema,
  trialSchema,
  trialTagItemSchema,
  shareTokenQuerySchema,
  uuidIdParams,
} from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { viewerOf } from '../http/viewer.ts';
import type { TrialService } from '../services/trial-service.ts';

const tags = ['Trials'];

export function registerTrialRoutes(app: FastifyInstance, trials: TrialService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/trials/:id/',
    { schema: { tags, params: uuidIdParams, querystring: shareTokenQuerySchema, response: { 200: trialSchema } } },
    (request) => trials.get(viewerOf(request, request.query.share_token), request.params.id),
  );

  api.post(
    '/trials/:id/rename/',
    { schema: { tags, params: uuidIdParams, body: renameTrialRequestSchema, response: { 200: trialSchema } } },
    (request) => trials.rename(requireVerified(request), request.params.id, request.body.trialNewName),
  );

  api.post(
    '/trials/:id/modifyTags/',
    { schema: { tags, params: uuidIdParams, body: modifyTrialTagsRequestSchema, response: { 200: trialSchema } } },
    (request) => trials.modifyTags(requireVerified(request), request.params.id, request.body.trialNewTags),
  );

  for (const action of ['trash', 'restore'] as const) {
    api.post(
      `/trials/:id/${action}/`,
      { schema: { tags, params: uuidIdParams, response: { 200: trialSchema } } },
      (request) => trials[action](requireVerified(request), request.params.id),
    );
  }

  api.post('/trials/:id/permanent_remove/', { schema: { tags, params: uuidIdParams } }, async (request, reply) => {
    await trials.permanentRemove(requireVerified(request), request.params.id);
    return reply.code(204).send();
  });

  api.get(
    '/trial-tags/:id/get_tags_trial/',
    {
      schema: {
        tags,
        params: uuidIdParams,
        querystring: shareTokenQuerySchema,
        response: { 200: z.array(trialTagItemSchema) },
      },
    },
    (request) => trials.tags(viewerOf(request, request.query.share_token), request.params.id),
  );
}
