import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { SuccessMessage, Uuid } from '../schemas/common.js';

export const deleteUser = defineOperation({
  id: 'delete-user',
  name: 'Delete User',
  category: 'auth',
  summary: 'Delete a user of your tenant',
  description: 'Admin only. The last admin of a tenant cannot be deleted. Tokens of a deleted user stop working.',
  http: { method: 'DELETE', path: '/auth/users/{userID}', aliases: ['/api/v1/auth/users/{userID}'] },
  access: 'admin',
  params: Type.Object({ userID: Uuid }),
  success: { status: 200, schema: SuccessMessage, description: 'The user was deleted.' },
  errors: ['NOT_FOUND', 'LAST_ADMIN'],
  examples: [
    {
      summary: 'Delete a user',
      params: { userID: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b' },
      response: { status: 200, body: { success: true, message: 'User deleted' } },
    },
  ],
});
