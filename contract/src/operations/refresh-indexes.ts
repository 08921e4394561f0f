import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';

export const refreshIndexes = defineOperation({
  id: 'refresh-indexes',
  name: 'Refresh Indexes',
  category: 'indexes',
  summary: 'Rebuild and compact your tenant’s derived indexes',
  description:
    'Admin only. Rebuilds the text, geo and vector indexes from the stored documents and reports what it did.',
  http: { method: 'POST', path: '/api/v1/indexes/refresh', aliases: ['/indexes/refresh'] },
  access: 'admin',
  longRunning: true,
  success: {
    status: 200,
    schema: Type.Object({
      success: Type.Literal(true),
      documents: Type.Integer(),
      vectors: Type.Integer(),
      took_ms: Type.Number(),
      message: Type.String(),
    }),
    description: 'What was rebuilt and how long it took.',
  },
  errors: [],
  examples: [
    {
      summary: 'Refresh',
      response: {
        status: 200,
        body: { success: true, documents: 1400, vectors: 2950, took_ms: 812.5, message: 'Indexes rebuilt' },
      },
    },
  ],
});
