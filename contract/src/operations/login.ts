import { defineOperation } from '../define-operation.js';
import { LoginBody, TokenResponse } from '../schemas/auth.js';

export const login = defineOperation({
  id: 'login',
  name: 'Login',
  category: 'auth',
  summary: 'Exchange e-mail and password for a bearer token',
  description:
    'Answers a JWT (HS256) carrying the user id, tenant id, role and groups. Send it as `Authorization: Bearer <token>` on every other call. `tenant_id` is optional; when given it must be the user’s tenant. Wrong credentials answer 401 without saying which part was wrong; repeated failures answer 429 with Retry-After.',
  http: { method: 'POST', path: '/auth/login', aliases: ['/api/v1/auth/login'] },
  access: 'public',
  body: LoginBody,
  success: { status: 200, schema: TokenResponse, description: 'The token and the signed-in user.' },
  errors: ['INVALID_CREDENTIALS', 'LOGIN_THROTTLED'],
  examples: [
    {
      summary: 'Log in',
      body: { email: 'ada@example.com', password: 'correct horse battery' },
      response: {
        status: 200,
        body: {
          token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIwYjdlOWM1MiJ9.c2lnbmF0dXJl',
          token_type: 'Bearer',
          expires_at: 1767312000,
          user: {
            id: '0b7e9c52-1d3f-4a8e-b2c4-5d6e7f809a1b',
            email: 'ada@example.com',
            tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
            role: 'admin',
            groups: [],
            created_at: 1767225600,
            updated_at: 1767225600,
          },
        },
      },
    },
  ],
  playground: { hints: { email: { placeholder: 'you@example.com' }, password: { placeholder: 'Your password' } } },
});
