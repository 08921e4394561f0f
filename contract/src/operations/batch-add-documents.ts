import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { DocumentInput } from '../schemas/document.js';

export const batchAddDocuments = defineOperation({
  id: 'batch-add-documents',
  name: 'Batch Add Documents',
  category: 'documents',
  summary: 'Store many documents at once, all or nothing',
  description:
    'An array of documents. One invalid item answers 400 naming its index and field, and nothing is written. Add `?async=true` for large imports: the answer is 202 with a job id whose progress `GET /api/v1/jobs/{id}` reports.',
  http: { method: 'POST', path: '/api/v1/documents/batch', aliases: ['/documents/batch'] },
  access: 'user',
  query: Type.Object({ async: Type.Boolean({ default: false }) }, { additionalProperties: false }),
  body: Type.Array(DocumentInput, { minItems: 1, maxItems: 100000, description: 'An array of documents.' }),
  success: {
    status: 200,
    schema: Type.Object({
      success: Type.Literal(true),
      count: Type.Integer(),
      document_ids: Type.Array(Type.String()),
    }),
    description: 'Every document was stored.',
  },
  alternatives: [
    {
      status: 202,
      schema: Type.Object({ success: Type.Literal(true), count: Type.Integer(), job_id: Type.String() }),
      description: 'async=true: every document is valid and the import continues in the background; poll the job.',
    },
  ],
  longRunning: true,
  errors: ['STORAGE_UNAVAILABLE', 'ACCESS_CHANGED'],
  examples: [
    {
      summary: 'Two documents',
      body: [
        { id: 'a1', title: 'First', content: 'Vector databases store embeddings.' },
        { id: 'a2', title: 'Second', content: 'BM25 ranks documents by term statistics.' },
      ],
      response: { status: 200, body: { success: true, count: 2, document_ids: ['a1', 'a2'] } },
    },
  ],
  playground: {
    hints: {
      body: {
        placeholder: '[{"title": "First", "content": "Vector databases store embeddings."}]',
        label: 'Documents (JSON array)',
      },
    },
  },
});
