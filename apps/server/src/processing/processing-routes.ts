import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { reprocessResponseSchema } from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import type { ProcessingService } from './processing-service.ts';

const idParams = z.object({ id: z.string().uuid() });

/** Reprocessing after settings changed, without recording again (owner only). */
export function registerProcessingRoutes(app: FastifyInstance, processing: ProcessingService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/trials/:id/reprocess/',
    { schema: { tags: ['Trials'], params: idParams, response: { 200: reprocessResponseSchema } } },
    (request) => processing.reprocessTrial(requireVerified(request), request.params.id),
  );
  api.post(
    '/sessions/:id/reprocess/',
    { schema: { tags: ['Sessions'], params: idParams, response: { 200: reprocessResponseSchema } } },
    (request) => processing.reprocessSession(requireVerified(request), request.params.id),
  );
}
