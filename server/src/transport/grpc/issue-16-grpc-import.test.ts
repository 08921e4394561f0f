import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Metadata, status, type ClientWritableStream, type ServiceError } from '@grpc/grpc-js';
import { grpcClient, startGrpcTestServer } from '../../test-support/grpc.js';
import { bearer, type TestServer } from '../../test-support/server.js';

// Issue #16: DocumentService.ImportDocuments streams documents in, one per message, through the NDJSON import's
// use case: the same validation, transactions and per-line results, a bad line never aborting the good ones.

interface ImportReply {
  results: {
    line: number;
    success: boolean;
    document_id?: string;
    error_code?: string;
    error_message?: string;
    field?: string;
  }[];
  written: number;
  failed: number;
}
type ImportClient = {
  ImportDocuments(md: Metadata, cb: (e: ServiceError | null, r: ImportReply) => void): ClientWritableStream<unknown>;
  close(): void;
};

let server: TestServer;
let token: string;
let client: ImportClient;

before(async () => {
  server = await startGrpcTestServer();
  token = (await server.registerTenant()).token;
  const created = await server.app.inject({
    method: 'POST',
    url: '/api/v1/collections',
    headers: bearer(token),
    payload: { name: 'vecs', vectors: { v: { dimensions: 3 } } },
  });
  assert.equal(created.statusCode, 201);
  client = grpcClient<ImportClient>(server, 'DocumentService');
});
after(async () => {
  client?.close();
  await server.close();
});

/** Streams the messages, then ends the stream and resolves with the answer. */
function importDocuments(messages: { line: string; batch_size?: number }[], bearerToken?: string) {
  const metadata = new Metadata();
  if (bearerToken) metadata.set('authorization', `Bearer ${bearerToken}`);
  return new Promise<ImportReply>((resolve, reject) => {
    const stream = client.ImportDocuments(metadata, (error, reply) => (error ? reject(error) : resolve(reply)));
    for (const message of messages) stream.write(message);
    stream.end();
  });
}

test('ImportDocuments writes each good line and answers each bad one with its line and field', async () => {
  const reply = await importDocuments(
    [
      { line: JSON.stringify({ id: 'g1', title: 'First', content: 'Streamed over gRPC.' }), batch_size: 2 },
      { line: '{"id": "g2", "title": ' },
      { line: JSON.stringify({ id: 'g3', primary_table: 'vecs', vectors: { v: [1, 0, 0] } }, null, 2) },
      { line: JSON.stringify({ id: 'g4', primary_table: 'vecs', vectors: { v: [1, 0] } }) },
      { line: JSON.stringify({ id: 'g5', title: 42 }) },
      { line: JSON.stringify({ id: 'g6', title: 'Last' }) },
    ],
    token,
  );
  assert.deepEqual(
    reply.results.map((r) => [r.line, r.success, r.document_id ?? r.error_code]),
    [
      [1, true, 'g1'],
      [2, false, 'INVALID_JSON_BODY'],
      [3, true, 'g3'],
      [4, false, 'INVALID_VECTOR_FORMAT'],
      [5, false, 'VALIDATION_FAILED'],
      [6, true, 'g6'],
    ],
  );
  assert.equal(reply.results[4]!.field, 'line[5].title');
  assert.deepEqual([reply.written, reply.failed], [3, 3]);
  for (const id of ['g1', 'g3', 'g6']) {
    const res = await server.app.inject({ method: 'GET', url: `/api/v1/documents/${id}`, headers: bearer(token) });
    assert.equal(res.statusCode, 200, id);
  }
});

test('ImportDocuments without credentials is UNAUTHENTICATED, and writes nothing', async () => {
  await assert.rejects(
    importDocuments([{ line: JSON.stringify({ id: 'anon', title: 'x' }) }]),
    (error: ServiceError) => {
      assert.equal(error.code, status.UNAUTHENTICATED);
      return true;
    },
  );
  const res = await server.app.inject({ method: 'GET', url: '/api/v1/documents/anon', headers: bearer(token) });
  assert.equal(res.statusCode, 404);
});
