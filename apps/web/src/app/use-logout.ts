import { useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { logout } from '../api/account.ts';
import { authStore } from './auth-store.ts';
import { fixedPaths } from './route-names.ts';

/** §4.1: logout revokes the token on the server (best effort), clears the state and returns to Login. */
export function useLogout(): () => Promise<void> {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useCallback(async () => {
    if (authStore.get().token) await logout().catch(() => undefined);
    authStore.loggedOut();
    queryClient.clear();
    await navigate(fixedPaths.Login, { replace: true });
  }, [navigate, queryClient]);
}
