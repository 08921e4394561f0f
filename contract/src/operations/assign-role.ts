import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { Uuid, SuccessMessage } from '../schemas/common.js';

export const assignRole = defineOperation({
  id: 'assign-role',
  name: 'Assign Role',
  category: 'auth',
  summary: 'Give a user of your tenant a role',
  description:
    'Admin only. `role_id` is a role name: `user` or `admin` (only the super admin can grant `superadmin`). Demoting the last admin of a tenant is refused.',
  http: { method: 'POST', path: '/auth/role/assign', aliases: ['/api/v1/auth/role/assign'] },
  access: 'admin',
  body: Type.Object(
    {
      user_id: Uuid,
      role_id: Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'The role to give: user, admin or superadmin.',
      }),
    },
    { additionalProperties: false },
  ),
  success: { status: 200, schema: SuccessMessage, description: 'The role was assigned.' },
  errors: ['NOT_FOUND', 'INVALID_ROLE', 'LAST_ADMIN'],
  examples: [
    {
      summary: 'Make a user admin',
      body: { user_id: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b', role_id: 'admin' },
      response: {
        status: 200,
        body: { success: true, message: 'Role admin assigned to user 0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b' },
      },
    },
  ],
  playground: { hints: { role_id: { kind: 'select', options: ['user', 'admin', 'superadmin'], default: 'user' } } },
});
