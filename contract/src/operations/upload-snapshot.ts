import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const uploadSnapshot = defineOperation({
  id: 'upload-snapshot',
  name: 'Upload Snapshot',
  category: 'snapshots',
  summary: 'Store a snapshot archive taken elsewhere, so it can be restored here',
  description:
    'The body is a snapshot’s tar archive as GET /api/v1/snapshots/{id} gave it (`Content-Type: application/x-tar`), streamed to disk as it arrives (IMPORT_BODY_LIMIT_BYTES bounds it, not the 10 MiB body limit). Every file is checked against the manifest’s sizes and SHA-256 checksums before it is stored: a damaged archive is refused with 400 `SNAPSHOT_CORRUPT` and nothing is kept. Tenant admins upload only their own tenant’s snapshots; the super admin any. The snapshot keeps its id; restore it with POST /api/v1/snapshots/restore. The HNSW index files of an archive a tenant admin uploaded are not trusted: its restore rebuilds the vector indexes from the rows.',
  http: { method: 'POST', path: '/api/v1/snapshots/upload', aliases: [] },
  access: 'admin',
  longRunning: true,
  binary: {
    contentType: 'application/x-tar',
    description: 'A snapshot archive (tar: `manifest.json` first), as downloaded.',
  },
  success: {
    status: 201,
    schema: Type.Object({
      success: Type.Literal(true),
      snapshot_id: Type.String(),
      scope: Type.Union([Type.Literal('node'), Type.Literal('tenant')]),
      tenant_id: Type.Optional(Type.String()),
      bytes: Type.Integer({ description: 'Sum of the sizes of the snapshot’s files.' }),
    }),
    description: 'The archive was checked and stored under its id.',
  },
  errors: ['SNAPSHOT_CORRUPT', 'SNAPSHOT_NOT_RESTORABLE', 'STORAGE_UNAVAILABLE'],
  examples: [
    {
      summary: 'Upload a tenant snapshot (the answer; the body is the tar archive)',
      response: {
        status: 201,
        body: {
          success: true,
          snapshot_id: 'snap-20261123T230501Z-1a2b3c4d',
          scope: 'tenant',
          tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
          bytes: 10485760,
        },
      },
    },
  ],
  playground: {
    extraFields: [
      {
        name: 'file',
        kind: 'file',
        accept: '.tar,application/x-tar',
        placeholder: 'A snapshot .tar',
        description: 'A snapshot archive as GET /api/v1/snapshots/{id} downloads it, sent as it is.',
        label: 'Snapshot archive',
        sends: 'body',
        required: true,
        requiredMessage: 'Choose a snapshot archive (.tar) to upload',
      },
    ],
  },
});
