import { defineOperation } from '../define-operation.js';
import { Type } from '@sinclair/typebox';
import { SuccessMessage } from '../schemas/common.js';

export const deleteSnapshot = defineOperation({
  id: 'delete-snapshot',
  name: 'Delete Snapshot',
  category: 'snapshots',
  summary: 'Remove a snapshot',
  description:
    'Deletes the snapshot’s archive and manifest from the snapshot store. Tenant admins delete their tenant’s snapshots (another’s is not found); the super admin any.',
  http: { method: 'DELETE', path: '/api/v1/snapshots/{id}', aliases: [] },
  access: 'admin',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'A snapshot id.' }) }),
  success: { status: 200, schema: SuccessMessage, description: 'The snapshot was removed.' },
  errors: ['NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  examples: [
    {
      summary: 'Delete a snapshot',
      params: { id: 'snap-20261123T230501Z-1a2b3c4d' },
      response: { status: 200, body: { success: true, message: 'Snapshot deleted' } },
    },
  ],
});
