import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Metadata, type Client, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { grpcClient, startGrpcTestServer } from '../test-support/grpc.js';
import { startNatsCluster, type NatsCluster } from '../test-support/nats-cluster.js';
import { bearer, type TestServer } from '../test-support/server.js';

type OpenApiPaths = {
  paths: Record<string, { get?: { responses: Record<string, { headers?: Record<string, unknown> }> } }>;
};

// Issue #37 (item 4): with a majority of the NATS servers down, a node goes on answering reads from its copy, and
// says they may be stale: `X-GoDB-Stale: true` on every answer of a read (errors too), `x-godb-stale` in gRPC
// metadata, and `/readyz` says why (`cluster.reads_may_be_stale`, `cluster.stale_because`). When the node is
// current, none of it.

type SearchClient = Client & {
  TextSearch(request: unknown, md: Metadata, cb: (e: ServiceError | null, r: unknown) => void): ClientUnaryCall;
};

interface Readyz {
  status: string;
  cluster: { reads_may_be_stale: boolean; stale_because?: string; stale_shards?: number[] };
}

/** A bound for a broken build, not a timing: JetStream notices a lost majority within seconds. */
const bound = 60_000;

describe('reads marked stale while the node cannot confirm it is current (issue #37)', () => {
  let nats: NatsCluster;
  let node: TestServer;
  let search: SearchClient;
  let token: string;
  const dir = mkdtempSync(join(tmpdir(), 'godb-stale-reads-'));

  before(async () => {
    nats = await startNatsCluster();
    node = await startGrpcTestServer({
      NATS_URL: nats.url,
      NODE_ID: 'a',
      JWT_SECRET: 'a-cluster-wide-secret-of-32-characters-or-more',
      DATA_DIR: dir,
    });
    search = grpcClient<SearchClient>(node, 'SearchService');
    ({ token } = await node.registerTenant());
    const added = await node.app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: bearer(token),
      payload: { id: 'kept', title: 'Wing design', content: 'The wing was written while every NATS server ran.' },
    });
    assert.equal(added.statusCode, 201, added.body);
  });

  after(async () => {
    search?.close();
    await node?.close();
    await nats?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = (url = '/api/v1/documents/kept') => node.app.inject({ method: 'GET', url, headers: bearer(token) });
  const readyz = async () => (await node.app.inject({ method: 'GET', url: '/readyz' })).json() as Readyz;
  /** A gRPC text search's outcome and the x-godb-stale values of its metadata (initial, or an error's trailers). */
  const grpcSearch = () =>
    new Promise<{ ok: boolean; stale: string[] }>((resolve) => {
      const md = new Metadata();
      md.set('authorization', `Bearer ${token}`);
      let stale: string[] = [];
      const call = search.TextSearch({ query: 'wing' }, md, (error) =>
        resolve({ ok: !error, stale: error ? error.metadata.get('x-godb-stale').map(String) : stale }),
      );
      call.on('metadata', (m: Metadata) => (stale = m.get('x-godb-stale').map(String)));
    });
  /** Polls `check` every 250 ms until it holds; answers how long that took. */
  const untilTrue = async (what: string, check: () => Promise<boolean>) => {
    const started = performance.now();
    while (!(await check())) {
      if (performance.now() - started > bound) throw new Error(`${what}: not within ${bound / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return Math.round(performance.now() - started);
  };

  test('a current node marks nothing: no header, no metadata, /readyz says its reads are current', async () => {
    const res = await read();
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['x-godb-stale'], undefined);
    assert.equal((await read('/api/v1/documents/missing')).headers['x-godb-stale'], undefined);
    const ready = await readyz();
    assert.equal(ready.cluster.reads_may_be_stale, false);
    assert.equal(ready.cluster.stale_because, undefined);
    assert.deepEqual(await grpcSearch(), { ok: true, stale: [] });
  });

  test(
    'with two NATS servers of three killed, reads go on marked stale; once they are back, unmarked',
    { timeout: 4 * bound },
    async () => {
      await Promise.all([nats.kill(1), nats.kill(2)]);
      const marked = await untilTrue(
        'a read marked stale',
        async () => (await read()).headers['x-godb-stale'] === 'true',
      );
      process.stdout.write(`# marked stale ${marked} ms after two NATS servers of three were killed\n`);
      const res = await read();
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { document: { title: string } }).document.title, 'Wing design');
      assert.equal(res.headers['x-godb-stale'], 'true');
      // An answer that says a document is missing is as stale as one that finds it.
      const missing = await read('/api/v1/documents/missing');
      assert.equal(missing.statusCode, 404, missing.body);
      assert.equal(missing.headers['x-godb-stale'], 'true');
      // Both answers are declared with the header in the OpenAPI document the node serves.
      const doc = (await node.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as OpenApiPaths;
      const responses = doc.paths['/api/v1/documents/{id}']?.get?.responses ?? {};
      for (const status of ['200', '404']) assert.ok(responses[status]?.headers?.['X-GoDB-Stale'], status);
      // The node stays ready (reads go on) and says why they may be stale.
      const probe = await node.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(probe.statusCode, 200, probe.body);
      const ready = probe.json() as Readyz;
      process.stdout.write(`# /readyz: ${ready.cluster.stale_because ?? ''}\n`);
      assert.equal(ready.cluster.reads_may_be_stale, true);
      assert.match(
        ready.cluster.stale_because ?? '',
        /majority of the NATS servers may be down or out of reach|disconnected from every NATS server/,
      );
      // Which shards first: those whose leader was on a killed server (the others' leaders step down seconds later).
      assert.ok((ready.cluster.stale_shards ?? []).length > 0, JSON.stringify(ready.cluster));
      const grpc = await grpcSearch();
      assert.deepEqual(grpc, { ok: true, stale: ['true'] });
      // A strong read asks for a confirmation the node cannot get: refused rather than answered stale.
      const strong = await node.app.inject({
        method: 'GET',
        url: '/api/v1/documents/kept',
        headers: { ...bearer(token), 'x-godb-consistency': 'strong' },
      });
      assert.equal(strong.statusCode, 503, strong.body);
      assert.equal((strong.json() as { error: { code: string } }).error.code, 'CLUSTER_UNAVAILABLE');

      await Promise.all([nats.restart(1), nats.restart(2)]);
      const unmarked = await untilTrue(
        'a read no longer marked stale',
        async () => (await read()).headers['x-godb-stale'] === undefined,
      );
      process.stdout.write(`# unmarked ${unmarked} ms after they were back\n`);
      // A read depends on the directory's and its tenant's shards, /readyz on every shard: the others may be
      // confirmed a watchdog check later.
      await untilTrue('/readyz no longer saying reads may be stale', async () => {
        return (await readyz()).cluster.reads_may_be_stale === false;
      });
      assert.deepEqual(await grpcSearch(), { ok: true, stale: [] });
    },
  );
});
