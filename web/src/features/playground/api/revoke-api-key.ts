import { apiRequest } from '../../../lib/api-client';
import { answerOf, type ApiAnswer } from './api-answer';

/** DELETE /auth/api-keys/{keyID}: the key stops working at once. */
export async function revokeApiKey(token: string, keyId: string): Promise<ApiAnswer<{ success: boolean }>> {
  return answerOf(await apiRequest('DELETE', `/api/v1/auth/api-keys/${encodeURIComponent(keyId)}`, { token }));
}
