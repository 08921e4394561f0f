import type { Static } from '@sinclair/typebox';
import { GoDBError, sdkMessage } from './errors.js';
import type { Transport } from './transport.js';
import type { CallOptions, Loosen, OperationOf, OperationTable, Rest, TableEntry } from './types.js';

/** One line of an NDJSON import's answer. */
export type ImportLineResult = Static<OperationOf<OperationTable['documents']['import']>['success']['schema']>;
/** One document of an NDJSON import: the body of `documents.add`. */
export type ImportDocument = Loosen<
  Static<NonNullable<OperationOf<OperationTable['documents']['import']>['ndjson']>['line']>,
  Rest<OperationTable['documents']['import']['defaults'][number], 'line'>
>;

/** What `documents.import` reads: documents (or ready NDJSON text/bytes), from an array, a generator or a stream. */
export type ImportSource =
  | Iterable<ImportDocument | string | Uint8Array>
  | AsyncIterable<ImportDocument | string | Uint8Array>
  | ReadableStream<Uint8Array>;

export interface ImportProgress {
  /** Bytes of NDJSON sent so far. */
  readonly bytesSent: number;
  /** Lines the server has answered so far (blank lines are not answered). */
  readonly linesAnswered: number;
  readonly written: number;
  readonly failed: number;
}

export interface ImportOptions extends CallOptions {
  /** Lines written per transaction (server default 500). */
  readonly batch_size?: number;
  /** Called after each answered line and each chunk sent. */
  readonly onProgress?: (progress: ImportProgress) => void;
}

export interface ImportSummary {
  readonly lines: number;
  readonly written: number;
  readonly failed: number;
  /** The ids written, in line order. */
  readonly documentIds: readonly string[];
  /** The lines that were not written, with the reason (code, message, field). */
  readonly failures: readonly ImportLineResult[];
}

/** `documents.import`: streams NDJSON and reads the answer line by line as documents are written. */
export type ImportMethod = (source: ImportSource, options?: ImportOptions) => Promise<ImportSummary>;

/** Documents are sent in chunks of about this many bytes rather than one write per line. */
const chunkBytes = 64 * 1024;

type Item = ImportDocument | string | Uint8Array;
const encoder = new TextEncoder();
const encode = (item: Item): Uint8Array =>
  item instanceof Uint8Array ? item : encoder.encode(typeof item === 'string' ? item : `${JSON.stringify(item)}\n`);

/** `next` if it settles before the next macrotask, else undefined (and `next` is left to settle later). */
function ifReady<T>(next: Promise<T>): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), 0);
    next.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}

/** The NDJSON body: documents become one JSON line each; strings and bytes are sent as they are. */
function bodyStream(source: ImportSource, sent: (bytes: number) => void): ReadableStream<Uint8Array> {
  if (source instanceof ReadableStream) {
    return source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          controller.enqueue(chunk);
          sent(chunk.byteLength);
        },
      }),
    );
  }
  const iterator: AsyncIterator<Item> | Iterator<Item> =
    Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  // An item asked for but not ready when a chunk was sent: the next chunk starts with it.
  let pending: Promise<IteratorResult<Item>> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const parts: Uint8Array[] = [];
      let size = 0;
      let done = false;
      while (size < chunkBytes) {
        const next = pending ?? Promise.resolve(iterator.next());
        pending = undefined;
        // Items that come at once are sent together; a source that pauses (a slow generator) has what it gave so
        // far sent first, so the server sees every document without waiting for a full chunk.
        const item = size === 0 ? await next : await ifReady(next);
        if (item === undefined) {
          pending = next;
          break;
        }
        if (item.done) {
          done = true;
          break;
        }
        const part = encode(item.value);
        parts.push(part);
        size += part.byteLength;
      }
      if (size > 0) {
        const chunk = new Uint8Array(size);
        let offset = 0;
        for (const part of parts) {
          chunk.set(part, offset);
          offset += part.byteLength;
        }
        controller.enqueue(chunk);
        sent(size);
      }
      if (done) controller.close();
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

/** The lines of an NDJSON answer, as they arrive. */
async function* answerLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = '';
  for await (const text of body.pipeThrough(new TextDecoderStream() as ReadableWritablePair<string, Uint8Array>)) {
    pending += text;
    let end = pending.indexOf('\n');
    while (end >= 0) {
      const line = pending.slice(0, end).trim();
      if (line !== '') yield line;
      pending = pending.slice(end + 1);
      end = pending.indexOf('\n');
    }
  }
  if (pending.trim() !== '') yield pending.trim();
}

/**
 * Streams documents to POST /api/v1/documents/import and reads the answer line by line while it is sent, so
 * neither side holds the whole import in memory. Not retried: the source is read once (a generator or a stream
 * cannot be replayed). No timeout unless `timeoutMs` is given, since an import takes as long as it takes.
 */
export async function importNdjson(
  transport: Transport,
  entry: TableEntry,
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const progress = { bytesSent: 0, linesAnswered: 0, written: 0, failed: 0 };
  const report = () => options.onProgress?.({ ...progress } satisfies ImportProgress);
  const url = transport.url(entry, { batch_size: options.batch_size });
  const documentIds: string[] = [];
  const failures: ImportLineResult[] = [];
  await transport.send(
    entry,
    url,
    () => ({
      body: bodyStream(source, (bytes) => {
        progress.bytesSent += bytes;
        report();
      }),
      contentType: 'application/x-ndjson',
      duplex: 'half',
    }),
    { ...options, timeoutMs: options.timeoutMs ?? 0, retry: false },
    async (response) => {
      if (!response.body) return;
      for await (const line of answerLines(response.body)) {
        let result: ImportLineResult;
        try {
          result = JSON.parse(line) as ImportLineResult;
        } catch (cause) {
          throw new GoDBError({
            code: 'UNEXPECTED_ANSWER',
            message: sdkMessage('sdkUnexpectedAnswer', { status: response.status, body: line.slice(0, 200) }),
            status: response.status,
            cause,
          });
        }
        progress.linesAnswered += 1;
        if (result.success && result.document_id !== undefined) {
          progress.written += 1;
          documentIds.push(result.document_id);
        } else {
          progress.failed += 1;
          failures.push(result);
        }
        report();
      }
    },
  );
  return {
    lines: progress.linesAnswered,
    written: progress.written,
    failed: progress.failed,
    documentIds,
    failures,
  };
}
