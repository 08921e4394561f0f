import { Type, type TSchema } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { PathId } from '../schemas/common.js';
import { DocumentInput } from '../schemas/document.js';

/** The fields as optional and without defaults: a field left out keeps the document's value (no default fills it). */
function withoutDefaults<T extends Record<string, TSchema>>(properties: T): T {
  return Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      const copy = { ...schema } as Record<string, unknown>;
      delete copy.default;
      return [name, Type.Optional(copy as unknown as TSchema)];
    }),
  ) as T;
}

export const updateDocument = defineOperation({
  id: 'update-document',
  name: 'Update Document',
  category: 'documents',
  summary: 'Change some fields of a document (a new version)',
  description:
    'Changes title, metadata, tags, categories, location, lang_code, external_id, source_url or your vectors, and keeps everything else: a new version, as an add of the same id makes, without re-embedding the content (a changed title re-embeds, since every chunk’s embedded text starts with it). Vectors (and sparse vectors) you do not name are kept; `vector` replaces the collection’s default one. A vector you give for the name the collection’s model fills replaces the model’s, and stays the document’s (a changed title then re-embeds nothing). Needs the edit or owner role; the owner and the ACL stay as they are.',
  http: { method: 'PATCH', path: '/api/v1/documents/{id}', aliases: ['/documents/{id}'] },
  access: 'user',
  longRunning: true,
  params: PathId,
  body: Type.Object(
    withoutDefaults(
      Type.Pick(DocumentInput, [
        'title',
        'metadata',
        'tags',
        'categories',
        'location',
        'lang_code',
        'external_id',
        'source_url',
        'vector',
        'vectors',
        'sparse_vectors',
      ]).properties,
    ),
    { additionalProperties: false, minProperties: 1 },
  ),
  success: {
    status: 200,
    schema: Type.Object({ success: Type.Literal(true), document_id: Type.String(), version: Type.Integer() }),
    description: 'The new version.',
  },
  errors: ['NOT_FOUND', 'INVALID_VECTOR_FORMAT', 'DOCUMENT_CHANGED', 'ACCESS_CHANGED'],
  examples: [
    {
      summary: 'Reprice a product and replace its image vector',
      params: { id: 'red-shoe' },
      body: { metadata: { price: 29 }, vectors: { image: [0.8, 0.2, 0, 0.1] } },
      response: { status: 200, body: { success: true, document_id: 'red-shoe', version: 2 } },
    },
  ],
  playground: {
    hints: {
      title: { placeholder: 'Optional: a new title' },
      metadata: { kind: 'textarea', placeholder: '{"price": 29}' },
      tags: { placeholder: 'comma,separated,tags' },
      categories: { placeholder: 'comma,separated,categories' },
      location: { kind: 'textarea', placeholder: '[52.52, 13.405]' },
      lang_code: { placeholder: 'en' },
      external_id: { placeholder: 'Your own id, e.g. crm-4711' },
      source_url: { placeholder: 'https://example.com/article' },
      vector: { kind: 'textarea', placeholder: 'Optional: [0.12, -0.03, 0.5]' },
      vectors: { kind: 'textarea', placeholder: 'Optional: {"image": [0.12, -0.03, 0.5]}' },
    },
  },
});
