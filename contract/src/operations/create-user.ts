import { defineOperation } from '../define-operation.js';
import { CreatedUser, NewMember } from '../schemas/auth.js';

export const createUser = defineOperation({
  id: 'create-user',
  name: 'Add User',
  category: 'auth',
  summary: 'Add a member to your tenant',
  description:
    'Tenant admins add members to their own tenant, with the role `user` (default) or `admin`. The new member logs in with the e-mail and password given here. E-mail addresses are unique across the server.',
  http: { method: 'POST', path: '/auth/users', aliases: ['/api/v1/auth/users'] },
  access: 'admin',
  body: NewMember,
  success: { status: 201, schema: CreatedUser, description: 'The member was created in the caller’s tenant.' },
  errors: ['EMAIL_EXISTS'],
  examples: [
    {
      summary: 'Add a colleague',
      body: { email: 'grace@example.com', password: 'another long secret', role: 'user' },
      response: {
        status: 201,
        body: {
          success: true,
          message: 'User created',
          user_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
          tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
          role: 'user',
        },
      },
    },
  ],
  playground: {
    hints: {
      email: { placeholder: 'colleague@example.com' },
      password: { placeholder: 'At least 8 characters' },
      role: { kind: 'select', options: ['user', 'admin'], default: 'user' },
    },
  },
});
