import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const downloadSnapshot = defineOperation({
  id: 'download-snapshot',
  name: 'Download Snapshot',
  category: 'snapshots',
  summary: 'The archive of a snapshot',
  description:
    'Streams the snapshot’s tar archive (`manifest.json` first, then the database or the tenant’s rows, index files and uploaded files), as `godb restore <file>` and POST /api/v1/snapshots/restore read it. Tenant admins download their tenant’s snapshots (another’s is not found); the super admin any.',
  http: { method: 'GET', path: '/api/v1/snapshots/{id}', aliases: [] },
  access: 'admin',
  params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'A snapshot id.' }) }),
  success: {
    status: 200,
    schema: Type.Unknown({ description: 'The tar archive, as an attachment named `<id>.tar`.' }),
    description: 'The archive.',
  },
  errors: ['NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  examples: [
    {
      summary: 'Download a snapshot',
      params: { id: 'snap-20261123T230501Z-1a2b3c4d' },
      response: { status: 200, body: '(binary)' },
    },
  ],
});
