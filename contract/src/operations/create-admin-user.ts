import { defineOperation } from '../define-operation.js';
import { CreatedUser, Credentials } from '../schemas/auth.js';

export const createAdminUser = defineOperation({
  id: 'create-admin-user',
  name: 'Create Admin User',
  category: 'auth',
  summary: 'Create an admin user in any tenant',
  description: 'Super admin only. Creates the tenant when it does not exist yet.',
  http: { method: 'POST', path: '/auth/admin/users', aliases: ['/api/v1/auth/admin/users'] },
  access: 'superadmin',
  body: Credentials,
  success: { status: 201, schema: CreatedUser, description: 'The admin was created.' },
  errors: ['EMAIL_EXISTS'],
  examples: [
    {
      summary: 'Create an admin',
      body: {
        email: 'grace@example.com',
        password: 'another long secret',
        tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
      },
      response: {
        status: 201,
        body: {
          success: true,
          message: 'Admin user created',
          user_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
          tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
          role: 'admin',
        },
      },
    },
  ],
});
