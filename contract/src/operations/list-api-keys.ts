import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { inputLimits } from '../schemas/common.js';
import { ApiKeyList } from '../schemas/auth.js';
import { exampleApiKey } from './create-api-key.js';

export const listApiKeys = defineOperation({
  id: 'list-api-keys',
  name: 'List API Keys',
  category: 'auth',
  summary: 'List API keys, without their secrets',
  description:
    'Your own keys; a tenant admin sees every key of the tenant. Newest first, with each key’s name, role, prefix, owner, creation, expiry and last use (recorded at most once a minute). Expired keys are listed until they are revoked; secrets never are.',
  http: { method: 'GET', path: '/auth/api-keys', aliases: ['/api/v1/auth/api-keys'] },
  access: 'user',
  query: Type.Object(
    {
      offset: Type.Integer({ minimum: 0, maximum: inputLimits.count, default: 0 }),
      limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    },
    { additionalProperties: false },
  ),
  success: { status: 200, schema: ApiKeyList, description: 'A page of keys.' },
  errors: [],
  examples: [
    {
      summary: 'Your keys',
      query: { offset: 0, limit: 50 },
      response: { status: 200, body: { keys: [{ ...exampleApiKey, last_used_at: 1767312000 }], total: 1 } },
    },
  ],
  playground: {
    hints: {
      offset: { placeholder: 'Keys to skip, e.g. 50 for the second page' },
      limit: { placeholder: 'Keys per page, 1 to 500' },
    },
  },
});
