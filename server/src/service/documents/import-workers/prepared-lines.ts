import type { PreparedDocument } from '../../../engine/documents/types.js';
import { offerAnalysed } from '../../../engine/text/analysed-ahead.js';
import { documentLanguage } from '../../../engine/text/languages.js';
import type { ImportPool } from './import-pool.js';
import { errorOfShape, prepareLineAlone, type Line } from './line-preparation.js';

/** A line prepared without the database: its document, or the error it is answered with. */
export type PreparedLine =
  { readonly line: number; readonly doc: PreparedDocument } | { readonly line: number; readonly error: unknown };

/** Lines per message to a worker: large enough that a message's cost is small beside the work it carries. */
const sliceLines = 64;

/** The lines of the stream prepared on the server thread, one by one (IMPORT_THREADS=0). */
async function* preparedInThread(lines: AsyncIterable<Line>, ownerId: string): AsyncGenerator<PreparedLine> {
  for await (const line of lines) {
    try {
      yield { line: line.number, doc: prepareLineAlone(line, ownerId) };
    } catch (error) {
      yield { line: line.number, error };
    }
  }
}

/** The body's chunks, calling `beforeRead` each time the reader waits for the next one (every line cut so far is out). */
async function* announcingReads(
  body: AsyncIterable<Uint8Array | string>,
  beforeRead: () => void,
): AsyncGenerator<Uint8Array | string> {
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    beforeRead();
    const next = await chunks.next();
    if (next.done) return;
    yield next.value;
  }
}

type Reply = Awaited<ReturnType<ImportPool['prepare']>>;

/**
 * The lines prepared on the pool's workers, yielded in the order of the stream. Lines go to a worker in slices of
 * up to 64, or fewer when the body has no more for now (a client may wait for answers before sending more); up to
 * `inFlightLines` are read ahead and prepared while the caller writes (backpressure: the body is not read further
 * until the oldest slice is taken). A slice is yielded as soon as it is ready and the ones before it were. When
 * the body fails, the lines read before are yielded first, then its error is thrown; when a worker stops, the
 * slices before it are yielded, then IMPORT_WORKER_FAILED is thrown.
 */
async function* preparedInPool(
  pool: ImportPool,
  body: AsyncIterable<Uint8Array | string>,
  split: (body: AsyncIterable<Uint8Array | string>) => AsyncIterable<Line>,
  ownerId: string,
  inFlightLines: number,
): AsyncGenerator<PreparedLine> {
  const slices: { lines: readonly Line[]; reply: Promise<Reply>; settled: Promise<'slice'> }[] = [];
  let slice: Line[] = [];
  const send = () => {
    if (slice.length === 0) return;
    const reply = pool.prepare(slice, ownerId);
    // A rejected slice waits in the queue until its turn: its rejection is handled there, not reported early.
    const settled = reply.then(
      () => 'slice' as const,
      () => 'slice' as const,
    );
    slices.push({ lines: slice, reply, settled });
    slice = [];
  };
  async function* oldest(): AsyncGenerator<PreparedLine> {
    const first = slices.shift();
    if (!first) return;
    const { results } = await first.reply;
    for (const [i, result] of results.entries()) {
      const line = first.lines[i]?.number ?? 0;
      if (!('doc' in result)) {
        yield { line, error: errorOfShape(result.error) };
        continue;
      }
      const language = documentLanguage(result.doc.fields.lang_code);
      result.doc.chunks.forEach((chunk, c) => {
        const terms = result.terms[c];
        if (terms !== undefined) offerAnalysed(chunk.content, language, terms);
      });
      yield { line, doc: result.doc };
    }
  }
  const maxSlices = Math.max(pool.size * 2, Math.ceil(inFlightLines / sliceLines));
  const lines = split(announcingReads(body, send))[Symbol.asyncIterator]();
  const pull = () =>
    lines.next().then(
      (next) => ({ next }),
      (error: unknown) => ({ error }),
    );
  let pending = pull();
  let bodyFailed = false;
  let bodyError: unknown;
  try {
    for (;;) {
      while (slices.length > maxSlices) yield* oldest();
      const first = slices[0];
      const got = first ? await Promise.race([pending, first.settled]) : await pending;
      if (got === 'slice') {
        yield* oldest();
        continue;
      }
      if ('error' in got) {
        bodyFailed = true;
        bodyError = got.error;
        break;
      }
      if (got.next.done) break;
      slice.push(got.next.value);
      if (slice.length >= sliceLines) send();
      pending = pull();
    }
    send();
    while (slices.length > 0) yield* oldest();
    if (bodyFailed) throw bodyError;
  } finally {
    // A caller that stops early (the client went away) lets go of the body too.
    lines.return?.().catch(() => undefined);
  }
}

/**
 * The lines of an NDJSON body (cut by `split`) prepared as far as they can be without the database, in the
 * stream's order: on the import pool's workers when there is one, else on this thread.
 *
 * @example for await (const p of preparedLines(body, ndjsonLines, viewer.userId, pool, 2 * batchSize)) …
 */
export function preparedLines(
  body: AsyncIterable<Uint8Array | string>,
  split: (body: AsyncIterable<Uint8Array | string>) => AsyncIterable<Line>,
  ownerId: string,
  pool: ImportPool | null | undefined,
  inFlightLines: number,
): AsyncGenerator<PreparedLine> {
  return pool && pool.size > 0
    ? preparedInPool(pool, body, split, ownerId, inFlightLines)
    : preparedInThread(split(body), ownerId);
}
