import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { inputLimits } from '../schemas/common.js';
import { User } from '../schemas/auth.js';
import { exampleUser } from './get-user.js';

export const listUsers = defineOperation({
  id: 'list-users',
  name: 'List Users',
  category: 'auth',
  summary: 'Page through the users of your tenant',
  description: 'Admin only. Ordered by creation time. `total` counts every user of the tenant.',
  http: { method: 'GET', path: '/auth/users', aliases: ['/api/v1/auth/users'] },
  access: 'admin',
  query: Type.Object(
    {
      offset: Type.Integer({ minimum: 0, maximum: inputLimits.count, default: 0 }),
      limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
    },
    { additionalProperties: false },
  ),
  success: {
    status: 200,
    schema: Type.Object({ users: Type.Array(User), total: Type.Integer() }),
    description: 'A page of users.',
  },
  errors: [],
  examples: [
    {
      summary: 'First page',
      query: { offset: 0, limit: 50 },
      response: { status: 200, body: { users: [exampleUser], total: 1 } },
    },
  ],
  playground: {
    hints: {
      offset: { placeholder: 'Users to skip, e.g. 50 for the second page' },
      limit: { placeholder: 'Users per page, 1 to 500' },
    },
  },
});
