import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { ApiKeyId } from '../schemas/auth.js';
import { SuccessMessage } from '../schemas/common.js';

export const revokeApiKey = defineOperation({
  id: 'revoke-api-key',
  name: 'Revoke API Key',
  category: 'auth',
  summary: 'Revoke an API key at once',
  description:
    'Deletes the key: the next request made with it answers 401. You may revoke your own keys; a tenant admin any key of the tenant. A key of someone else (or of another tenant) is not found.',
  http: { method: 'DELETE', path: '/auth/api-keys/{keyID}', aliases: ['/api/v1/auth/api-keys/{keyID}'] },
  access: 'user',
  params: Type.Object({ keyID: ApiKeyId }),
  success: { status: 200, schema: SuccessMessage, description: 'The key was revoked.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Revoke a key',
      params: { keyID: '3f9c2a7e1b4d8c06' },
      response: { status: 200, body: { success: true, message: 'API key revoked' } },
    },
  ],
});
