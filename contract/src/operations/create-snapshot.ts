import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const createSnapshot = defineOperation({
  id: 'create-snapshot',
  name: 'Create Snapshot',
  category: 'snapshots',
  summary: 'Take a consistent snapshot of the whole node, or of your tenant, while writes go on',
  description:
    'Super admin: the whole node. Copies the database (SQLite online backup) and the vector index files as of one point, with a manifest of sizes, SHA-256 checksums and the last included write, into one tar archive kept under DATA_DIR/snapshots or in the S3 bucket’s `snapshots/` area; restore one with `godb restore <file | id | s3://bucket/key>` into an empty DATA_DIR before start, or with POST /api/v1/snapshots/restore into an empty running node. Tenant admin: your tenant only — its documents, chunks, vectors, access entries, collections and engagement as of one point (`tenant.sqlite`), its HNSW index files and its uploaded files; text and geo indexes are rebuilt from the rows at restore, and users, groups and API keys are not included. Writes go on meanwhile; those after the point are not included. Answers at once with a job: poll GET /api/v1/jobs/{id}, then list the snapshots.',
  http: { method: 'POST', path: '/api/v1/snapshots', aliases: [] },
  access: 'admin',
  success: {
    status: 202,
    schema: Type.Object({
      success: Type.Literal(true),
      snapshot_id: Type.String(),
      job_id: Type.String(),
      message: Type.String(),
    }),
    description: 'The snapshot is being taken; its job shows the progress.',
  },
  errors: ['STORAGE_UNAVAILABLE', 'TENANT_RESTORING'],
  examples: [
    {
      summary: 'Snapshot the node',
      response: {
        status: 202,
        body: {
          success: true,
          snapshot_id: 'snap-20261123T230501Z-1a2b3c4d',
          job_id: 'job-5f2c',
          message: 'Snapshot started',
        },
      },
    },
  ],
});
