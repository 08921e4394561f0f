import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { SuccessMessage, Uuid } from '../schemas/common.js';

export const addGroupUser = defineOperation({
  id: 'add-group-user',
  name: 'Add User to Group',
  category: 'auth',
  summary: 'Add a user of your tenant to a group',
  description: 'Admin only. Adding a member twice is harmless. The user’s next token carries the group.',
  http: { method: 'POST', path: '/auth/groups/{groupID}/users', aliases: ['/api/v1/auth/groups/{groupID}/users'] },
  access: 'admin',
  params: Type.Object({ groupID: Uuid }),
  body: Type.Object({ user_id: Uuid }, { additionalProperties: false }),
  success: { status: 200, schema: SuccessMessage, description: 'The user is a member.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Add a member',
      params: { groupID: '3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' },
      body: { user_id: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b' },
      response: { status: 200, body: { success: true, message: 'User added to group' } },
    },
  ],
});
