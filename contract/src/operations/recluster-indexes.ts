import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const reclusterIndexes = defineOperation({
  id: 'recluster-indexes',
  name: 'Recluster Indexes',
  category: 'indexes',
  summary: 'Run k-means over your tenant’s vectors',
  description: 'Admin only. Stores each document’s cluster; ClusterCount in the stats reflects it.',
  http: { method: 'POST', path: '/api/v1/indexes/recluster', aliases: ['/indexes/recluster'] },
  access: 'admin',
  longRunning: true,
  success: {
    status: 200,
    schema: Type.Object({
      success: Type.Literal(true),
      clusters: Type.Integer(),
      vectors: Type.Integer(),
      took_ms: Type.Number(),
      message: Type.String(),
    }),
    description: 'How many clusters were formed.',
  },
  errors: [],
  examples: [
    {
      summary: 'Recluster',
      response: {
        status: 200,
        body: { success: true, clusters: 16, vectors: 2950, took_ms: 950.2, message: 'Reclustered' },
      },
    },
  ],
});
