import {
  createdPersonalTokenSchema,
  messageResponseSchema,
  personalTokenPaths,
  personalTokenSchema,
  type CreatePersonalTokenRequest,
} from '@kinetrace/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiRequest } from '../app/api-client.ts';

/** The Profile page's personal API tokens (issue 22): the list, making one, revoking one. */

const personalTokensQueryKey = ['personal-tokens'] as const;

export const usePersonalTokens = () =>
  useQuery({
    queryKey: personalTokensQueryKey,
    queryFn: () => apiRequest(personalTokenPaths.list, { schema: z.array(personalTokenSchema) }),
  });

export const useCreatePersonalToken = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreatePersonalTokenRequest) =>
      apiRequest(personalTokenPaths.list, { body, schema: createdPersonalTokenSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: personalTokensQueryKey }),
  });
};

export const useRevokePersonalToken = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) =>
      apiRequest(personalTokenPaths.revoke(id), { method: 'POST', schema: messageResponseSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: personalTokensQueryKey }),
  });
};
