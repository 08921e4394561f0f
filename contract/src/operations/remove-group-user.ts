import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { SuccessMessage, Uuid } from '../schemas/common.js';

export const removeGroupUser = defineOperation({
  id: 'remove-group-user',
  name: 'Remove User from Group',
  category: 'auth',
  summary: 'Remove a user from a group',
  description: 'Admin only. Answers 404 when the user is not a member.',
  http: {
    method: 'DELETE',
    path: '/auth/groups/{groupID}/users/{userID}',
    aliases: ['/api/v1/auth/groups/{groupID}/users/{userID}'],
  },
  access: 'admin',
  params: Type.Object({ groupID: Uuid, userID: Uuid }),
  success: { status: 200, schema: SuccessMessage, description: 'The user is no longer a member.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Remove a member',
      params: { groupID: '3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', userID: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b' },
      response: { status: 200, body: { success: true, message: 'User removed from group' } },
    },
  ],
});
