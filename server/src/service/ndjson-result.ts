/**
 * A use-case result answered as NDJSON (`application/x-ndjson`): one JSON value per line, produced while the
 * transport sends them, so an answer about millions of lines is never held in memory at once.
 */
export class NdjsonResult<T = unknown> {
  constructor(readonly lines: AsyncIterable<T>) {}
}
