import { operationById, type ApiKey } from '@godb/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { callOperation } from '../../../lib/api-client';
import { apiKeysKey } from './list-api-keys';

export interface NewApiKeyInput {
  readonly name: string;
  readonly role: string;
  /** An ISO date (2027-01-01, midnight UTC), or empty for a key that never expires. */
  readonly expiresOn: string;
}

/** POST /api/v1/auth/api-keys: the new key with its secret, which the server shows only this once. */
export function createApiKey(token: string, input: NewApiKeyInput): Promise<ApiKey & { key: string }> {
  const body = { name: input.name, role: input.role, ...(input.expiresOn !== '' && { expires_at: input.expiresOn }) };
  return callOperation(operationById('create-api-key'), { token, body });
}

/** Creates a key, then reloads the list. */
export function useCreateApiKey(token: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: NewApiKeyInput) => createApiKey(token, input),
    onSuccess: () => client.invalidateQueries({ queryKey: apiKeysKey(token) }),
  });
}
