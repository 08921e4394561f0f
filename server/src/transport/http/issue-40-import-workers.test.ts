import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { vectorsTenant, type LineResult } from '../../test-support/ndjson-import.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #40: NDJSON import lines are parsed, validated and chunked on worker threads (IMPORT_THREADS), the server
// thread only writes them. Whatever the thread count, a user sees the same answer, the same stored documents and
// the same search results; a worker that dies stops the import with a clear error, never a hang or half a batch.

const crashMarker = 'issue-40-worker-exit-here';
// Read by each import worker when it starts (a test-only hook of import-worker.ts); no line below the crash test's
// contains it, so the other servers' workers never meet it.
process.env.GODB_TEST_IMPORT_WORKER_EXIT_ON = crashMarker;

const words = ['vector', 'index', 'graph', 'search', 'ranking', 'thread', 'worker', 'import', 'chunk', 'token'];

/** 300 varied lines: vectors, text long enough to chunk, dates, metadata, with bad lines and a repeated id among them. */
function body(): string {
  const lines: string[] = [];
  for (let i = 0; i < 300; i += 1) {
    const text = Array.from({ length: 40 + (i % 90) }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
    const doc: Record<string, unknown> = {
      id: `w-${i % 290}`, // ids 0–9 come twice: the later line overwrites, in stream order
      primary_table: 'vecs',
      title: `Document ${i}`,
      content: `${text} marker${i % 17} ${i % 3 === 0 ? 'rare' : ''}`,
      chunk_size: 200,
      chunk_overlap: 20,
      tags: [`t${i % 5}`],
      metadata: { rank: i, even: i % 2 === 0 },
      created_at: '2024-05-01T00:00:00Z',
      updated_at: '2024-05-02T00:00:00Z',
      vectors: { v: [1 + (i % 7), (i % 11) / 3, (i % 13) / 5, 1] },
    };
    lines.push(JSON.stringify(doc));
    if (i === 120) lines.push('{"id": "broken", "title": '); // bad JSON in the middle
    if (i === 121) lines.push(JSON.stringify({ id: 'bad-type', primary_table: 'vecs', title: 42 }));
    if (i === 122) lines.push(JSON.stringify({ id: 'bad-vector', primary_table: 'vecs', vectors: { v: [1, 2] } }));
    if (i === 150) lines.push('', '   ');
  }
  return lines.join('\n');
}

async function importBody(base: string, token: string, text: string, query = 'batch_size=40') {
  const res = await fetch(`${base}/api/v1/documents/import?${query}`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
    body: text,
  });
  assert.equal(res.status, 200);
  return (await res.text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as LineResult);
}

const uuids = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** What a user reads back: each document with its chunks, and a text, a vector and a hybrid search. */
async function observe(server: TestServer, token: string) {
  const documents: unknown[] = [];
  for (let i = 0; i < 290; i += 1) {
    const res = await server.call('GET', `/api/v1/documents/w-${i}?include_chunks=true`, token);
    assert.equal(res.status, 200, res.text);
    // The two servers' tenants and users have ids of their own, and indexed_at is the time of the write; everything
    // else is compared as stored.
    documents.push(
      JSON.parse(res.text.replace(uuids, 'uuid'), (key, value: unknown) => (key === 'indexed_at' ? undefined : value)),
    );
  }
  const searches: unknown[] = [];
  for (const [path, query] of [
    ['/api/v1/search/text', { query: 'marker3 rare', primary_table: 'vecs', limit: 20 }],
    ['/api/v1/search/vector', { vector: [3, 1, 0.4, 1], primary_table: 'vecs', threshold: 0, limit: 20 }],
    ['/api/v1/search/vector', { vector: [1, 2, 2, 1], primary_table: 'vecs', threshold: 0, limit: 20 }],
  ] as const) {
    const res = await server.call('POST', path, token, query);
    assert.equal(res.status, 200, res.text);
    const results = (res.body.results as { document_id: string; score: number }[]).map((r) => [
      r.document_id,
      Math.round(r.score * 1e6) / 1e6,
    ]);
    assert.ok(results.length > 0, `${path}: ${res.text}`);
    searches.push(results);
  }
  return { documents, searches };
}

