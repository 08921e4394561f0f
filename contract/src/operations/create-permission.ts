import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const createPermission = defineOperation({
  id: 'create-permission',
  name: 'Create Permission',
  category: 'auth',
  summary: 'Define a permission (resource, action)',
  description: 'Super admin only. Permissions are server-wide; tenant admins grant them to their groups.',
  http: { method: 'POST', path: '/auth/permissions', aliases: ['/api/v1/auth/permissions'] },
  access: 'superadmin',
  body: Type.Object(
    {
      resource: Type.String({ minLength: 1, maxLength: 128 }),
      action: Type.String({ minLength: 1, maxLength: 64 }),
      description: Type.String({ maxLength: 1024, default: '' }),
    },
    { additionalProperties: false },
  ),
  success: {
    status: 201,
    schema: Type.Object({ permission_id: Type.String(), message: Type.String() }),
    description: 'The permission was created.',
  },
  errors: ['PERMISSION_EXISTS'],
  examples: [
    {
      summary: 'Allow reading documents',
      body: { resource: 'documents', action: 'read', description: 'Read documents' },
      response: {
        status: 201,
        body: { permission_id: '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', message: 'Permission created' },
      },
    },
  ],
  playground: {
    hints: {
      resource: { placeholder: 'documents' },
      action: { placeholder: 'read' },
      description: { placeholder: 'Optional: what the permission allows' },
    },
  },
});
