import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

const SnapshotSummary = Type.Object({
  id: Type.String(),
  scope: Type.Union([Type.Literal('node'), Type.Literal('tenant')], {
    description: 'A whole-node snapshot, or one tenant’s.',
  }),
  tenant_id: Type.Optional(Type.String({ description: 'The tenant of a tenant snapshot.' })),
  created_at: Type.Integer({ description: 'Unix seconds of the snapshot’s consistent point.' }),
  last_write_seq: Type.Integer({ description: 'The last document write included (its version sequence).' }),
  schema_version: Type.Integer(),
  bytes: Type.Integer(),
  files: Type.Array(Type.Object({ path: Type.String(), size: Type.Integer(), sha256: Type.String() })),
});

export const listSnapshots = defineOperation({
  id: 'list-snapshots',
  name: 'List Snapshots',
  category: 'snapshots',
  summary: 'The finished snapshots of the node, newest first',
  description:
    'Tenant admins see their tenant’s snapshots; the super admin sees every snapshot in the snapshot store (DATA_DIR/snapshots, or the S3 bucket shared by the servers), whole-node and tenant ones, with its manifest.',
  http: { method: 'GET', path: '/api/v1/snapshots', aliases: [] },
  access: 'admin',
  success: {
    status: 200,
    schema: Type.Object({ snapshots: Type.Array(SnapshotSummary) }),
    description: 'The snapshots.',
  },
  errors: ['STORAGE_UNAVAILABLE'],
  examples: [
    {
      summary: 'One snapshot',
      response: {
        status: 200,
        body: {
          snapshots: [
            {
              id: 'snap-20261123T230501Z-1a2b3c4d',
              scope: 'node',
              created_at: 1795474301,
              last_write_seq: 5012,
              schema_version: 8,
              bytes: 10485760,
              files: [{ path: 'godb.sqlite', size: 10485760, sha256: 'e3b0c442…' }],
            },
          ],
        },
      },
    },
  ],
});
