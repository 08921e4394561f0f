import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { CountDocumentsRequest } from '../schemas/document-scan.js';

export const countDocuments = defineOperation({
  id: 'count-documents',
  name: 'Count Documents',
  category: 'documents',
  summary: 'Count the documents matching a filter',
  description:
    'Counts the live documents you may read in a collection (or all of them) that match `filter`, in the filter grammar every search uses.',
  http: { method: 'POST', path: '/api/v1/documents/count', aliases: ['/documents/count'] },
  access: 'user',
  body: CountDocumentsRequest,
  success: { status: 200, schema: Type.Object({ count: Type.Integer() }), description: 'The count.' },
  errors: ['INVALID_FILTERS_JSON'],
  examples: [
    {
      summary: 'Products in stock under 50',
      body: {
        primary_table: 'products',
        filter: {
          must: [
            { field: 'metadata.price', operator: 'lt', value: 50 },
            { field: 'metadata.stock.available', operator: 'eq', value: true },
          ],
        },
      },
      response: { status: 200, body: { count: 42 } },
    },
  ],
  playground: {
    hints: {
      primary_table: { placeholder: 'Optional: products' },
      filter: {
        kind: 'textarea',
        placeholder: '{"must": [{"field": "metadata.price", "operator": "lt", "value": 50}]}',
      },
    },
  },
});
