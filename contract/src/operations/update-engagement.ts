import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { PathId } from '../schemas/common.js';
import { Engagement } from '../schemas/document.js';

export const updateEngagement = defineOperation({
  id: 'update-engagement',
  name: 'Update Engagement',
  category: 'documents',
  summary: 'Record engagement with a document',
  description:
    'Counters (clicks, likes, dislikes, views, engagements, shares, bookmarks, comments, dwell_time) are added to the stored totals; scores (completion, quality_score, relevance_score, sentiment_score, unique_users, last_engaged) are set. Each call is also kept as an event with your user id, which recommendations learn from.',
  http: { method: 'PATCH', path: '/api/v1/documents/{id}/engagement', aliases: ['/documents/{id}/engagement'] },
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
      summary: 'A click and a like',
      params: { id: 'doc-hnsw-101' },
      body: { clicks: 1, likes: 1 },
      response: { status: 200, body: { success: true, updated_fields: ['clicks', 'likes'] } },
    },
  ],
});
