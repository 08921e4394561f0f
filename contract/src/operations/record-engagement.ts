import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { PathId } from '../schemas/common.js';
import { Engagement } from '../schemas/document.js';

export const recordEngagement = defineOperation({
  id: 'record-engagement',
  name: 'Track Engagement',
  category: 'documents',
  summary: 'Record engagement (the playground form)',
  description: 'Same as PATCH: the playground sends only the non-empty fields, numbers as numbers.',
  http: { method: 'POST', path: '/api/v1/documents/{id}/engagement', aliases: ['/documents/{id}/engagement'] },
  access: 'user',
  params: PathId,
  body: Engagement,
  success: {
    status: 200,
    schema: Type.Object({ success: Type.Literal(true), updated_fields: Type.Array(Type.String()) }),
    description: 'The engagement was recorded.',
  },
  errors: ['NOT_FOUND', 'INVALID_FEEDBACK_JSON'],
  examples: [
    {
      summary: 'A view with dwell time',
      params: { id: 'doc-hnsw-101' },
      body: { views: 1, dwell_time: 42 },
      response: { status: 200, body: { success: true, updated_fields: ['views', 'dwell_time'] } },
    },
  ],
  playground: {
    hints: {
      feedback: { kind: 'textarea', placeholder: '{"rating": 5, "comment": "useful"}' },
      last_engaged: { kind: 'text', placeholder: '2025-06-01T12:00:00Z (converted to Unix seconds)' },
    },
  },
});
