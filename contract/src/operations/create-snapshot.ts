import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const createSnapshot = defineOperation({
  id: 'create-snapshot',
  name: 'Create Snapshot',
  category: 'snapshots',
  summary: 'Take a consistent snapshot of the whole node while it keeps serving writes',
  description:
    'Super admin only. Copies the database (SQLite online backup) and the vector index files as of one point, with a manifest of sizes, SHA-256 checksums and the last included write, into one tar archive kept under DATA_DIR/snapshots or in the S3 bucket’s `snapshots/` area. Writes go on meanwhile; those after the point are not included. Answers at once with a job: poll GET /api/v1/jobs/{id}, then list the snapshots. Restore one with `godb restore <file>` (`npm run restore -- <file>`) into an empty DATA_DIR before start.',
  http: { method: 'POST', path: '/api/v1/snapshots', aliases: [] },
  access: 'superadmin',
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
  errors: ['STORAGE_UNAVAILABLE'],
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
