import { dataPaths, trialSchema } from '@kinetrace/contracts';
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../app/api-client.ts';
import { useRefreshSessions } from './sessions.ts';

/** One TanStack Query hook per trial call of §7; a change refetches the sessions that list the trial. */

function useRefreshTrialLists() {
  const refresh = useRefreshSessions();
  return () => refresh();
}

export const useRenameTrial = () => {
  const onSuccess = useRefreshTrialLists();
  return useMutation({
    mutationFn: ({ id, trialNewName }: { id: string; trialNewName: string }) =>
      apiRequest(dataPaths.trialAction(id, 'rename'), { body: { trialNewName }, schema: trialSchema }),
    onSuccess,
  });
};

export const useModifyTrialTags = () => {
  const onSuccess = useRefreshTrialLists();
  return useMutation({
    mutationFn: ({ id, trialNewTags }: { id: string; trialNewTags: string[] }) =>
      apiRequest(dataPaths.trialAction(id, 'modifyTags'), { body: { trialNewTags }, schema: trialSchema }),
    onSuccess,
  });
};

export const useTrashTrial = () => {
  const onSuccess = useRefreshTrialLists();
  return useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'trash' | 'restore' }) =>
      apiRequest(dataPaths.trialAction(id, action), { method: 'POST', schema: trialSchema }),
    onSuccess,
  });
};

export const usePermanentlyRemoveTrial = () => {
  const onSuccess = useRefreshTrialLists();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(dataPaths.trialAction(id, 'permanent_remove'), { method: 'POST', schema: z.null() }),
    onSuccess,
  });
};
