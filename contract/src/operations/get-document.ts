import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { PathId } from '../schemas/common.js';
import { GetDocumentQuery, StoredDocument } from '../schemas/document.js';

export const getDocument = defineOperation({
  id: 'get-document',
  name: 'Get Document',
  category: 'documents',
  summary: 'Read a document',
  description:
    'Answers the document if you may see it (see access control), else 404. Flags add embeddings, chunks, metadata, the ACL (owners only) and statistics.',
  http: { method: 'GET', path: '/api/v1/documents/{id}', aliases: ['/documents/{id}'] },
  access: 'user',
  params: PathId,
  query: GetDocumentQuery,
  success: { status: 200, schema: Type.Object({ document: StoredDocument }), description: 'The document.' },
  errors: ['NOT_FOUND'],
  examples: [
    {
      summary: 'Read with chunks',
      params: { id: 'doc-hnsw-101' },
      query: { include_chunks: true },
      response: {
        status: 200,
        body: {
          document: {
            id: 'doc-hnsw-101',
            tenant_id: '6f1c2a3e-8b4d-4c1e-9f7a-2d3b4c5e6f70',
            title: 'HNSW in practice',
            content:
              'Hierarchical navigable small world graphs give logarithmic-time approximate nearest neighbour search.',
            visibility: 'public',
            lang_code: 'en',
            is_chunk: false,
            is_parent: true,
            is_child: false,
            version: 1,
            needs_refresh: false,
            is_dirty: false,
            chunks: [],
          },
        },
      },
    },
  ],
});
