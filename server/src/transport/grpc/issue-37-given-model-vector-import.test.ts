import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Metadata, type ClientWritableStream, type ServiceError } from '@grpc/grpc-js';
import { grpcClient, startGrpcTestServer } from '../../test-support/grpc.js';
import type { TestServer } from '../../test-support/server.js';

/**
 * Issue 37 item 5 over gRPC: DocumentService.ImportDocuments stores a vector given for the name the collection's
 * model fills, as REST does, and the model embeds nothing for it.
 */
type Reply = { written: number; failed: number };
type ImportClient = {
  ImportDocuments(md: Metadata, cb: (e: ServiceError | null, r: Reply) => void): ClientWritableStream<unknown>;
  close(): void;
};

let server: TestServer;
let token: string;
let client: ImportClient;

before(async () => {
  server = await startGrpcTestServer();
  token = (await server.registerTenant()).token;
  const created = await server.call('POST', '/api/v1/collections', token, {
    name: 'articles',
    vectors: { text: { model: 'glove-100' } },
  });
  assert.equal(created.status, 201, created.text);
  client = grpcClient<ImportClient>(server, 'DocumentService');
});
after(async () => {
  client.close();
  await server.close();
});

test('ImportDocuments stores a given model vector without embedding, returned under its name', async () => {
  const stats = () => server.engine.embedder.cacheStats();
  const before = stats().hits + stats().misses;
  const vector = Array.from({ length: 100 }, (_v, i) => Math.cos(i * 0.3));
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  const reply = await new Promise<Reply>((resolve, reject) => {
    const stream = client.ImportDocuments(metadata, (error, r) => (error ? reject(error) : resolve(r)));
    const line = {
      id: 'grpc-given',
      primary_table: 'articles',
      content: 'Shock waves heat the gas.',
      vectors: { text: vector },
    };
    stream.write({ line: JSON.stringify(line) });
    stream.write({ line: JSON.stringify({ ...line, id: 'grpc-short', vectors: { text: [1, 2] } }) });
    stream.end();
  });
  assert.deepEqual([reply.written, reply.failed], [1, 1]);
  assert.equal(stats().hits + stats().misses, before, 'no text was embedded');
  const got = await server.call('GET', '/api/v1/documents/grpc-given?include_embeddings=true', token);
  const named = (got.body.document as { named_vectors: Record<string, { source: string; vector: number[] }> })
    .named_vectors;
  assert.equal(named.text?.source, 'given');
  assert.deepEqual(named.text?.vector, Array.from(Float32Array.from(vector)));
});
