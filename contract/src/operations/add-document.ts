import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { DocumentInput } from '../schemas/document.js';

export const addDocument = defineOperation({
  id: 'add-document',
  name: 'Add Document',
  category: 'documents',
  summary: 'Store a document, chunk it and index it',
  description:
    'Stores the document in your tenant, splits its content into chunks (`chunk_size`, `chunk_overlap`), embeds each chunk with `embedding_options` and indexes text, vectors and location in the same write. The id is generated when absent; adding an existing id creates a new version. The caller becomes the document’s owner. With `?async=true` (large texts: embedding 1 MB takes seconds) the document is validated and chunked first, then the answer is 202 with its id and a job (`GET /api/v1/jobs/{id}`) while it is embedded and written in the background.',
  http: { method: 'POST', path: '/api/v1/documents', aliases: ['/documents'] },
  access: 'user',
  longRunning: true,
  query: Type.Object(
    {
      async: Type.Boolean({ default: false, description: 'Embed and write in the background: answer 202 with a job.' }),
    },
    { additionalProperties: false },
  ),
  body: DocumentInput,
  success: {
    status: 201,
    schema: Type.Object({
      success: Type.Literal(true),
      document_id: Type.String(),
      version: Type.Optional(Type.Integer()),
    }),
    description: 'The document is stored and indexed.',
  },
  alternatives: [
    {
      status: 202,
      schema: Type.Object({ success: Type.Literal(true), document_id: Type.String(), job_id: Type.String() }),
      description: 'async=true: validated and chunked; embedded and written in the background (poll the job).',
    },
  ],
  errors: ['UNSUPPORTED_FILE_TYPE', 'STORAGE_UNAVAILABLE', 'ACCESS_CHANGED'],
  examples: [
    {
      summary: 'A short article with a location',
      body: {
        id: 'doc-hnsw-101',
        title: 'HNSW in practice',
        content:
          'Hierarchical navigable small world graphs give logarithmic-time approximate nearest neighbour search.',
        metadata: { author: 'Ada', year: 2025 },
        tags: ['ann', 'graphs'],
        categories: ['engineering'],
        location: [52.52, 13.405],
        visibility: 'public',
      },
      response: { status: 201, body: { success: true, document_id: 'doc-hnsw-101', version: 1 } },
    },
  ],
  playground: {
    hidden: [
      'content',
      'file_content',
      'storage_type',
      'content_type',
      'indexed_at',
      'tenant_id',
      'child_doc_ids',
      'acl',
      'vector_meta',
      'engagement',
      'location',
      'edges',
    ],
    hints: {
      file_url: { placeholder: 'https://example.com/paper.pdf' },
      file_type: { placeholder: 'pdf (defaults to the file’s type)' },
      primary_table: { placeholder: 'documents (the table it belongs to)' },
      external_id: { placeholder: 'Your own id, e.g. crm-4711' },
      source_url: { placeholder: 'https://example.com/article' },
      lang_code: { placeholder: 'en' },
      chunk_size: { placeholder: 'Characters per chunk, e.g. 1024' },
      chunk_overlap: { placeholder: 'Characters shared by neighbouring chunks, e.g. 200' },
      id: { placeholder: 'Optional: generated when empty' },
      created_at: { initial: 'now' },
      updated_at: { initial: 'now' },
      title: { placeholder: 'Document title' },
      text_content: {
        kind: 'textarea',
        label: 'Text content',
        placeholder: 'Text of the document (or choose a file below)',
      },
      metadata: { kind: 'textarea', placeholder: '{"author": "Ada"}', default: '{}' },
      tags: { placeholder: 'comma,separated,tags' },
      categories: { placeholder: 'comma,separated,categories' },
      access_list: { placeholder: 'user or group ids, comma separated' },
      embedding_options: {
        kind: 'textarea',
        placeholder: '{"model_name": "use-lite-512"}',
        initial: 'default-model-options',
      },
      vector: { kind: 'textarea', placeholder: 'Optional: your own vector, e.g. [0.12, -0.03, 0.5]' },
      vectors: { kind: 'textarea', placeholder: 'Optional: {"image": [0.12, -0.03, 0.5]}' },
    },
    extraFields: [
      {
        name: 'file',
        kind: 'file',
        label: 'File (PDF or text)',
        accept: 'application/pdf,text/*',
        placeholder: 'A .pdf or .txt file',
        description: 'A PDF (text extracted page by page in your browser) or a text file; fills text_content.',
        fills: { text: 'text_content', type: 'file_type', name: 'title' },
      },
    ],
  },
});
