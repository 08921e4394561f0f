import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Metadata,
  status,
  type Client,
  type ClientUnaryCall,
  type ClientWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { grpcClient, startGrpcTestServer } from '../../test-support/grpc.js';
import { startNatsCluster, type NatsCluster } from '../../test-support/nats-cluster.js';
import type { TestServer } from '../../test-support/server.js';

// Issue #17: cluster mode's read options over gRPC, as REST has them in headers. An answer's initial metadata
// carries `x-godb-seq` (how far the answering node had applied the shards the answer depends on, `0:17,5:42`; for a
// write, at least the write's own operation); a call with `x-godb-min-seq: <token>` waits until its node applied it, `x-godb-consistency: strong` until
// it applied everything the log held; a bad value is INVALID_ARGUMENT whose godb-field trailer names the metadata.

interface SearchReply {
  results: { document_id: string }[];
}
type SearchClient = Client & {
  TextSearch(request: unknown, md: Metadata, cb: (e: ServiceError | null, r: SearchReply) => void): ClientUnaryCall;
};
type DocumentClient = Client & {
  ImportDocuments(
    md: Metadata,
    cb: (e: ServiceError | null, r: { written: number }) => void,
  ): ClientWritableStream<unknown>;
};

const metadataOf = (values: Record<string, string>) => {
  const md = new Metadata();
  for (const [name, value] of Object.entries(values)) md.set(name, value);
  return md;
};

/** Resolves with the answer and the initial metadata the server sent with it. */
function answered<T>(
  start: (cb: (e: ServiceError | null, r: T) => void) => ClientUnaryCall | ClientWritableStream<unknown>,
): Promise<{ reply: T; seq: string | undefined }> {
  let seq: string | undefined;
  return new Promise((resolve, reject) => {
    const call = start((error, reply) => (error ? reject(error) : resolve({ reply, seq })));
    call.on('metadata', (md: Metadata) => {
      seq = md.get('x-godb-seq')[0]?.toString();
    });
  });
}

/** An x-godb-seq token (`0:17,5:42`) as shard → sequence. */
const shardSeqs = (token: string): Record<number, number> =>
  Object.fromEntries(token.split(',').map((pair) => pair.split(':').map(Number) as [number, number]));

describe('cluster read options over gRPC metadata (issue #17)', () => {
  let nats: NatsCluster;
  const dirs: string[] = [];
  const nodes: TestServer[] = [];
  const searchClients: SearchClient[] = [];
  const documentClients: DocumentClient[] = [];

  before(async () => {
    nats = await startNatsCluster();
    for (const name of ['a', 'b']) {
      const dir = mkdtempSync(join(tmpdir(), `godb-grpc-cluster-${name}-`));
      dirs.push(dir);
      const node = await startGrpcTestServer({
        NATS_URL: nats.url,
        NODE_ID: name,
        JWT_SECRET: 'a-cluster-wide-secret-of-32-characters-or-more',
        DATA_DIR: dir,
      });
      nodes.push(node);
      searchClients.push(grpcClient<SearchClient>(node, 'SearchService'));
      documentClients.push(grpcClient<DocumentClient>(node, 'DocumentService'));
    }
  });

  after(async () => {
    for (const client of [...searchClients, ...documentClients]) client.close();
    await Promise.all(nodes.map((n) => n.close()));
    await nats?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('a write answers x-godb-seq; a search on the other node with x-godb-min-seq or strong finds it', async () => {
    const [a, b] = nodes as [TestServer, TestServer];
    const { token } = await a.registerTenant();
    const auth = { authorization: `Bearer ${token}` };

    const written = await answered<{ written: number }>((cb) => {
      const stream = documentClients[0]!.ImportDocuments(metadataOf(auth), cb);
      stream.write({ line: JSON.stringify({ id: 'over-grpc', title: 'Quokka', content: 'A quokka written on a.' }) });
      stream.end();
      return stream;
    });
    assert.equal(written.reply.written, 1);
    // The token names the directory's shard and the tenant's (`0:17,5:42`), a's place in each after the write.
    const token0 = written.seq ?? '';
    const seqs = shardSeqs(token0);
    const shards = Object.keys(seqs).map(Number);
    assert.ok(shards[0] === 0 && shards.length <= 2, `x-godb-seq ${token0}`); // 1 when the tenant is on shard 0
    for (const shard of shards) assert.ok(seqs[shard]! <= a.cluster!.appliedByShard()[shard]!, token0);

    // Whatever node b has applied so far, these searches wait until it has the write.
    const waits: Record<string, string>[] = [{ 'x-godb-min-seq': token0 }, { 'x-godb-consistency': 'strong' }];
    for (const options of waits) {
      const found = await answered<SearchReply>((cb) =>
        searchClients[1]!.TextSearch({ query: 'quokka' }, metadataOf({ ...auth, ...options }), cb),
      );
      assert.deepEqual(
        found.reply.results.map((r) => r.document_id),
        ['over-grpc'],
        JSON.stringify(options),
      );
      const onB = shardSeqs(found.seq ?? '');
      for (const shard of shards) assert.ok(onB[shard]! >= seqs[shard]!, `node b answered x-godb-seq ${found.seq}`);
    }
    for (const shard of shards) assert.ok(b.cluster!.appliedByShard()[shard]! >= seqs[shard]!);
  });

  test('a bad x-godb-consistency or x-godb-min-seq is INVALID_ARGUMENT naming the metadata', async () => {
    const { token } = await nodes[0]!.registerTenant();
    for (const [name, value] of [
      ['x-godb-consistency', 'eventual'],
      ['x-godb-min-seq', 'soon'],
    ] as const) {
      await assert.rejects(
        answered<SearchReply>((cb) =>
          searchClients[0]!.TextSearch(
            { query: 'quokka' },
            metadataOf({ authorization: `Bearer ${token}`, [name]: value }),
            cb,
          ),
        ),
        (error: ServiceError) => {
          assert.equal(error.code, status.INVALID_ARGUMENT);
          assert.equal(error.metadata.get('godb-error-code')[0], 'VALIDATION_FAILED');
          assert.equal(error.metadata.get('godb-field')[0], `metadata.${name}`);
          return true;
        },
      );
    }
  });
});
