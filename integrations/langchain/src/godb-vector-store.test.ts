import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Document } from '@langchain/core/documents';
import { FakeEmbeddings, SyntheticEmbeddings } from '@langchain/core/utils/testing';
import { GoDBClient } from '@godb/client';
import {
  startListeningServer,
  type ListeningServer,
} from '../../../clients/typescript/src/test-support/listening-server.js';
import { toGoDBFilter } from './filter.js';
import { GoDBVectorStore } from './godb-vector-store.js';

const texts = [
  'GoDB stores vectors beside the documents',
  'Hybrid search fuses BM25 and vector scores',
  'The HNSW graph finds nearest neighbours quickly',
  'Snapshots copy a live node consistently',
];
const metadatas = [
  { topic: 'storage', year: 2024 },
  { topic: 'search', year: 2025 },
  { topic: 'search', year: 2023 },
  { topic: 'operations', year: 2025, nested: { team: 'ops' } },
];

describe('GoDBVectorStore against a real server', () => {
  let godb: ListeningServer;
  let client: GoDBClient;
  const embeddings = new SyntheticEmbeddings({ vectorSize: 8 });

  before(async () => {
    godb = await startListeningServer();
    client = new GoDBClient({ url: godb.url });
    await client.login(godb.admin.email, godb.admin.password);
  });
  after(async () => godb.close());

  test('fromTexts creates the collection with the embeddings’ size and finds a text by its own words', async () => {
    const store = await GoDBVectorStore.fromTexts(texts, metadatas, embeddings, { client, collection: 'lc_notes' });
    const collection = await client.collections.get({ name: 'lc_notes' });
    assert.equal(collection.vectors.default?.dimensions, 8);
    assert.equal(collection.vectors.default?.distance, 'cosine');

    const [best] = await store.similaritySearch(texts[2] ?? '', 1);
    assert.equal(best?.pageContent, texts[2]);
    assert.deepEqual(best?.metadata, metadatas[2]);

    const scored = await store.similaritySearchWithScore(texts[3] ?? '', 2);
    assert.equal(scored[0]?.[0].pageContent, texts[3]);
    assert.ok(Math.abs((scored[0]?.[1] ?? 0) - 1) < 1e-3, `an identical vector scores 1, got ${scored[0]?.[1]}`);
    assert.ok((scored[1]?.[1] ?? 1) < (scored[0]?.[1] ?? 0));

    const retrieved = await store.asRetriever({ k: 1 }).invoke(texts[1] ?? '');
    assert.equal(retrieved[0]?.pageContent, texts[1]);
  });

  test('metadata filters: equality, lists, operators, $or, $not, nested keys, and GoDB’s own grammar', async () => {
    const store = new GoDBVectorStore(embeddings, { client, collection: 'lc_notes' });
    const query = texts[0] ?? '';
    const found = async (filter: GoDBVectorStore['FilterType']) =>
      (await store.similaritySearch(query, 10, filter)).map((d) => d.pageContent).sort();
    const sorted = (...indexes: number[]) => indexes.map((i) => texts[i]).sort();

    assert.deepEqual(await found({ topic: 'search' }), sorted(1, 2));
    assert.deepEqual(await found({ topic: ['storage', 'operations'] }), sorted(0, 3));
    assert.deepEqual(await found({ year: { $gte: 2025 } }), sorted(1, 3));
    assert.deepEqual(await found({ topic: 'search', year: { $lt: 2025 } }), sorted(2));
    assert.deepEqual(await found({ $or: [{ topic: 'storage' }, { year: 2023 }] }), sorted(0, 2));
    assert.deepEqual(await found({ $not: { topic: 'search' } }), sorted(0, 3));
    assert.deepEqual(await found({ 'nested.team': 'ops' }), sorted(3));
    assert.deepEqual(
      await found({ must: [{ field: 'metadata.topic', operator: 'ne', value: 'search' }] }),
      sorted(0, 3),
    );
  });

  test('maximal marginal relevance skips a duplicate that plain similarity returns', async () => {
    const store = await GoDBVectorStore.fromTexts(
      [texts[0] ?? '', texts[0] ?? '', texts[1] ?? '', texts[2] ?? ''],
      [{ copy: 1 }, { copy: 2 }, {}, {}],
      embeddings,
      { client, collection: 'lc_mmr' },
    );
    const plain = await store.similaritySearch(texts[0] ?? '', 2);
    assert.deepEqual(
      plain.map((d) => d.pageContent),
      [texts[0], texts[0]],
    );
    const diverse = await store.maxMarginalRelevanceSearch(texts[0] ?? '', { k: 2, fetchK: 4, lambda: 0.2 });
    assert.equal(diverse.length, 2);
    assert.equal(diverse[0]?.pageContent, texts[0]);
    assert.notEqual(diverse[1]?.pageContent, texts[0]);
  });

  test('addDocuments keeps given ids; delete by ids and by filter removes documents for good', async () => {
    const store = new GoDBVectorStore(embeddings, {
      client: { url: godb.url, token: client.token },
      collection: 'lc_del',
    });
    const ids = await store.addDocuments(
      [
        new Document({ pageContent: 'first', metadata: { keep: false } }),
        new Document({ pageContent: 'second', metadata: { keep: true }, id: 'doc-second' }),
        new Document({ pageContent: 'third', metadata: { keep: false } }),
      ],
      { ids: ['doc-first'] },
    );
    // LangChain keeps the constructor's fields for serialisation: they must not hold the token.
    assert.deepEqual(store.lc_kwargs, { collection: 'lc_del', vectorName: 'default' });
    assert.equal(ids[0], 'doc-first');
    assert.equal(ids[1], 'doc-second');
    assert.match(ids[2] ?? '', /^[0-9a-f-]{36}$/);
    assert.equal((await client.documents.count({ primary_table: 'lc_del' })).count, 3);

    await store.delete({ ids: ['doc-first'] });
    assert.equal((await client.documents.count({ primary_table: 'lc_del' })).count, 2);
    await store.delete({ filter: { keep: false } });
    const left = await store.similaritySearch('anything', 10);
    assert.deepEqual(
      left.map((d) => d.id),
      ['doc-second'],
    );
    await assert.rejects(store.delete({}), /ids or a filter/);
  });

  test('fromDocuments with LangChain’s FakeEmbeddings, and addVectors with vectors of your own', async () => {
    const store = await GoDBVectorStore.fromDocuments(
      [new Document({ pageContent: 'fake one', metadata: { n: 1 } })],
      new FakeEmbeddings(),
      { client, collection: 'lc_fake', distance: 'dot' },
    );
    assert.equal((await client.collections.get({ name: 'lc_fake' })).vectors.default?.distance, 'dot');
    await store.addVectors([[0.4, 0.3, 0.2, 0.1]], [new Document({ pageContent: 'own vector', metadata: { n: 2 } })]);
    const hits = await store.similaritySearchVectorWithScore([0.4, 0.3, 0.2, 0.1], 2, { n: 2 });
    assert.equal(hits[0]?.[0].pageContent, 'own vector');
    await assert.rejects(store.addVectors([[1, 2, 3, 4]], []), /one vector per document/);
  });
});

test('toGoDBFilter maps metadata filters and passes GoDB’s grammar through', () => {
  assert.deepEqual(toGoDBFilter({ colour: 'red', year: { $gte: 2020, $lt: 2030 } }), {
    must: [
      { field: 'metadata.colour', operator: 'eq', value: 'red' },
      { field: 'metadata.year', operator: 'gte', value: 2020 },
      { field: 'metadata.year', operator: 'lt', value: 2030 },
    ],
  });
  assert.deepEqual(toGoDBFilter({ $or: [{ a: 1 }, { b: [2, 3] }] }), {
    should: [
      { must: [{ field: 'metadata.a', operator: 'eq', value: 1 }] },
      { must: [{ field: 'metadata.b', operator: 'in', value: [2, 3] }] },
    ],
  });
  const raw = [{ field: 'tags', operator: 'contains' as const, value: 'x' }];
  assert.equal(toGoDBFilter(raw), raw);
  assert.throws(() => toGoDBFilter({ year: { $near: 1 } as never }), /Unknown filter operator \$near/);
});
