import { useEffect, useSyncExternalStore } from 'react';
import { useSession } from '../api/sessions.ts';

/**
 * The session being set up (connect devices → calibration → neutral). The guard sends the session-setup
 * steps to ConnectDevices while there is none (§2.2); the session wizard sets it when it creates one, and a
 * step opened by its address (a reload, a bookmark) makes the session it names active once it has loaded.
 */
let activeSessionId: string | null = null;
const listeners = new Set<() => void>();

export const activeSessionStore = {
  get: () => activeSessionId,
  set(sessionId: string | null): void {
    activeSessionId = sessionId;
    for (const listener of listeners) listener();
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export const useActiveSessionId = () => useSyncExternalStore(activeSessionStore.subscribe, activeSessionStore.get);

/**
 * Whether the session a setup step's address names may be the active one: loading while it is asked for,
 * active when it is the user's own, missing otherwise (a wrong or someone else's id). Null: no id to check.
 */
export function useSessionOfAddress(sessionId: string | null): 'loading' | 'active' | 'missing' | null {
  const activeId = useActiveSessionId();
  const known = sessionId !== null && sessionId === activeId;
  const session = useSession(sessionId !== null && !known ? sessionId : null);
  const owned = session.data?.is_owner === true;
  useEffect(() => {
    if (owned && sessionId !== null) activeSessionStore.set(sessionId);
  }, [owned, sessionId]);
  if (sessionId === null) return null;
  if (known || owned) return 'active';
  return session.isPending ? 'loading' : 'missing';
}
