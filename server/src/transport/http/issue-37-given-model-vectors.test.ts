import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById } from '@godb/contract';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';
import { validateJson } from '../../service/validation.js';

/**
 * Issue 37 items 5 and 6: a document may carry its own vector for a name its collection's model fills (the model is
 * then skipped), by add, batch, NDJSON import and PATCH (gRPC ImportDocuments: transport/grpc); and GET with include_embeddings returns every
 * stored vector under its collection vector name, model-filled ones included, each saying its source.
 */
type Named = Record<string, { source: string; model?: string; vector?: number[]; chunks?: { chunk_id: string }[] }>;
type Doc = {
  named_vectors?: Named;
  vectors?: Record<string, number[]>;
  embeddings: { chunk_id: string; model: string }[];
  processed_by?: string[];
};

let server: TestServer;
let token: string;

/** 100 numbers (glove-100's size), a different direction for each seed. */
const vector100 = (seed: number) => Array.from({ length: 100 }, (_v, i) => Math.sin(seed * 7.1 + i * 0.37));
/** Content long enough for three chunks of 64 characters. */
const content = 'Shock waves form ahead of a blunt body in supersonic flow, and heat the gas behind them.';

/** Texts the embedder has embedded (or found in its cache) so far. */
const embedded = () => {
  const stats = server.engine.embedder.cacheStats();
  return stats.hits + stats.misses;
};

const getDoc = async (id: string): Promise<Doc> => {
  const res = await server.call('GET', `/api/v1/documents/${id}?include_embeddings=true&include_chunks=true`, token);
  assert.equal(res.status, 200, res.text);
  validateJson(operationById('get-document').success.schema, res.body, 'response');
  return res.body.document as Doc;
};

const add = (body: Record<string, unknown>) =>
  server.call('POST', '/api/v1/documents', token, {
    primary_table: 'articles',
    chunk_size: 64,
    chunk_overlap: 0,
    ...body,
  });

before(async () => {
  server = await startTestServer();
  token = (await server.registerTenant()).token;
  const created = await server.call('POST', '/api/v1/collections', token, {
    name: 'articles',
    vectors: { text: { model: 'glove-100' }, image: { dimensions: 4 } },
  });
  assert.equal(created.status, 201, created.text);
  // The model is loaded once here, so that later counts see only what each write embeds.
  const filled = await add({ id: 'filled', content });
  assert.equal(filled.status, 201, filled.text);
});
after(() => server.close());

