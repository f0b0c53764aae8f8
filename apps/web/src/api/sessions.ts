import {
  dataPaths,
  emptyTrashResponseSchema,
  recycleBinResponseSchema,
  sessionRowSchema,
  sessionSchema,
  validSessionsResponseSchema,
  type EmptyTrashRequest,
  type Session,
  type ValidSessionsRequest,
} from '@kinetrace/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest, queryString } from '../app/api-client.ts';

/** One TanStack Query hook per session call of §7 (paths and bodies from the contracts). */

export const sessionsQueryKey = ['sessions'] as const;
const sessionQueryKey = (id: string) => ['session', id] as const;

/** A page of sessions (POST /sessions/valid/); the previous page stays on screen while the next loads. */
export const useValidSessions = (request: ValidSessionsRequest, enabled = true) =>
  useQuery({
    queryKey: [...sessionsQueryKey, 'valid', request],
    queryFn: () => apiRequest(dataPaths.validSessions, { body: request, schema: validSessionsResponseSchema }),
    placeholderData: keepPreviousData,
    enabled,
  });

/** Sessions whose name, subject or id contains `text`. */
export const useSearchSessions = (text: string, includeTrashed: boolean) =>
  useQuery({
    queryKey: [...sessionsQueryKey, 'search', text, includeTrashed],
    queryFn: () =>
      apiRequest(`${dataPaths.searchSessions}${queryString({ text, include_trashed: includeTrashed })}`, {
        schema: z.array(sessionRowSchema),
      }),
    enabled: text !== '',
    placeholderData: keepPreviousData,
  });

/**
 * A session with its trials; `refreshMs` asks again on that interval (the session screen's trial list, §9);
 * `shareToken` is a subject's share token, for a visitor of a shared dashboard.
 */
export const useSession = (id: string | null, refreshMs: number | false = false, shareToken?: string) =>
  useQuery({
    queryKey: sessionQueryKey(id ?? ''),
    queryFn: () =>
      apiRequest(`${dataPaths.session(id!)}${queryString({ share_token: shareToken })}`, { schema: sessionSchema }),
    enabled: id !== null,
    refetchInterval: refreshMs,
  });

/** Every list and session view shows the answer of a change: refetch them all. */
export function useRefreshSessions() {
  const queryClient = useQueryClient();
  return (session?: Session) => {
    if (session) queryClient.setQueryData(sessionQueryKey(session.id), session);
    void queryClient.invalidateQueries({ queryKey: sessionsQueryKey });
    void queryClient.invalidateQueries({ queryKey: ['session'] });
  };
}

/** The owner makes a session public (anyone with its link reads it and its analyses) or private again. */
export const useSetSessionPublic = () => {
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: ({ id, isPublic }: { id: string; isPublic: boolean }) =>
      apiRequest(dataPaths.session(id), { method: 'PATCH', body: { public: isPublic }, schema: sessionSchema }),
    onSuccess: refresh,
  });
};

/** The web app never leaves an empty session behind: a new session takes up the one nothing was done in yet, if any. */
export const useNewSession = () =>
  useMutation({
    mutationFn: async () =>
      (
        await apiRequest(`${dataPaths.newSession}${queryString({ reuse_empty: true })}`, {
          schema: z.array(sessionSchema).min(1),
        })
      )[0],
  });

export const useRenameSession = () => {
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: ({ id, sessionNewName }: { id: string; sessionNewName: string }) =>
      apiRequest(dataPaths.sessionAction(id, 'rename'), { body: { sessionNewName }, schema: sessionSchema }),
    onSuccess: refresh,
  });
};

export const useTrashSession = () => {
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'trash' | 'restore' }) =>
      apiRequest(dataPaths.sessionAction(id, action), { method: 'POST', schema: sessionSchema }),
    onSuccess: refresh,
  });
};

export const usePermanentlyRemoveSession = () => {
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(dataPaths.sessionAction(id, 'permanent_remove'), { method: 'POST', schema: z.null() }),
    onSuccess: () => refresh(),
  });
};

/** What the recycle bin holds: trashed sessions and active sessions with trashed trials, each with its trashed trials. */
export const useRecycleBin = () =>
  useQuery({
    queryKey: [...sessionsQueryKey, 'recycle-bin'],
    queryFn: () => apiRequest(dataPaths.recycleBin, { schema: recycleBinResponseSchema }),
  });

/** The recycle bin's 'empty bin' (§4.4): the trashed trials it listed, then the trashed sessions it listed. */
export const useEmptyTrash = () => {
  const refresh = useRefreshSessions();
  return useMutation({
    mutationFn: (listed: EmptyTrashRequest) =>
      apiRequest(dataPaths.emptyTrash, { body: listed, schema: emptyTrashResponseSchema }),
    onSuccess: () => refresh(),
  });
};
