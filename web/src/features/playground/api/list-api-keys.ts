import type { ApiKey } from '@godb/contract';
import { apiRequest } from '../../../lib/api-client';
import { answerOf, type ApiAnswer } from './api-answer';

/** GET /auth/api-keys: the caller's keys (a tenant admin's: the tenant's), newest first, without secrets. */
export async function listApiKeys(token: string): Promise<ApiAnswer<{ keys: ApiKey[]; total: number }>> {
  return answerOf(await apiRequest('GET', '/api/v1/auth/api-keys', { token, query: { limit: '500' } }));
}
