import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const restoreSnapshot = defineOperation({
  id: 'restore-snapshot',
  name: 'Restore Snapshot',
  category: 'snapshots',
  summary: 'Restore a stored snapshot into this running node: a tenant’s data, or a whole node into an empty one',
  description:
    'Tenant admins restore their own tenant’s snapshots: the tenant’s documents, chunks, vectors, access entries, collections and engagement are replaced by the snapshot’s in short transactions of about 40 ms each (at most RESTORE_SLICE_ROWS rows), and every other tenant is untouched and keeps answering; meanwhile the tenant’s own data requests answer 503 `TENANT_RESTORING`. Users, groups and API keys are not part of a tenant snapshot and stay as they are. The super admin restores any tenant snapshot, or a whole-node snapshot into a node that holds no tenant or document yet (else 409 `SNAPSHOT_NODE_NOT_EMPTY`). Every file of the snapshot is checked against its manifest’s size and SHA-256 before anything changes: a damaged snapshot is refused with 400 `SNAPSHOT_CORRUPT` and nothing is restored. The answer is a job whose progress counts the uploaded files put back, then the rows; the restored HNSW index files are loaded as they are (sequence numbers are kept), and the text and geo indexes are rebuilt from the restored rows. The restore first waits for the tenant’s requests and background writes under way, at most RESTORE_DRAIN_TIMEOUT_MS: then the job fails with `RESTORE_DRAIN_TIMEOUT`, naming them, and nothing changed. A restore that fails part way is tried again; if it still fails, the job fails with `RESTORE_INTERRUPTED` and the tenant answers 503 until it is restored again (which finishes it) or the server restarts.',
  http: { method: 'POST', path: '/api/v1/snapshots/restore', aliases: [] },
  access: 'admin',
  longRunning: true,
  body: Type.Object(
    {
      snapshot_id: Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'A stored snapshot (GET /api/v1/snapshots): its archive is read from the snapshot store.',
      }),
    },
    { additionalProperties: false },
  ),
  success: {
    status: 202,
    schema: Type.Object({
      success: Type.Literal(true),
      snapshot_id: Type.String(),
      scope: Type.Union([Type.Literal('node'), Type.Literal('tenant')]),
      tenants: Type.Array(Type.String(), { description: 'The tenants whose data the restore replaces.' }),
      job_id: Type.String(),
      message: Type.String(),
    }),
    description: 'The snapshot was checked and is being restored; its job shows the progress.',
  },
  errors: [
    'NOT_FOUND',
    'SNAPSHOT_CORRUPT',
    'SNAPSHOT_NOT_RESTORABLE',
    'SNAPSHOT_NODE_NOT_EMPTY',
    'STORAGE_UNAVAILABLE',
  ],
  examples: [
    {
      summary: 'Restore a tenant snapshot',
      body: { snapshot_id: 'snap-20261123T230501Z-1a2b3c4d' },
      response: {
        status: 202,
        body: {
          success: true,
          snapshot_id: 'snap-20261123T230501Z-1a2b3c4d',
          scope: 'tenant',
          tenants: ['6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70'],
          job_id: 'job-5f2c',
          message: 'Snapshot checked; restoring',
        },
      },
    },
  ],
  playground: { hints: { snapshot_id: { placeholder: 'snap-20261123T230501Z-1a2b3c4d' } } },
});
