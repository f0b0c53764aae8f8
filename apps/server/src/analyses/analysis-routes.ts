import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  analysisDashboardDataQuerySchema,
  analysisDashboardSchema,
  analysisDashboardsResponseSchema,
  analysisDashboardWithDataSchema,
  analysisFunctionsResponseSchema,
  analysisInvokeRequestSchema,
  analysisInvokeResponseSchema,
  analysisPendingResponseSchema,
  analysisReadQuerySchema,
  analysisStatesQuerySchema,
  analysisStatesResponseSchema,
  analysisTaskForTrialResponseSchema,
  analysisTaskPendingSchema,
  analysisTaskResultSchema,
  serialId,
  uuidId,
} from '@kinetrace/contracts';
import { requireVerified } from '../http/authentication.ts';
import { viewerOf } from '../http/viewer.ts';
import type { AnalysisService } from './analysis-service.ts';

const tags = ['Analysis'];
const functionParams = z.object({ id: serialId });
const taskParams = z.object({ task_id: uuidId });

/** Spec §7 Analysis: the nine calls. */
export function registerAnalysisRoutes(app: FastifyInstance, analyses: AnalysisService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/analysis-functions/',
    { schema: { tags, querystring: analysisStatesQuerySchema, response: { 200: analysisFunctionsResponseSchema } } },
    (request) => analyses.functions(viewerOf(request, request.query.share_token), request.query.session_id),
  );

  api.get(
    '/analysis-results/states/',
    { schema: { tags, querystring: analysisStatesQuerySchema, response: { 200: analysisStatesResponseSchema } } },
    (request) => analyses.states(viewerOf(request, request.query.share_token), request.query.session_id),
  );

  api.get(
    '/analysis-results/pending/',
    { schema: { tags, response: { 200: analysisPendingResponseSchema } } },
    (request) => analyses.pending(requireVerified(request)),
  );

  api.get(
    '/analysis-functions/:id/task-for-trial/:trialId/',
    {
      schema: {
        tags,
        params: z.object({ id: serialId, trialId: uuidId }),
        querystring: analysisReadQuerySchema,
        response: { 200: analysisTaskForTrialResponseSchema },
      },
    },
    (request) =>
      analyses.taskForTrial(viewerOf(request, request.query.share_token), request.params.id, request.params.trialId),
  );

  api.post(
    '/analysis-functions/:id/invoke/',
    {
      schema: {
        tags,
        params: functionParams,
        body: analysisInvokeRequestSchema,
        response: { 200: analysisInvokeResponseSchema },
      },
    },
    (request) => analyses.invoke(requireVerified(request), request.params.id, request.body),
  );

  api.get(
    '/analysis-result/:task_id/',
    {
      schema: {
        tags,
        params: taskParams,
        querystring: analysisReadQuerySchema,
        response: { 200: analysisTaskResultSchema, 202: analysisTaskPendingSchema },
      },
    },
    async (request, reply) => {
      const outcome = await analyses.result(viewerOf(request, request.query.share_token), request.params.task_id);
      return outcome.pending ? reply.code(202).send({ status: 'pending' as const }) : outcome.result;
    },
  );

  api.get('/analysis-dashboards/', { schema: { tags, response: { 200: analysisDashboardsResponseSchema } } }, () =>
    analyses.dashboards(),
  );

  api.get(
    '/analysis-dashboards/:id/',
    { schema: { tags, params: functionParams, response: { 200: analysisDashboardSchema } } },
    (request) => analyses.dashboard(request.params.id),
  );

  api.get(
    '/analysis-dashboards/:id/data/',
    {
      schema: {
        tags,
        params: functionParams,
        querystring: analysisDashboardDataQuerySchema,
        response: { 200: analysisDashboardWithDataSchema },
      },
    },
    (request) => analyses.dashboardData(viewerOf(request, request.query.share_token), request.params.id, request.query),
  );
}
