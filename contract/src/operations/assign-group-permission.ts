import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { SuccessMessage, Uuid } from '../schemas/common.js';

export const assignGroupPermission = defineOperation({
  id: 'assign-group-permission',
  name: 'Assign Permission to Group',
  category: 'auth',
  summary: 'Grant a permission to a group of your tenant',
  description: 'Admin only. Granting the same permission twice is harmless.',
  http: {
    method: 'POST',
    path: '/auth/groups/{groupID}/permissions',
    aliases: ['/api/v1/auth/groups/{groupID}/permissions'],
  },
  access: 'admin',
  params: Type.Object({ groupID: Uuid }),
  body: Type.Object({ permission_id: Uuid }, { additionalProperties: false }),
  success: { status: 200, schema: SuccessMessage, description: 'The group holds the permission.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Grant a permission',
      params: { groupID: '3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' },
      body: { permission_id: '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d' },
      response: { status: 200, body: { success: true, message: 'Permission granted to group' } },
    },
  ],
});
