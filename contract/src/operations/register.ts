import { defineOperation } from '../define-operation.js';
import { CreatedUser, NothingRegistered, RegisterBody } from '../schemas/auth.js';

/** What register answers without a tenant_id. */
export const nothingRegistered =
  'Nothing registered: registering creates a new tenant and needs a tenant_id (a new UUID). To join an existing tenant, ask its admin to add you.';

export const register = defineOperation({
  id: 'register',
  name: 'Register',
  category: 'auth',
  summary: 'Create a tenant and its first user',
  description:
    "Creates the tenant `tenant_id` and a user in it. The first user of a tenant is its admin. E-mail addresses are unique across the server; registering an existing e-mail or tenant answers 409. Without `tenant_id` nothing is created (200, `success: false`): the website's login form makes this call first, so a mistyped e-mail never becomes a new tenant. To join an existing tenant, its admin adds you with `POST /auth/users`.",
  http: { method: 'POST', path: '/auth/register', aliases: ['/api/v1/auth/register'] },
  access: 'public',
  body: RegisterBody,
  success: { status: 201, schema: CreatedUser, description: 'The user and tenant were created.' },
  alternatives: [{ status: 200, schema: NothingRegistered, description: 'No tenant_id: nothing was created.' }],
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
    {
      summary: 'Without a tenant id nothing is created',
      body: { email: 'ada@example.com', password: 'correct horse battery' },
      response: { status: 200, body: { success: false, message: nothingRegistered } },
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
