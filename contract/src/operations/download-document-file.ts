import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { PathId } from '../schemas/common.js';

export const downloadDocumentFile = defineOperation({
  id: 'download-document-file',
  name: 'Download Document File',
  category: 'documents',
  summary: 'The file uploaded with a document',
  description:
    'The bytes sent as `file_content` when the document (or, with `<id>@v<version>`, that earlier version) was written, from the storage provider (STORAGE_PROVIDER: under DATA_DIR, or an S3 bucket). Readable by whoever may read the document; its `content_type` becomes the answer’s Content-Type when it is a media type. 404 when the document has no file.',
  http: { method: 'GET', path: '/api/v1/documents/{id}/file', aliases: ['/documents/{id}/file'] },
  access: 'user',
  params: PathId,
  success: {
    status: 200,
    schema: Type.Unknown({ description: 'The file, as an attachment named after the document id.' }),
    description: 'The file.',
  },
  errors: ['NOT_FOUND', 'STORAGE_UNAVAILABLE'],
  examples: [
    {
      summary: 'The PDF of a report',
      params: { id: 'report-2024' },
      response: { status: 200, body: '(binary)' },
    },
  ],
  playground: { hints: { id: { placeholder: 'report-2024' } } },
});
