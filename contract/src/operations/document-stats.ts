import { defineOperation } from '../define-operation.js';
import { DocumentStats } from '../schemas/document.js';

export const documentStats = defineOperation({
  id: 'document-stats',
  name: 'Document Stats',
  category: 'documents',
  summary: 'Counts for your tenant',
  description:
    'Documents, vectors, located documents, k-means clusters (after a recluster) and the mean vector dimension.',
  http: { method: 'GET', path: '/api/v1/documents/stats', aliases: ['/documents/stats'] },
  access: 'user',
  success: { status: 200, schema: DocumentStats, description: 'The statistics.' },
  errors: [],
  examples: [
    {
      summary: 'Stats',
      response: {
        status: 200,
        body: { DocumentCount: 1400, VectorCount: 2950, GeoCount: 0, ClusterCount: 16, AvgVectorDim: 512 },
      },
    },
  ],
});
