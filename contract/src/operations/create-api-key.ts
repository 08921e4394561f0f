import { defineOperation } from '../define-operation.js';
import { CreatedApiKey, NewApiKey } from '../schemas/auth.js';

export const exampleApiKey = {
  id: '3f9c2a7e1b4d8c06',
  name: 'nightly import',
  role: 'user',
  prefix: 'godb_3f9c2a7e1b4d8c06',
  user_id: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b',
  user_email: 'ada@example.com',
  created_at: 1767225600,
  expires_at: 1798761600,
} as const;

export const createApiKey = defineOperation({
  id: 'create-api-key',
  name: 'Create API Key',
  category: 'auth',
  summary: 'Create an API key for programs',
  description:
    'Answers a new key, `godb_<id>_<secret>`, once: only a hash of it is stored, so copy it now. A key acts as you, in your tenant, with its own role (no higher than yours; `user` by default) and its own rate limit; send it as `Authorization: Bearer <key>` or as an `api-key` header, over REST or gRPC. It stops working when it expires, when it is revoked, or when you are deleted; a demotion lowers it to your new role. Keys are created with a login token, not with another key, so a leaked key cannot make itself a successor. A user holds at most 100 keys.',
  http: { method: 'POST', path: '/auth/api-keys', aliases: ['/api/v1/auth/api-keys'] },
  access: 'user',
  body: NewApiKey,
  success: { status: 201, schema: CreatedApiKey, description: 'The key, with its secret: shown only this once.' },
  errors: ['API_KEY_EXPIRY_PAST', 'API_KEY_LIMIT'],
  examples: [
    {
      summary: 'A key for a nightly import job, expiring at the end of 2026',
      body: { name: 'nightly import', role: 'user', expires_at: '2027-01-01' },
      response: {
        status: 201,
        body: {
          ...exampleApiKey,
          key: 'godb_3f9c2a7e1b4d8c06_9b1f0c3d5e7a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c',
        },
      },
    },
  ],
  playground: {
    hints: {
      name: { placeholder: 'What the key is for, e.g. nightly import' },
      role: { kind: 'select', options: ['user', 'admin', 'superadmin'], default: 'user' },
      expires_at: { placeholder: 'Optional: 2027-01-01 or Unix seconds; empty never expires' },
    },
  },
});
