import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoDBClient } from './client.js';
import { GoDBError } from './errors.js';
import { startListeningServer, type ListeningServer } from './test-support/listening-server.js';

/** A fetch that records the status of every answer, so a test can see the retries a call made. */
function recordingFetch() {
  const statuses: number[] = [];
  const attempts: string[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    attempts.push(`${init?.method ?? 'GET'} ${String(input)}`);
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return { fetch: wrapped, statuses, attempts };
}

const rejectsWith = async (promise: Promise<unknown>): Promise<GoDBError> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof GoDBError, `expected a GoDBError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
};

describe('GoDB client against a real server', () => {
  let godb: ListeningServer;
  let client: GoDBClient;

  before(async () => {
    godb = await startListeningServer();
    client = new GoDBClient({ url: godb.url });
    await client.login(godb.admin.email, godb.admin.password);
  });
  after(async () => godb.close());

  test('login keeps the token; an API key authenticates another client', async () => {
    assert.match(client.token ?? '', /^ey/);
    const created = await client.auth.createApiKey({ name: 'client test' });
    assert.match(created.key, /^godb_/);

    const byKey = new GoDBClient({ url: godb.url, apiKey: created.key });
    const keys = await byKey.auth.listApiKeys();
    assert.ok(keys.keys.some((k) => k.name === 'client test'));

    await client.auth.revokeApiKey({ keyID: created.id });
    const revoked = await rejectsWith(byKey.auth.listApiKeys());
    assert.equal(revoked.code, 'UNAUTHORIZED');
    assert.equal(revoked.status, 401);
  });

  test('collections, documents with their own vectors, and a vector search, typed end to end', async () => {
    const collection = await client.collections.create({
      name: 'client_products',
      vectors: { default: { dimensions: 3, distance: 'cosine' } },
    });
    assert.equal(collection.vectors.default?.dimensions, 3);

    const added = await client.documents.add({
      id: 'red-shoe',
      title: 'Red shoe',
      primary_table: 'client_products',
      vector: [0.9, 0.1, 0],
      metadata: { colour: 'red' },
    });
    assert.equal(added.document_id, 'red-shoe');
    const batch = await client.documents.batchAdd({
      body: [
        { id: 'blue-shoe', title: 'Blue shoe', primary_table: 'client_products', vector: [0, 1, 0] },
        { id: 'green-hat', title: 'Green hat', primary_table: 'client_products', vector: [0, 0, 1] },
      ],
    });
    assert.equal(batch.count, 2);

    const { document } = await client.documents.get({ id: 'red-shoe', include_metadata: true });
    assert.equal(document.title, 'Red shoe');

    const found = await client.search.vector({ primary_table: 'client_products', vector: [1, 0, 0], threshold: 0 });
    assert.equal(found.results[0]?.document_id, 'red-shoe');

    const counted = await client.documents.count({ primary_table: 'client_products' });
    assert.equal(counted.count, 3);
    const removed = await client.documents.deleteMany({
      primary_table: 'client_products',
      filter: { must: [{ field: 'id', operator: 'eq', value: 'green-hat' }] },
    });
    assert.equal(removed.deleted, 1);
  });

  test('an error answer becomes a GoDBError with the catalogue code, status, field and request id', async () => {
    const missing = await rejectsWith(client.collections.get({ name: 'no_such_collection' }));
    assert.equal(missing.code, 'NOT_FOUND');
    assert.equal(missing.status, 404);
    assert.match(missing.requestId ?? '', /\S/);
    assert.match(missing.message, /no_such_collection/);

    const invalid = await rejectsWith(
      client.documents.add({ title: 'x', chunk_size: -1 } as Parameters<typeof client.documents.add>[0]),
    );
    assert.equal(invalid.code, 'VALIDATION_FAILED');
    assert.equal(invalid.status, 400);
    assert.equal(invalid.field, 'body.chunk_size');
  });

  test('a missing path parameter fails before anything is sent', async () => {
    const error = await rejectsWith(client.documents.get({ id: '' }));
    assert.equal(error.code, 'MISSING_PATH_PARAM');
    assert.equal(error.field, 'params.id');
  });

  test('NDJSON import streams a generator, reports progress and answers which lines failed', async () => {
    await client.collections.create({ name: 'client_import', vectors: { v: { dimensions: 2 } } });
    async function* documents() {
      for (let i = 0; i < 300; i += 1) {
        yield { id: `imp-${i}`, title: `Imported ${i}`, primary_table: 'client_import', vectors: { v: [1, i] } };
      }
      yield { id: 'imp-bad', primary_table: 'client_import', vectors: { v: [1, 2, 3] } };
    }
    const progress: { linesAnswered: number; bytesSent: number }[] = [];
    const summary = await client.documents.import(documents(), {
      batch_size: 50,
      onProgress: (p) => progress.push(p),
    });
    assert.equal(summary.lines, 301);
    assert.equal(summary.written, 300);
    assert.equal(summary.failed, 1);
    assert.equal(summary.failures[0]?.line, 301);
    assert.equal(summary.documentIds[0], 'imp-0');
    assert.equal(progress.at(-1)?.linesAnswered, 301);
    assert.ok(progress.some((p) => p.bytesSent > 0));
    assert.equal((await client.documents.count({ primary_table: 'client_import' })).count, 300);
  });

  test('NDJSON import reads a byte stream as it is', async () => {
    const text = ['{"id":"s1","title":"From a stream"}', '', '{"id":"s2","title":42}'].join('\n');
    const stream = new Blob([text]).stream();
    const summary = await client.documents.import(stream);
    assert.deepEqual(summary.documentIds, ['s1']);
    assert.equal(summary.failures[0]?.error?.field, 'line[3].title');
  });

  test('a binary answer is handed over as the fetch Response', async () => {
    await client.documents.add({
      id: 'with-file',
      title: 'File',
      content: 'hello file',
      content_type: 'text/plain',
      file_content: btoa('hello file'),
    });
    const file = await client.documents.downloadFile({ id: 'with-file' });
    assert.equal(await file.text(), 'hello file');
  });

  test('a tenant snapshot downloads, uploads as raw bytes and restores', async () => {
    const waitFor = async (id: string) => {
      for (;;) {
        const job = await client.jobs.get({ id });
        if (job.status !== 'running' && job.status !== 'queued') return job;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await client.documents.add({ id: 'snapshotted', title: 'Snapshotted', content: 'kept by the snapshot' });
    const started = await client.snapshots.create();
    assert.equal((await waitFor(started.job_id)).status, 'done');
    await client.documents.add({ id: 'after-snapshot', title: 'After', content: 'written after the snapshot' });
    const archive = new Uint8Array(await (await client.snapshots.download({ id: started.snapshot_id })).arrayBuffer());
    await client.snapshots.delete({ id: started.snapshot_id });
    const uploaded = await client.snapshots.upload({ body: archive });
    assert.equal(uploaded.snapshot_id, started.snapshot_id);
    const restoring = await client.snapshots.restore({ snapshot_id: uploaded.snapshot_id });
    assert.equal((await waitFor(restoring.job_id)).status, 'done');
    assert.equal((await client.documents.get({ id: 'snapshotted' })).document.title, 'Snapshotted');
    assert.equal((await rejectsWith(client.documents.get({ id: 'after-snapshot' }))).status, 404);
  });
});

describe('retries, timeouts and aborts', () => {
  test('a 429 is retried after its Retry-After, also for a POST that writes, until it succeeds', async () => {
    // Every request of this server beyond one a second is refused: registering, logging in and writing still work.
    const godb = await startListeningServer({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '1' }, { register: false });
    try {
      const recorder = recordingFetch();
      const client = new GoDBClient({ url: godb.url, fetch: recorder.fetch });
      const account = { email: 'limited@example.com', password: 'password-1234' };
      await client.auth.register({ ...account, tenant_id: randomUUID() });
      await client.login(account.email, account.password);
      const created = await client.collections.create({ name: 'a_limited' });
      const second = await client.collections.create({ name: 'b_limited' });
      assert.deepEqual([created.name, second.name], ['a_limited', 'b_limited']);
      assert.ok(recorder.statuses.includes(429), `statuses ${recorder.statuses.join(',')}`);
      assert.equal(recorder.statuses.at(-1), 201);
      const token = client.token;

      const once = new GoDBClient({ url: godb.url, token, retry: false });
      await once.collections.list().catch(() => undefined);
      const refused = await rejectsWith(once.collections.list());
      assert.equal(refused.code, 'RATE_LIMITED');
      assert.equal(refused.status, 429);
      assert.ok((refused.retryAfter ?? 0) > 0);

      // A Retry-After longer than maxDelayMs is not waited for: the caller hears at once.
      const impatient = new GoDBClient({ url: godb.url, token, retry: { maxDelayMs: 10 } });
      await impatient.collections.list().catch(() => undefined);
      assert.equal((await rejectsWith(impatient.collections.list())).code, 'RATE_LIMITED');
    } finally {
      await godb.close();
    }
  });

  test('a 503 OVERLOADED refused before any work is retried for a write once a slot frees', async () => {
    const godb = await startListeningServer({ MAX_CONCURRENT_OPERATIONS: '1' });
    try {
      const client = new GoDBClient({ url: godb.url, token: godb.admin.token });
      // An import whose source waits holds the only slot in flight until it is released.
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      async function* held() {
        yield { id: 'held', title: 'Held' };
        await released;
      }
      // Its first line answered, the import is in flight on the server, waiting for more.
      let answered = () => {};
      const firstLine = new Promise<void>((resolve) => (answered = resolve));
      const importing = client.documents.import(held(), {
        batch_size: 1,
        onProgress: (p) => {
          if (p.linesAnswered === 1) answered();
        },
      });
      await firstLine;

      const statuses: number[] = [];
      const writer = new GoDBClient({
        url: godb.url,
        token: godb.admin.token,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          if (response.status === 503) release();
          return response;
        },
      });
      const created = await writer.collections.create({ name: 'after_overload' });
      assert.equal(created.name, 'after_overload');
      assert.deepEqual(statuses, [503, 201]);
      assert.equal((await importing).written, 1);
    } finally {
      await godb.close();
    }
  });

  test('a network failure is retried for a read, and surfaces as NETWORK_ERROR', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const recorder = recordingFetch();
    const client = new GoDBClient({
      url: `http://127.0.0.1:${port}`,
      fetch: recorder.fetch,
      retry: { retries: 2, baseDelayMs: 1 },
    });
    const read = await rejectsWith(client.collections.list());
    assert.equal(read.code, 'NETWORK_ERROR');
    assert.equal(read.status, 0);
    assert.equal(recorder.attempts.length, 3);

    recorder.attempts.length = 0;
    const write = await rejectsWith(client.collections.create({ name: 'never' }));
    assert.equal(write.code, 'NETWORK_ERROR');
    assert.equal(recorder.attempts.length, 1, 'a write that may have reached the server is not sent twice');
  });

  describe('against a server that never answers', () => {
    let silent: Server;
    let url: string;
    before(async () => {
      silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    after(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });

    test('timeoutMs gives up with CLIENT_TIMEOUT', async () => {
      const client = new GoDBClient({ url, timeoutMs: 50 });
      const error = await rejectsWith(client.collections.list());
      assert.equal(error.code, 'CLIENT_TIMEOUT');
      assert.match(error.message, /GET \/api\/v1\/collections within 50 ms/);
    });

    test('an AbortSignal aborts the call with its reason', async () => {
      const client = new GoDBClient({ url, timeoutMs: 0 });
      const controller = new AbortController();
      const call = client.collections.list({}, { signal: controller.signal });
      const reason = new Error('user went away');
      controller.abort(reason);
      await assert.rejects(call, (error) => error === reason);
    });
  });
});
