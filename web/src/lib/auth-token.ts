import { useSyncExternalStore } from 'react';

/** The one auth token of the site, kept in local storage under `authToken` (site-spec §3). */
export const authTokenKey = 'authToken';
/** The e-mail the token was obtained with (the token does not carry it), to fill forms such as Report Issue. */
export const authEmailKey = 'authEmail';
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

export const authToken = {
  get: (): string | null => localStorage.getItem(authTokenKey),
  set: (token: string, email?: string) => {
    localStorage.setItem(authTokenKey, token);
    if (email) localStorage.setItem(authEmailKey, email);
    else localStorage.removeItem(authEmailKey);
    notify();
  },
  clear: () => {
    localStorage.removeItem(authTokenKey);
    localStorage.removeItem(authEmailKey);
    notify();
  },
  /** The signed-in visitor's e-mail, when they signed in through the login form. */
  email: (): string | null => localStorage.getItem(authEmailKey),
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
