import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { modifyTrialTagsRequestSchema, renameTrialRequestSchema, trialSchema, trialTagItemSchema } from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { viewerOf } from '../http/viewer.ts';
import type { TrialService } from '../services/trial-service.ts';

const tags = ['Trials'];
const idParams = z.object({ id: z.string().uuid() });
const shareQuery = z.object({ share_token: z.string().max(200).optional() });

export function registerTrialRoutes(app: FastifyInstance, trials: TrialService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get('/trials/:id/', { schema: { tags, params: idParams, querystring: shareQuery, response: { 200: trialSchema } } }, (request) =>
    trials.get(viewerOf(request, request.query.share_token), request.params.id),
  );

  api.post(
    '/trials/:id/rename/',
    { schema: { tags, params: idParams, body: renameTrialRequestSchema, response: { 200: trialSchema } } },
    (request) => trials.rename(requireVerified(request), request.params.id, request.body.trialNewName),
  );

  api.post(
    '/trials/:id/modifyTags/',
    { schema: { tags, params: idParams, body: modifyTrialTagsRequestSchema, response: { 200: trialSchema } } },
    (request) => trials.modifyTags(requireVerified(request), request.params.id, request.body.trialNewTags),
  );

  for (const action of ['trash', 'restore'] as const) {
    api.post(`/trials/:id/${action}/`, { schema: { tags, params: idParams, response: { 200: trialSchema } } }, (request) =>
      trials[action](requireVerified(request), request.params.id),
    );
  }

  api.post('/trials/:id/permanent_remove/', { schema: { tags, params: idParams } }, async (request, reply) => {
    await trials.permanentRemove(requireVerified(request), request.params.id);
    return reply.code(204).send();
  });

  api.get(
    '/trial-tags/:id/get_tags_trial/',
    { schema: { tags, params: idParams, querystring: shareQuery, response: { 200: z.array(trialTagItemSchema) } } },
    (request) => trials.tags(viewerOf(request, request.query.share_token), request.params.id),
  );
}