describe('a vector given for the model’s name', () => {
  test('is stored, the model is skipped, and it is returned under its name as given', async () => {
    const before = embedded();
    const res = await add({ id: 'given', content, vectors: { text: vector100(1), image: [1, 0, 0, 0] } });
    assert.equal(res.status, 201, res.text);
    assert.equal(embedded(), before, 'no text was embedded');

    const doc = await getDoc('given');
    assert.deepEqual(doc.named_vectors, {
      text: { source: 'given', model: 'glove-100', vector: Array.from(Float32Array.from(vector100(1))) },
      image: { source: 'given', vector: [1, 0, 0, 0] },
    });
    assert.deepEqual(Object.keys(doc.vectors ?? {}).sort(), ['image', 'text']);
    // One vector for the whole document, carried by its first chunk in the model's index.
    assert.deepEqual(
      doc.embeddings.map((e) => [e.chunk_id, e.model]),
      [['given#0', 'glove-100']],
    );
    assert.equal(doc.processed_by, undefined);
    const plain = await server.call('GET', '/api/v1/documents/given', token);
    assert.equal((plain.body.document as Doc).processed_by, undefined, 'the model did not process it');
    assert.equal((plain.body.document as Doc).named_vectors, undefined);
  });

  test('is found by a vector search of that name', async () => {
    const res = await server.call('POST', '/api/v1/search/vector', token, {
      primary_table: 'articles',
      vector_name: 'text',
      vector: vector100(1),
      threshold: 0,
    });
    assert.equal(res.status, 200, res.text);
    const [first] = res.body.results as { document_id: string; score: number }[];
    assert.equal(first?.document_id, 'given');
    assert.ok(first.score > 0.99, String(first.score));
  });

  test('must have the model’s dimensions, and is one per document', async () => {
    const short = await add({ vectors: { text: [1, 2, 3] } });
    assert.equal(short.status, 400);
    assert.equal(short.body.error?.code, 'INVALID_VECTOR_FORMAT');
    assert.equal(short.body.error?.field, 'body.vectors.text');
    assert.equal(
      short.body.error?.message,
      'Invalid vector format: body.vectors.text has 3 numbers but vector "text" of collection articles has 100 dimensions (model glove-100)',
    );
    const zero = await add({ vectors: { text: new Array(100).fill(0) } });
    assert.equal(zero.status, 400);
    assert.match(zero.body.error?.message ?? '', /zero vector/);
  });

  test('a document a model filled shows its chunk vectors under the name, labelled model', async () => {
    const doc = await getDoc('filled');
    const text = doc.named_vectors?.text;
    assert.equal(text?.source, 'model');
    assert.equal(text?.model, 'glove-100');
    assert.deepEqual(
      text?.chunks?.map((c) => c.chunk_id),
      doc.embeddings.map((e) => e.chunk_id),
    );
    assert.ok((text?.chunks?.length ?? 0) > 1, 'the content is chunked');
    assert.deepEqual(doc.processed_by, ['glove-100']);
  });
});

describe('updates and imports go the same way', () => {
  test('PATCH keeps a given vector through a title change and can give one to a model-filled document', async () => {
    const before = embedded();
    const retitled = await server.call('PATCH', '/api/v1/documents/given', token, { title: 'A new title' });
    assert.equal(retitled.status, 200, retitled.text);
    assert.equal(embedded(), before, 'the given vector is not re-embedded');
    assert.equal((await getDoc('given')).named_vectors?.text?.source, 'given');

    const replaced = await server.call('PATCH', '/api/v1/documents/filled', token, { vectors: { text: vector100(2) } });
    assert.equal(replaced.status, 200, replaced.text);
    const doc = await getDoc('filled');
    assert.equal(doc.named_vectors?.text?.source, 'given');
    assert.equal(doc.embeddings.length, 1);
    assert.equal(embedded(), before);
  });

  test('a batch and an NDJSON import store given model vectors without embedding', async () => {
    const before = embedded();
    const batch = await server.call('POST', '/api/v1/documents/batch', token, [
      { id: 'batch-given', primary_table: 'articles', content, vectors: { text: vector100(3) } },
    ]);
    assert.equal(batch.status, 200, batch.text);
    const imported = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents/import',
      headers: { ...bearer(token), 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify({ id: 'ndjson-given', primary_table: 'articles', content, vectors: { text: vector100(4) } })}\n`,
    });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.match(imported.body, /"success":true/);
    assert.equal(embedded(), before);
    for (const id of ['batch-given', 'ndjson-given'])
      assert.equal((await getDoc(id)).named_vectors?.text?.source, 'given', id);
  });

  test('in an implicit collection, the vector named after the model is the model’s', async () => {
    const first = await server.call('POST', '/api/v1/documents', token, {
      id: 'implicit-given',
      primary_table: 'implicit-articles',
      content,
      embedding_options: { model_name: 'glove-100' },
      vectors: { 'glove-100': vector100(6) },
    });
    assert.equal(first.status, 201, first.text);
    const doc = await getDoc('implicit-given');
    assert.deepEqual(doc.named_vectors?.['glove-100']?.source, 'given');
    const info = await server.call('GET', '/api/v1/collections/implicit-articles', token);
    assert.equal((info.body.vectors as Record<string, { model?: string }>)['glove-100']?.model, 'glove-100');
  });
});
