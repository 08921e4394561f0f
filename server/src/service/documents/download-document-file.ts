import type { UseCaseOf } from '../context.js';
import { FileResult } from '../file-result.js';
import type { DocumentDeps } from './deps.js';
import { viewerOf } from './viewer.js';

/** A media type such as `application/pdf`; anything else a document calls its content type is not sent as one. */
const mediaType = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

/** The file uploaded with a document, streamed from the storage provider (a folder or an S3 bucket). */
export const downloadDocumentFileUseCase =
  (deps: DocumentDeps): UseCaseOf<'download-document-file'> =>
  async ({ params }, ctx) => {
    const file = await deps.documents.reads.file(viewerOf(ctx), params.id);
    const type =
      file.contentType !== undefined && mediaType.test(file.contentType)
        ? file.contentType
        : 'application/octet-stream';
    return new FileResult(file.body, file.name, type, file.size) as never;
  };