/** Polls a job until it ends: a hang detector, not a timing. */
async function finished(base: string, token: string, jobId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i += 1) {
    const res = await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: bearer(token) });
    const job = (await res.json()) as Record<string, unknown>;
    if (job.status === 'done' || job.status === 'failed') return job;
    await delay(100);
  }
  assert.fail(`job ${jobId} still running after 600 polls`);
}

describe('imports on worker threads (issue #40)', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  test('IMPORT_THREADS=0 and 2 answer the same lines, store the same documents and search the same', async () => {
    const text = body();
    const seen = [];
    for (const threads of ['0', '2']) {
      const server = await startTestServer({ IMPORT_THREADS: threads });
      servers.push(server);
      const { token, base } = await vectorsTenant(server);
      const answer = await importBody(base, token, text);
      seen.push({ answer, ...(await observe(server, token)) });
    }
    const [inThread, pooled] = seen;
    assert.ok(inThread && pooled);
    // The bad lines fail alone, with their own line numbers and fields, and every other line is written.
    const failures = inThread.answer.filter((l) => !l.success).map((l) => [l.line, l.error?.code, l.error?.field]);
    assert.deepEqual(failures, [
      [122, 'INVALID_JSON_BODY', 'line[122]'],
      [124, 'VALIDATION_FAILED', 'line[124].title'],
      [126, 'INVALID_VECTOR_FORMAT', 'line[126].vectors.v'],
    ]);
    assert.equal(inThread.answer.length, 303);
    assert.deepEqual(pooled.answer, inThread.answer);
    assert.deepEqual(pooled.documents, inThread.documents);
    assert.deepEqual(pooled.searches, inThread.searches);
  });

  test('a worker that dies stops the import with IMPORT_WORKER_FAILED after whole batches; the next import works', async () => {
    const server = await startTestServer({ IMPORT_THREADS: '2' });
    servers.push(server);
    const { token, base } = await vectorsTenant(server);
    const lines = body().split('\n');
    lines[200] = JSON.stringify({ id: 'crash', primary_table: 'vecs', title: crashMarker });
    const answer = await importBody(base, token, lines.join('\n'));
    const last = answer.at(-1);
    assert.equal(last?.success, false);
    assert.equal(last.error?.code, 'IMPORT_WORKER_FAILED');
    assert.match(last.error.message, /import worker thread stopped/);
    const written = answer.filter((l) => l.success);
    // Lines are answered in order, none at or past the crashed one.
    assert.ok(answer.every((l, i) => i === 0 || l.line > (answer[i - 1]?.line ?? 0)));
    assert.ok(answer.slice(0, -1).every((l) => l.line < 201));
    assert.ok(written.length > 0);
    // What was answered as written is stored; nothing after it is.
    const count = async () => {
      const res = await server.call('POST', '/api/v1/documents/count', token, { primary_table: 'vecs' });
      return res.status === 200 ? (res.body.count as number) : Number.NaN;
    };
    assert.equal(await count(), new Set(written.map((l) => l.document_id)).size);

    // Asynchronous: the job fails naming the worker, with what was written.
    const res = await fetch(`${base}/api/v1/documents/import?async=true&batch_size=40`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    assert.equal(res.status, 202);
    const job = await finished(base, token, ((await res.json()) as { job_id: string }).job_id);
    assert.equal(job.status, 'failed');
    assert.match(String(job.error), /import worker thread stopped.*documents were written/);

    // The workers are replaced: the same server imports the body without the marked line.
    lines.splice(200, 1);
    const again = await importBody(base, token, lines.join('\n'));
    assert.equal(again.filter((l) => !l.success).length, 3);
    assert.equal(again.length, 302);
  });

  test('a server stopped during an import drains its workers and stops (no hang)', async () => {
    const server = await startTestServer({ IMPORT_THREADS: '2' });
    const { token, base } = await vectorsTenant(server);
    const answer = fetch(`${base}/api/v1/documents/import?batch_size=40`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      body: Array.from({ length: 5 }, () => body()).join('\n'),
    }).then(
      async (res) => ({ status: res.status, text: await res.text().catch(() => '') }),
      () => ({ status: 0, text: '' }),
    );
    await delay(50);
    await server.close();
    // The import was answered in full or cut at shutdown; either way the request and the server ended.
    const { status, text } = await answer;
    assert.ok(status === 200 || status === 0 || status === 503, `status ${status}`);
    assert.ok(text.split('\n').every((l) => l === '' || (JSON.parse(l) as LineResult).line > 0));
  });
});
