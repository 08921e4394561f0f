import { defineOperation } from '../define-operation.js';
import { CreatedUser, Credentials } from '../schemas/auth.js';

export const register = defineOperation({
  id: 'register',
  name: 'Register',
  category: 'auth',
  summary: 'Create a tenant and its first user',
  description:
    'Creates the tenant `tenant_id` and a user in it. The first user of a tenant is its admin. E-mail addresses are unique across the server; registering an existing e-mail or tenant answers 409.',
  http: { method: 'POST', path: '/auth/register', aliases: ['/api/v1/auth/register'] },
  access: 'public',
  body: Credentials,
  success: { status: 201, schema: CreatedUser, description: 'The user and tenant were created.' },
  errors: ['EMAIL_EXISTS', 'TENANT_EXISTS'],
  examples: [
    {
      summary: 'Register a new tenant',
      body: {
        email: 'ada@example.com',
        password: 'correct horse battery',
        tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
      },
      response: {
        status: 201,
        body: {
          success: true,
          message: 'User registered',
          user_id: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b',
          tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
          role: 'admin',
        },
      },
    },
  ],
  playground: {
    hints: {
      email: { placeholder: 'you@example.com' },
      password: { placeholder: 'At least 8 characters' },
      tenant_id: { placeholder: 'A new UUID, e.g. 6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70' },
    },
  },
});
