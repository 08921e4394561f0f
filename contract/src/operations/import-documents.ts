import { Type } from '@sinclair/typebox';
import { defineOperation } from '../define-operation.js';
import { DocumentInput } from '../schemas/document.js';

/** The answer about one line of an NDJSON import. */
export const ImportLineResult = Type.Object(
  {
    line: Type.Integer({ minimum: 1, description: 'Line number in the body, from 1.' }),
    success: Type.Boolean(),
    document_id: Type.Optional(Type.String()),
    error: Type.Optional(
      Type.Object({ code: Type.String(), message: Type.String(), field: Type.Optional(Type.String()) }),
    ),
  },
  { description: 'One line of the NDJSON answer: the document written, or why this line was not.' },
);

export const importDocuments = defineOperation({
  id: 'import-documents',
  name: 'Import Documents (NDJSON)',
  category: 'documents',
  summary: 'Stream any number of documents as NDJSON, one per line',
  description:
    'The body is NDJSON (`Content-Type: application/x-ndjson`): one document per line, with the fields of Add Document (vectors included). It is read as it arrives, so memory stays bounded whatever its size; the 10 MiB body limit does not apply, IMPORT_BODY_LIMIT_BYTES does. Lines are validated one by one like a single add and written in transactions of `batch_size` lines. A bad line never stops the good ones. A line is answered once it is stored; its vectors join the HNSW index in the background after the import, and searches compare the ones not in it yet exactly meanwhile, so results are complete at once (the collection info shows `indexed` beside `vectors`). The answer is NDJSON too (`application/x-ndjson`), one line per input line, in order, streamed as the lines are written: `{"line":3,"success":false,"error":{"code":"VALIDATION_FAILED","message":"…","field":"line[3].title"}}`. Blank lines are skipped. With `?async=true` the body is first stored in a temporary file, the answer is 202 with a job id, and `GET /api/v1/jobs/{id}` reports lines read, written and failed, the rate, the ETA and the first failed lines.',
  http: { method: 'POST', path: '/api/v1/documents/import', aliases: ['/documents/import'] },
  access: 'user',
  query: Type.Object(
    {
      async: Type.Boolean({ default: false }),
      batch_size: Type.Integer({
        minimum: 1,
        maximum: 5000,
        default: 500,
        description: 'Lines written per transaction.',
      }),
    },
    { additionalProperties: false },
  ),
  ndjson: {
    line: DocumentInput,
    description: 'NDJSON: one document per line (the body of Add Document), UTF-8, lines separated by \\n.',
  },
  success: {
    status: 200,
    schema: ImportLineResult,
    description: 'NDJSON, one such object per input line (blank lines excepted), in order.',
  },
  alternatives: [
    {
      status: 202,
      schema: Type.Object({ success: Type.Literal(true), lines: Type.Integer(), job_id: Type.String() }),
      description: 'async=true: the body was received; the import continues in the background; poll the job.',
    },
  ],
  longRunning: true,
  errors: ['STORAGE_UNAVAILABLE', 'IMPORT_STALLED', 'ACCESS_CHANGED', 'IMPORT_WORKER_FAILED'],
  examples: [
    {
      summary: 'Two documents, the second invalid (the answer has one line per document; its first line shown)',
      response: { status: 200, body: { line: 1, success: true, document_id: 'a1' } },
    },
  ],
  playground: {
    extraFields: [
      {
        name: 'file',
        kind: 'file',
        accept: '.ndjson,.jsonl,application/x-ndjson',
        placeholder: 'A .ndjson file',
        description: 'An NDJSON file: one document per line (the body of Add Document), sent as it is.',
        label: 'NDJSON file',
        sends: 'body',
        required: true,
        requiredMessage: 'Choose an NDJSON file to import (one document per line)',
      },
    ],
  },
});
