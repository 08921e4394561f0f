import type { Readable } from 'node:stream';

/** A use-case result that is a file to stream (downloads), not JSON: a path on disk, or a stream being produced. */
export class FileResult {
  constructor(
    readonly source: string | Readable,
    readonly name: string,
    readonly contentType: string,
    /** Its length in bytes, when known before it is sent (Content-Length). */
    readonly size?: number,
  ) {}
}
