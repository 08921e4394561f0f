import type { ApiKey } from '@godb/contract';
import { apiRequest } from '../../../lib/api-client';
import { answerOf, type ApiAnswer } from './api-answer';

export interface NewApiKeyInput {
  readonly name: string;
  readonly role: string;
  /** An ISO date (2027-01-01, midnight UTC), or empty for a key that never expires. */
  readonly expiresOn: string;
}

/** POST /auth/api-keys: the new key with its secret, which the server shows only this once. */
export async function createApiKey(token: string, input: NewApiKeyInput): Promise<ApiAnswer<ApiKey & { key: string }>> {
  const body = { name: input.name, role: input.role, ...(input.expiresOn !== '' && { expires_at: input.expiresOn }) };
  return answerOf(await apiRequest('POST', '/api/v1/auth/api-keys', { token, body }));
}
