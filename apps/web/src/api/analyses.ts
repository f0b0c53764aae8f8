import {
  POLLING_INTERVAL_MS,
  analysisDashboardWithDataSchema,
  analysisDashboardsResponseSchema,
  analysisFunctionsResponseSchema,
  analysisInvokeResponseSchema,
  analysisPaths,
  analysisResultSchema,
  analysisTaskPendingSchema,
  analysisTaskResultSchema,
  dataPaths,
  subjectSchema,
  type AnalysisDashboardDataQuery,
  type AnalysisInvokeRequest,
} from '@kinetrace/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest, queryString } from '../app/api-client.ts';
import { resultFileQuery } from './trial-results.ts';

/** One TanStack Query hook per analysis call of spec §7 (paths and schemas from the contracts). */

const analysesQueryKey = ['analyses'] as const;

/** The analysis functions with their states for one session's trials (the analysis dialog). */
export const useAnalysisFunctions = (sessionId: string) =>
  useQuery({
    queryKey: [...analysesQueryKey, 'functions', sessionId],
    queryFn: () =>
      apiRequest(`${analysisPaths.functions}${queryString({ session_id: sessionId })}`, {
        schema: analysisFunctionsResponseSchema,
      }),
  });

export const useInvokeAnalysis = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ functionId, request }: { functionId: number; request: AnalysisInvokeRequest }) =>
      apiRequest(analysisPaths.invoke(functionId), { body: request, schema: analysisInvokeResponseSchema }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: analysesQueryKey }),
  });
};

const taskAnswerSchema = z.union([analysisTaskPendingSchema, analysisTaskResultSchema]);

/** A running analysis, asked every second (spec §9 async tasks) until it answers with its state. */
export const useAnalysisTask = (taskId: string | null) =>
  useQuery({
    queryKey: [...analysesQueryKey, 'task', taskId],
    queryFn: () => apiRequest(analysisPaths.result(taskId!), { schema: taskAnswerSchema }),
    enabled: taskId !== null,
    refetchInterval: (query) =>
      'state' in (query.state.data ?? { status: 'pending' }) ? false : POLLING_INTERVAL_MS.asyncTask,
  });

/** Every analysis dashboard (the session list's Dashboards menu). */
export const useAnalysisDashboards = () =>
  useQuery({
    queryKey: [...analysesQueryKey, 'dashboards'],
    queryFn: () => apiRequest(analysisPaths.dashboards, { schema: analysisDashboardsResponseSchema }),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** A dashboard with the subjects, sessions, trials and result files the visitor may read. */
export const useAnalysisDashboardData = (dashboardId: number, query: AnalysisDashboardDataQuery, enabled = true) =>
  useQuery({
    queryKey: [...analysesQueryKey, 'dashboard-data', dashboardId, query],
    queryFn: () =>
      apiRequest(`${analysisPaths.dashboardData(dashboardId)}${queryString(query)}`, {
        schema: analysisDashboardWithDataSchema,
      }),
    enabled,
  });

/** A trial's analysis result file (a signed URL). */
export const useAnalysisResult = (url: string | undefined) =>
  useQuery(resultFileQuery(url, async (response) => analysisResultSchema.parse(await response.json())));

/** The subject's share token (its owner receives it), for a dashboard link others can open. */
export const useSubjectShareToken = (subjectId: number | null) =>
  useQuery({
    queryKey: ['subjects', 'share-token', subjectId],
    queryFn: async () => (await apiRequest(dataPaths.subject(subjectId!), { schema: subjectSchema })).share_token,
    enabled: subjectId !== null,
  });
