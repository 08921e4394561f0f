import { operationById, type ApiKey } from '@godb/contract';
import { useQuery } from '@tanstack/react-query';
import { callOperation } from '../../../lib/api-client';

/** The query key of the caller's API keys: creating or revoking one invalidates it. */
export const apiKeysKey = (token: string) => ['api-keys', token] as const;

/** GET /api/v1/auth/api-keys: the caller's keys (a tenant admin's: the tenant's), newest first, without secrets. */
export function listApiKeys(token: string): Promise<{ keys: ApiKey[]; total: number }> {
  return callOperation(operationById('list-api-keys'), { token, query: { limit: '500' } });
}

/** The caller's API keys; its error is an ApiError (or NetworkFailure when nothing answered). */
export function useApiKeys(token: string) {
  // Nothing is kept once the dialog closes (gcTime 0): opened again, it shows the keys as they are now (a key's
  // last use changes with every call it makes), never a stale list that updates a moment later.
  return useQuery({ queryKey: apiKeysKey(token), queryFn: () => listApiKeys(token), gcTime: 0 });
}
