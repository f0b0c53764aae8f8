import {
  dataPaths,
  subjectListResponseSchema,
  subjectSchema,
  validSessionsResponseSchema,
  type SubjectInput,
  type SubjectListQuery,
} from '@kinetrace/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest, queryString } from '../app/api-client.ts';
import { sessionsQueryKey } from './sessions.ts';

/** One TanStack Query hook per subject call of §7 (paths and bodies from the contracts). */

const subjectsQueryKey = ['subjects'] as const;

export const useSubjects = (query: SubjectListQuery) =>
  useQuery({
    queryKey: [...subjectsQueryKey, query],
    queryFn: () => apiRequest(`${dataPaths.subjects}${queryString(query)}`, { schema: subjectListResponseSchema }),
    placeholderData: keepPreviousData,
  });

/** One subject (the session's subject, shown again when its Neutral step is opened anew). */
export const useSubject = (id: number | null) =>
  useQuery({
    queryKey: [...subjectsQueryKey, 'one', id],
    queryFn: () => apiRequest(dataPaths.subject(id!), { schema: subjectSchema }),
    enabled: id !== null,
  });

/** Every session of a subject (the Subjects screen's right table). */
export const useSubjectSessions = (subjectId: number | null) =>
  useQuery({
    queryKey: [...sessionsQueryKey, 'of-subject', subjectId],
    queryFn: () =>
      apiRequest(dataPaths.validSessions, {
        body: { subject_id: subjectId!, quantity: -1, include_trashed: false },
        schema: validSessionsResponseSchema,
      }),
    enabled: subjectId !== null,
  });

function useRefreshSubjects() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: subjectsQueryKey });
    void queryClient.invalidateQueries({ queryKey: sessionsQueryKey });
  };
}

/** Creates a subject (POST, 201) or, given an id, replaces its fields (PUT). */
export const useSaveSubject = () => {
  const onSuccess = useRefreshSubjects();
  return useMutation({
    mutationFn: ({ id, subject }: { id: number | null; subject: SubjectInput }) =>
      id === null
        ? apiRequest(dataPaths.subjects, { body: subject, schema: subjectSchema })
        : apiRequest(dataPaths.subject(id), { method: 'PUT', body: subject, schema: subjectSchema }),
    onSuccess,
  });
};

export type SubjectAction = 'trash' | 'restore' | 'permanent_remove' | 'replace_share_token' | 'revoke_share_token';

export const useSubjectAction = () => {
  const onSuccess = useRefreshSubjects();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: SubjectAction }) =>
      apiRequest(dataPaths.subjectAction(id, action), {
        method: 'POST',
        schema: action === 'permanent_remove' ? z.null() : subjectSchema,
      }),
    onSuccess,
  });
};
