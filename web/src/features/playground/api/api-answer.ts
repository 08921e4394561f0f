import type { ApiResponse } from '../../../lib/api-client';

/** An answer of the API keys calls: the body when it succeeded, else the server's status and message. */
export type ApiAnswer<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly status: number; readonly body: unknown; readonly message: string };

/** The message of an error answer (the catalogue's text), or the status line when there is none. */
export function answerOf<T>(res: ApiResponse): ApiAnswer<T> {
  if (res.ok) return { ok: true, value: res.body as T };
  const message =
    typeof res.body === 'object' && res.body !== null && 'error' in res.body
      ? (res.body as { error?: { message?: string } }).error?.message
      : undefined;
  return { ok: false, status: res.status, body: res.body, message: message ?? `${res.status} ${res.statusText}` };
}
