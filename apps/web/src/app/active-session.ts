import { useSyncExternalStore } from 'react';

/**
 * The session being set up (connect devices → calibration → neutral). The guard sends the session-setup
 * steps to ConnectDevices while there is none (§2.2); the session wizard sets it when it creates one.
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
