import { defineOperation } from '../define-operation.js';
import { PathId, SuccessMessage } from '../schemas/common.js';
import { AclUpdate } from '../schemas/document.js';

export const updateAcl = defineOperation({
  id: 'update-acl',
  name: 'Update ACL',
  category: 'documents',
  summary: 'Add, update or remove ACL entries',
  description:
    'Owners only (403 "only owners can modify ACL" otherwise). Entries are {user_id, role: owner|edit|view, expires_at}; expired entries stop counting. Removing the last owner answers 400.',
  http: { method: 'PUT', path: '/api/v1/documents/{id}/acl', aliases: ['/documents/{id}/acl'] },
  access: 'user',
  params: PathId,
  body: AclUpdate,
  success: { status: 200, schema: SuccessMessage, description: 'The ACL was changed.' },
  errors: ['NOT_FOUND', 'INVALID_ACL', 'ACL_OWNER_REQUIRED', 'LAST_OWNER', 'ACCESS_CHANGED'],
  examples: [
    {
      summary: 'Give a colleague edit rights',
      params: { id: 'doc-hnsw-101' },
      body: { operation: 'add', acl: [{ user_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f', role: 'edit' }] },
      response: { status: 200, body: { success: true, message: 'ACL updated' } },
    },
  ],
  playground: {
    hints: { acl: { kind: 'textarea', placeholder: '[{"user_id": "…", "role": "edit", "expires_at": 1767225600}]' } },
  },
});
