import { operationById } from '@godb/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { callOperation } from '../../../lib/api-client';
import { apiKeysKey } from './list-api-keys';

/** DELETE /api/v1/auth/api-keys/{keyID}: the key stops working at once. */
export function revokeApiKey(token: string, keyId: string): Promise<{ success: boolean }> {
  return callOperation(operationById('revoke-api-key'), { token, params: { keyID: keyId } });
}

/** Revokes a key, then reloads the list. */
export function useRevokeApiKey(token: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (keyId: string) => revokeApiKey(token, keyId),
    onSuccess: () => client.invalidateQueries({ queryKey: apiKeysKey(token) }),
  });
}
