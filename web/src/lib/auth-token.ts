import { useSyncExternalStore } from 'react';

/** The one auth token of the site, kept in local storage under `authToken` (site-spec §3). */
export const authTokenKey = 'authToken';
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

export const authToken = {
  get: (): string | null => localStorage.getItem(authTokenKey),
  set: (token: string) => {
    localStorage.setItem(authTokenKey, token);
    notify();
  },
  clear: () => {
    localStorage.removeItem(authTokenKey);
    notify();
  },
  subscribe: (listener: () => void) => {
    listeners.add(listener);
    const onStorage = (e: StorageEvent) => e.key === authTokenKey && listener();
    window.addEventListener('storage', onStorage);
    return () => {
      listeners.delete(listener);
      window.removeEventListener('storage', onStorage);
    };
  },
};

/** The stored token, re-rendering when it changes (in this tab or another). */
export function useAuthToken(): string | null {
  return useSyncExternalStore(authToken.subscribe, authToken.get, () => null);
}

/** A message to show on the login screen after a logout caused by an expired session. */
let pendingNotice: string | null = null;
export const sessionNotice = {
  set: (message: string) => {
    pendingNotice = message;
  },
  peek: (): string | null => pendingNotice,
  clear: () => {
    pendingNotice = null;
  },
};
