import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { postStream, vectorsTenant, type LineResult } from '../../test-support/ndjson-import.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #16: POST /api/v1/documents/import streams NDJSON, one document per line, answered line by line; with
// ?async=true a job reports lines read, written and failed. Over a real port, with bodies sent as they are made.

/** Fails (instead of hanging) when a job never finishes: a hang detector, not a timing. */
async function finished(base: string, token: string, jobId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 600; i += 1) {
    const res = await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: bearer(token) });
    const job = (await res.json()) as Record<string, unknown>;
    if (job.status === 'done' || job.status === 'failed') return job;
    await delay(100);
  }
  assert.fail(`job ${jobId} still running after 600 polls`);
}

describe('NDJSON import (issue #16)', () => {
  let server: TestServer;
  let token: string;
  let base: string;

  before(async () => {
    server = await startTestServer({ IMPORT_BODY_LIMIT_BYTES: String(200 * 1024 * 1024) });
    ({ token, base } = await vectorsTenant(server));
  });
  after(async () => server.close());

  test('good lines are written and bad ones answered with their line number and field, in order', async () => {
    const body = [
      JSON.stringify({ id: 'n1', title: 'First', content: 'Vector databases store embeddings.' }),
      '{"id": "n2", "title": ',
      JSON.stringify({ id: 'n3', title: 42 }),
      '',
      JSON.stringify({ id: 'n5', colour: 'red' }),
      JSON.stringify({ id: 'n6', primary_table: 'vecs', title: 'Own vector', vectors: { v: [1, 0, 0, 0] } }),
      JSON.stringify({ id: 'n7', primary_table: 'vecs', vectors: { v: [1, 0] } }),
      JSON.stringify({ id: 'n8', title: 'Last', created_at: '2024-05-01' }),
    ].join('\n');
    const res = await fetch(`${base}/api/v1/documents/import?batch_size=3`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      body,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as LineResult);
    assert.deepEqual(
      lines.map((l) => [l.line, l.success, l.document_id ?? l.error?.field]),
      [
        [1, true, 'n1'],
        [2, false, 'line[2]'],
        [3, false, 'line[3].title'],
        [5, false, 'line[5].colour'],
        [6, true, 'n6'],
        [7, false, lines[5]!.error?.field],
        [8, true, 'n8'],
      ],
    );
    assert.equal(lines[1]!.error?.code, 'INVALID_JSON_BODY');
    assert.equal(lines[2]!.error?.code, 'VALIDATION_FAILED');
    assert.match(lines[5]!.error?.message ?? '', /dimension|4/i, JSON.stringify(lines[5]));

    const written = await fetch(`${base}/api/v1/documents/n8`, { headers: bearer(token) });
    assert.equal(written.status, 200);
    const missing = await fetch(`${base}/api/v1/documents/n3`, { headers: bearer(token) });
    assert.equal(missing.status, 404);
  });

  test('only NDJSON is accepted, and a body past IMPORT_BODY_LIMIT_BYTES answers 413 before it is read', async () => {
    const json = await fetch(`${base}/api/v1/documents/import`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: '[]',
    });
    assert.equal(json.status, 415);
    const refused = (await json.json()) as { error: { code: string; message: string } };
    assert.equal(refused.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    assert.match(refused.error.message, /send application\/x-ndjson$/, 'says what this route takes');

    const big = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/api/v1/documents/import`, {
        method: 'POST',
        headers: {
          ...bearer(token),
          'content-type': 'application/x-ndjson',
          'content-length': String(300 * 1024 * 1024),
        },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.write('{"title": "x"}\n');
    });
    assert.equal(big, 413);
  });

  test('a 50 MB body streamed on the fly is written with bounded memory, its bad lines reported', async () => {
    const target = 50 * 1024 * 1024;
    const filler = 'lorem ipsum dolor sit amet '.repeat(34);
    let sent = 0;
    let made = 0;
    function* generate(): Generator<string> {
      while (sent < target) {
        made += 1;
        // Every 1000th line is invalid (a vector of the wrong length); the rest carry their own vectors.
        const vector = made % 1000 === 0 ? [1, 2] : [made % 7, 1, 0, made % 3];
        const line = `${JSON.stringify({ id: `big-${made}`, primary_table: 'vecs', title: `Doc ${made}`, content: filler, vectors: { v: vector } })}\n`;
        sent += line.length;
        yield line;
      }
    }
    global.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let ok = 0;
    let bad = 0;
    let lastLine = 0;
    let inOrder = true;
    const answer = await postStream(`${base}/api/v1/documents/import`, token, Readable.from(generate()), (text) => {
      const result = JSON.parse(text) as LineResult;
      if (result.line <= lastLine) inOrder = false;
      lastLine = result.line;
      if (result.success) ok += 1;
      else bad += 1;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    });
    assert.equal(answer.status, 200);
    assert.equal(ok + bad, made);
    assert.equal(bad, Math.floor(made / 1000));
    assert.ok(inOrder, 'the answer lists lines in order');
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    // A number to read, not a pass/fail on size: client and server share this process.
    console.log(
      `# NDJSON import: ${mb(sent)} MB, ${made} lines; rss ${mb(before.rss)} -> peak ${mb(peakRss)} MB (body ${mb(sent)} MB)`,
    );
    const count = await fetch(`${base}/api/v1/documents/count?primary_table=vecs`, { headers: bearer(token) });
    if (count.status === 200) console.log(`# count: ${await count.text()}`);
  });

  test('?async=true answers 202 with a job whose progress counts lines read, written and failed', async () => {
    const lines = Array.from({ length: 1200 }, (_v, i) =>
      i % 400 === 399
        ? JSON.stringify({ id: `job-${i}`, title: ['not', 'a', 'title'] })
        : JSON.stringify({ id: `job-${i}`, primary_table: 'vecs', title: `Doc ${i}`, vectors: { v: [i, 1, 1, 1] } }),
    );
    const res = await fetch(`${base}/api/v1/documents/import?async=true&batch_size=100`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      body: `${lines.join('\n')}\n`,
    });
    assert.equal(res.status, 202);
    const accepted = (await res.json()) as { success: boolean; lines: number; job_id: string };
    assert.equal(accepted.lines, 1200);
    const job = await finished(base, token, accepted.job_id);
    assert.equal(job.status, 'done', JSON.stringify(job));
    assert.equal(job.total, 1200);
    assert.equal(job.read, 1200);
    assert.equal(job.written, 1197);
    assert.equal(job.failed, 3);
    assert.equal(job.eta_s, 0);
    assert.equal(typeof job.rate, 'number');
    const failures = job.failures as { line: number; field?: string; code: string }[];
    assert.deepEqual(
      failures.map((f) => [f.line, f.field, f.code]),
      [
        [400, 'line[400].title', 'VALIDATION_FAILED'],
        [800, 'line[800].title', 'VALIDATION_FAILED'],
        [1200, 'line[1200].title', 'VALIDATION_FAILED'],
      ],
    );
    const doc = await fetch(`${base}/api/v1/documents/job-0`, { headers: bearer(token) });
    assert.equal(doc.status, 200);
  });
});
