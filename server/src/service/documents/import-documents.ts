import { isAscii } from 'node:buffer';
import { createWriteStream, createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { createError, GoDBError } from '@godb/contract';
import type { PreparedDocument, Viewer } from '../../engine/documents/types.js';
import type { LineFailure } from '../../engine/jobs/job-store.js';
import type { UseCaseOf } from '../context.js';
import { NdjsonResult } from '../ndjson-result.js';
import { StatusResult } from '../status-result.js';
import { BackgroundWork } from './background-work.js';
import type { DocumentDeps } from './deps.js';
import { errorOfShape, fieldOf, maxLineBytes, type Line } from './import-workers/line-preparation.js';
import { preparedLines } from './import-workers/prepared-lines.js';
import { viewerOf } from './viewer.js';
import { writeDocuments } from './write-documents.js';

export { maxLineBytes };

/** What the answer says about one line. */
export interface LineResult {
  readonly line: number;
  readonly success: boolean;
  readonly document_id?: string;
  readonly error?: { readonly code: string; readonly message: string; readonly field?: string };
}

/**
 * The non-blank lines of an NDJSON stream, numbered from 1. A line longer than maxLineBytes is given as null text
 * (and skipped to its end) rather than buffered.
 */
export async function* ndjsonLines(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  /** Whether the decoder may hold the first bytes of a character split between chunks. */
  let split = false;
  const decode = (chunk: Uint8Array) => {
    // JSON is mostly ASCII: such a chunk is copied as is (several times faster than UTF-8 decoding).
    if (!split && isAscii(chunk))
      return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    split = (chunk.at(-1) ?? 0) >= 0x80;
    return decoder.decode(chunk, { stream: true });
  };
  let pending = '';
  let number = 0;
  let skipping = false;
  for await (const chunk of body) {
    pending += typeof chunk === 'string' ? chunk : decode(chunk);
    // One pass over the chunk: lines are cut from `start`, and only the unfinished last one is kept.
    let start = 0;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      number += 1;
      const text = pending.slice(start, newline);
      start = newline + 1;
      if (skipping) skipping = false;
      else if (text.trim() !== '') yield { number, text };
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
    if (!skipping && pending.length > maxLineBytes) {
      yield { number: number + 1, text: null };
      skipping = true;
    }
    if (skipping) pending = '';
  }
  pending += decoder.decode();
  if (!skipping && pending.trim() !== '') yield { number: number + 1, text: pending };
}

function failure(line: number, error: unknown, requestId = ''): LineResult {
  const known = error instanceof GoDBError ? error : createError('INTERNAL', { request_id: requestId });
  return {
    line,
    success: false,
    error: { code: known.code, message: known.message, ...(known.field !== undefined && { field: known.field }) },
  };
}

/**
 * Embeds and writes one group in a transaction; when that fails, each half again, so a bad line fails alone and
 * the good ones are written.
 */
async function writeGroup(
  deps: DocumentDeps,
  viewer: Viewer,
  group: readonly { line: number; doc: PreparedDocument }[],
  signal?: AbortSignal,
  requestId = '',
): Promise<LineResult[]> {
  if (group.length === 0) return [];
  try {
    await deps.documents.preparation.embed(
      group.map((g) => g.doc),
      signal,
    );
    const written = await writeDocuments(
      deps,
      viewer,
      group.map((g) => g.doc),
      (i) => fieldOf(group[i]?.line ?? 0),
      signal,
    );
    return group.map((g, i) => ({ line: g.line, success: true, document_id: written[i]?.id ?? g.doc.id }));
  } catch (error) {
    signal?.throwIfAborted();
    // Cluster mode with no NATS majority: no half would get through either; the import stops with the error.
    if (error instanceof GoDBError && error.code === 'CLUSTER_UNAVAILABLE') throw error;
    const [only] = group;
    if (only && group.length === 1) return [failure(only.line, error, requestId)];
    // Halves, so one bad document in a group of 500 costs about 18 transactions rather than 500.
    const middle = Math.ceil(group.length / 2);
    return [
      ...(await writeGroup(deps, viewer, group.slice(0, middle), signal, requestId)),
      ...(await writeGroup(deps, viewer, group.slice(middle), signal, requestId)),
    ];
  }
}

/**
 * Reads NDJSON lines and writes them in transactions of `batchSize`, yielding one result per non-blank line in
 * order. Only one group is held in memory at a time.
 */
export async function* importLines(
  deps: DocumentDeps,
  viewer: Viewer,
  body: AsyncIterable<Uint8Array | string>,
  batchSize: number,
  signal?: AbortSignal,
  requestId = '',
): AsyncGenerator<LineResult> {
  let group: { line: number; doc: PreparedDocument }[] = [];
  let pending: LineResult[] = [];
  const ids = new Set<string>();
  const flush = async () => {
    const results = [...pending, ...(await writeGroup(deps, viewer, group, signal, requestId))].sort(
      (a, b) => a.line - b.line,
    );
    group = [];
    pending = [];
    ids.clear();
    return results;
  };
  let last = 0;
  // HNSW insertion waits until the import ends: the lines are durable and searchable (exactly) once written.
  const release = deps.documents.deferIndexing();
  try {
    try {
      // Parsing, validation and chunking happen on the import workers (IMPORT_THREADS), read ahead up to two
      // groups, in the stream's order; this thread resolves each line against the collections and writes.
      const lines = preparedLines(body, ndjsonLines, viewer.userId, deps.importPool, 2 * batchSize);
      for await (const prepared of lines) {
        const line = { number: prepared.line };
        last = line.number;
        let doc: PreparedDocument | undefined;
        if ('error' in prepared) pending.push(failure(line.number, prepared.error, requestId));
        else {
          try {
            doc = deps.documents.preparation.resolve(viewer, prepared.doc, fieldOf(line.number));
          } catch (error) {
            pending.push(failure(line.number, error, requestId));
          }
        }
        if (doc) {
          // A group holds each id once: a write is decided on the documents as they are before it runs, so a second
          // line of an id in the same write would meet the version the first wrote and fail the group (ACCESS_CHANGED).
          // It starts the next group, decided on that version.
          if (ids.has(doc.id)) yield* await flush();
          ids.add(doc.id);
          group.push({ line: line.number, doc });
        }
        if (group.length + pending.length >= batchSize) yield* await flush();
      }
    } catch (error) {
      // The body itself failed (too large, or the client went away): answer what was read, then say why it stopped.
      yield* await flush();
      yield failure(last + 1, error, requestId);
      return;
    }
    yield* await flush();
  } finally {
    release();
  }
}

/** Counts bytes through a stream and fails it with PAYLOAD_TOO_LARGE past `limit`. */
export function byteLimit(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > limit) callback(createError('PAYLOAD_TOO_LARGE', { limit }));
      else callback(null, chunk);
    },
  });
}

