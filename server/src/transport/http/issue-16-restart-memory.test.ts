import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { postStream, vectorsTenant, type LineResult } from '../../test-support/ndjson-import.js';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #16 (restart and memory), over HTTP: /readyz says what is loading and how indexes came back, /metrics and
// the collection info show the memory each kind of derived state holds against its budget, and a stalled NDJSON
// upload is stopped with a clear error while the lines before it stay written.

describe('restart and memory (issue #16)', () => {
  let server: TestServer;
  let token: string;
  let base: string;

  before(async () => {
    server = await startTestServer({ IMPORT_IDLE_TIMEOUT_MS: '200', VECTOR_INDEX_MEMORY_MB: '64' });
    ({ token, base } = await vectorsTenant(server));
  });
  after(async () => server.close());

  test('/readyz says the node is ready, what loads, and how its vector indexes came into memory', async () => {
    const res = await fetch(`${base}/readyz`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), {
      status: 'ready',
      loading: [],
      vector_indexes: { file: 0, replay: 0, rebuild: 0, checkpoints: 0, evictions: 0, unreadable: 0, lag: 0 },
      text_indexes: { checkpoint: 0, rebuild: 0, saves: 0, unreadable: 0 },
    });
  });

  test('/metrics and the collection info show memory by kind, with the budgets', async () => {
    const add = await fetch(`${base}/api/v1/documents`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'm1', primary_table: 'vecs', title: 'words here', vectors: { v: [1, 2, 3, 4] } }),
    });
    assert.equal(add.status, 201, await add.text());
    const search = await fetch(`${base}/api/v1/search/vector`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ vector: [1, 2, 3, 4], primary_table: 'vecs', threshold: 0 }),
    });
    assert.equal(search.status, 200, await search.text());
    const text = await fetch(`${base}/api/v1/search/text`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'words' }),
    });
    assert.equal(text.status, 200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const value = (line: string) => Number(new RegExp(`^${line} (\\S+)$`, 'm').exec(metrics)?.[1]);
    assert.ok(value('godb_memory_bytes{kind="vector_index"}') > 0, 'the collection vector index');
    assert.ok(value('godb_memory_bytes{kind="vector_copies"}') > 0);
    assert.ok(value('godb_memory_bytes{kind="text_index"}') >= 0);
    assert.ok(value('godb_memory_bytes{kind="row_cache"}') >= 0);
    assert.equal(value('godb_memory_budget_bytes{kind="vector_index"}'), 64 * 1024 * 1024);
    assert.equal(value('godb_memory_budget_bytes{kind="vector_copies"}'), 1024 * 1024 * 1024);
    assert.match(metrics, /^godb_vector_indexes_opened\{how="rebuild"\} 1$/m);
    // The text query built the tenant's BM25 index in the background; the checkpoint tick (every second) saves it.
    let saved = metrics;
    while (!/^godb_text_index_checkpoints 1$/m.test(saved)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      saved = await (await fetch(`${base}/metrics`)).text();
    }
    assert.match(saved, /^godb_text_indexes_opened\{how="rebuild"\} 1$/m);
    const ready = (await (await fetch(`${base}/readyz`)).json()) as { text_indexes: unknown };
    assert.deepEqual(ready.text_indexes, { checkpoint: 0, rebuild: 1, saves: 1, unreadable: 0 });
    const info = await fetch(`${base}/api/v1/collections/vecs`, { headers: bearer(token) });
    const stats = ((await info.json()) as { vector_stats: Record<string, Record<string, unknown>> }).vector_stats.v!;
    assert.equal(stats.index, 'ready');
    assert.ok((stats.index_bytes as number) > 0);
    assert.equal(stats.memory_bytes, (stats.index_bytes as number) + (stats.copies_bytes as number));
  });

  test('an NDJSON upload that stalls is stopped with IMPORT_STALLED; the lines before it are written', async () => {
    const body = new PassThrough();
    const lines: LineResult[] = [];
    const answered = postStream(`${base}/api/v1/documents/import?batch_size=1`, token, body, (line) =>
      lines.push(JSON.parse(line) as LineResult),
    );
    // One line, then silence: the client never sends the rest nor ends the body.
    body.write(`${JSON.stringify({ id: 's1', title: 'Sent before the stall' })}\n`);
    assert.equal((await answered).status, 200);
    assert.deepEqual(
      lines.map((l) => [l.line, l.success, l.error?.code]),
      [
        [1, true, undefined],
        [2, false, 'IMPORT_STALLED'],
      ],
    );
    assert.match(lines[1]!.error!.message, /nothing arrived for 200 ms/);
    const written = await fetch(`${base}/api/v1/documents/s1`, { headers: bearer(token) });
    assert.equal(written.status, 200);
  });
});
