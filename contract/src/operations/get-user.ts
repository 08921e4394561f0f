import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { User } from '../schemas/auth.js';
import { Uuid } from '../schemas/common.js';

export const exampleUser = {
  id: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b',
  email: 'ada@example.com',
  tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
  role: 'admin',
  groups: ['3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'],
  created_at: 1767225600,
  updated_at: 1767225600,
} as const;

export const getUser = defineOperation({
  id: 'get-user',
  name: 'Get User',
  category: 'auth',
  summary: 'Read a user of your tenant',
  description: 'Admin only. Users of other tenants answer 404.',
  http: { method: 'GET', path: '/auth/users/{userID}', aliases: ['/api/v1/auth/users/{userID}'] },
  access: 'admin',
  params: Type.Object({ userID: Uuid }),
  success: { status: 200, schema: Type.Object({ user: User }), description: 'The user.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Read a user',
      params: { userID: exampleUser.id },
      response: { status: 200, body: { user: exampleUser } },
    },
  ],
  grpc: { service: 'AdminService', method: 'GetUser' },
});