/**
 * Synchronous mode: the answer is NDJSON, one result per line, streamed as groups are written. Asynchronous mode:
 * the body is stored in a temporary file (memory stays bounded), then the import runs in the background with its
 * progress (lines read, written, failed, rate, ETA, first failures) at GET /api/v1/jobs/{id}.
 */
export const importDocumentsUseCase =
  (deps: DocumentDeps): UseCaseOf<'import-documents'> =>
  async ({ body, query }, ctx) => {
    const viewer = viewerOf(ctx);
    if (!query.async)
      return new NdjsonResult(importLines(deps, viewer, body, query.batch_size, ctx.signal, ctx.requestId)) as never;
    const folder = await mkdtemp(join(tmpdir(), 'godb-import-'));
    const file = join(folder, 'body.ndjson');
    let lines = 0;
    let last = 10;
    try {
      await pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            for (const byte of chunk) if (byte === 10) lines += 1;
            last = chunk.at(-1) ?? last;
            callback(null, chunk);
          },
        }),
        createWriteStream(file),
      );
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
    if (last !== 10) lines += 1;
    const background = deps.background ?? new BackgroundWork();
    const jobId = deps.jobs.newId();
    try {
      background.start(
        viewer.tenantId,
        () =>
          runImport(deps, viewer, file, query.batch_size, jobId).finally(() =>
            rm(folder, { recursive: true, force: true }),
          ),
        'asynchronous import',
      );
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw error;
    }
    await deps.jobs.create({
      id: jobId,
      tenantId: viewer.tenantId,
      userId: viewer.userId,
      kind: 'import-documents',
      total: lines,
    });
    return new StatusResult(202, { success: true, lines, job_id: jobId }) as never;
  };

async function runImport(
  deps: DocumentDeps,
  viewer: Viewer,
  file: string,
  batchSize: number,
  jobId: string,
): Promise<void> {
  deps.jobs.update(jobId, { status: 'running' });
  let read = 0;
  let written = 0;
  let failed = 0;
  let newFailures: LineFailure[] = [];
  try {
    let count = 0;
    for await (const result of importLines(deps, viewer, createReadStream(file), batchSize, undefined, jobId)) {
      // A worker that stopped ends the import (its last result): the job fails, saying so.
      if (result.error?.code === 'IMPORT_WORKER_FAILED')
        throw errorOfShape({ ...result.error, code: 'IMPORT_WORKER_FAILED' });
      read = result.line;
      if (result.success) written += 1;
      else {
        failed += 1;
        if (newFailures.length < 100)
          newFailures.push({ line: result.line, code: 'INTERNAL', message: '', ...result.error });
      }
      count += 1;
      if (count % batchSize === 0) {
        deps.jobs.updateLines(jobId, { read, written, failed, newFailures });
        newFailures = [];
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    deps.jobs.updateLines(jobId, { read, written, failed, newFailures });
    deps.jobs.update(jobId, { status: 'done' });
  } catch (error) {
    deps.jobs.updateLines(jobId, { read, written, failed, newFailures });
    deps.jobs.update(jobId, {
      status: 'failed',
      error: `${(error as Error).message} (${written} documents were written)`,
    });
  }
}
