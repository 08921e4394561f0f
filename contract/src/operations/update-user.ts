import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { Email, User } from '../schemas/auth.js';
import { Uuid } from '../schemas/common.js';
import { exampleUser } from './get-user.js';

export const updateUser = defineOperation({
  id: 'update-user',
  name: 'Update User',
  category: 'auth',
  summary: 'Change a user’s e-mail, role or groups',
  description:
    'Admin only. Every field is optional; `groups` replaces the user’s memberships with the listed group ids of your tenant.',
  http: { method: 'PUT', path: '/auth/users/{userID}', aliases: ['/api/v1/auth/users/{userID}'] },
  access: 'admin',
  params: Type.Object({ userID: Uuid }),
  body: Type.Object(
    {
      email: Type.Optional(Email),
      role: Type.Optional(Type.String({ maxLength: 64, description: 'The new role: user, admin or superadmin.' })),
      groups: Type.Optional(Type.Array(Uuid, { maxItems: 1000 })),
    },
    { additionalProperties: false },
  ),
  success: {
    status: 200,
    schema: Type.Object({ success: Type.Literal(true), user: User }),
    description: 'The updated user.',
  },
  errors: ['NOT_FOUND', 'EMAIL_EXISTS', 'INVALID_ROLE', 'LAST_ADMIN'],
  examples: [
    {
      summary: 'Move a user into a group',
      params: { userID: exampleUser.id },
      body: { groups: ['3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] },
      response: { status: 200, body: { success: true, user: exampleUser } },
    },
  ],
  playground: {
    hints: {
      groups: { placeholder: 'Group ids, comma separated' },
      role: { kind: 'select', options: ['user', 'admin', 'superadmin'] },
    },
  },
});
