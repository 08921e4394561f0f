import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const createGroup = defineOperation({
  id: 'create-group',
  name: 'Create Group',
  category: 'auth',
  summary: 'Create a group in your tenant',
  description:
    'Admin only. Groups collect users; documents can be shared with a group through `access_list`, and permissions can be granted to a group. `tenant_id` may be omitted; when given it must be your own tenant.',
  http: { method: 'POST', path: '/auth/groups', aliases: ['/api/v1/auth/groups'] },
  access: 'admin',
  body: Type.Object(
    {
      tenant_id: Type.Optional(
        Type.String({ maxLength: 64, description: 'Your tenant (taken from the token when omitted).' }),
      ),
      name: Type.String({ minLength: 1, maxLength: 128 }),
      description: Type.String({ maxLength: 1024, default: '' }),
    },
    { additionalProperties: false },
  ),
  success: {
    status: 201,
    schema: Type.Object({ group_id: Type.String(), message: Type.String() }),
    description: 'The group was created.',
  },
  errors: ['GROUP_EXISTS'],
  examples: [
    {
      summary: 'Create a research group',
      body: { name: 'research', description: 'Research team' },
      response: {
        status: 201,
        body: { group_id: '3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', message: 'Group research created' },
      },
    },
  ],
  grpc: { service: 'AdminService', method: 'CreateGroup' },
  playground: {
    hints: { name: { placeholder: 'research-team' }, description: { placeholder: 'Optional: what the group is for' } },
  },
});
