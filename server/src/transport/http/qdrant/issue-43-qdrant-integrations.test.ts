import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Embeddings } from '@langchain/core/embeddings';
import { Document } from '@langchain/core/documents';
import { QdrantVectorStore as LangChainQdrant } from '@langchain/qdrant';
import { QdrantVectorStore as LlamaIndexQdrant } from '@llamaindex/qdrant';
import { NodeRelationship, TextNode } from '@llamaindex/core/schema';
import { VectorStoreQueryMode } from '@llamaindex/core/vector-store';
import { BaseEmbedding } from '@llamaindex/core/embeddings';
import { startTestServer, type TestServer } from '../../../test-support/server.js';
import { freePort, tenantWithKey } from '../../../test-support/qdrant-points.js';
import { hashEmbedding } from '../../../test-support/hashing-embedder.js';

// Issue #43: third-party integrations written for Qdrant, unmodified, pointed at GoDB's Qdrant-compatible port.

/** LangChain's Embeddings over the deterministic hashing embedder. */
class HashingEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => hashEmbedding(t));
  }
  async embedQuery(text: string): Promise<number[]> {
    return hashEmbedding(text);
  }
}

/** LlamaIndex's BaseEmbedding over the same embedder (a vector store needs one even when nodes carry vectors). */
class HashingEmbedding extends BaseEmbedding {
  // BaseEmbedding's constructor is protected: this one makes the class constructible.
  // eslint-disable-next-line @typescript-eslint/no-useless-constructor
  constructor() {
    super();
  }
  async getTextEmbedding(text: string): Promise<number[]> {
    return hashEmbedding(text);
  }
}

const texts = [
  { text: 'cats purr and sleep in the sun', source: 'pets', year: 2021 },
  { text: 'dogs bark at the mail carrier', source: 'pets', year: 2022 },
  { text: 'cats chase mice at night', source: 'wild', year: 2023 },
  { text: 'the stock market fell on monday', source: 'news', year: 2023 },
  { text: 'rain is expected over the weekend', source: 'news', year: 2024 },
];

let server: TestServer;
let url: string;
let key: string;

before(async () => {
  const port = await freePort();
  server = await startTestServer({ QDRANT_COMPAT_PORT: String(port), HOST: '127.0.0.1' });
  url = `http://127.0.0.1:${port}`;
  key = (await tenantWithKey(server)).key;
});
after(async () => {
  await server.close();
});

describe('@langchain/qdrant QdrantVectorStore', () => {
  test('addDocuments, similaritySearch with a filter, delete', async () => {
    const store = new LangChainQdrant(new HashingEmbeddings(), { url, apiKey: key, collectionName: 'langchain' });
    const docs = texts.map(
      ({ text, source, year }) => new Document({ id: randomUUID(), pageContent: text, metadata: { source, year } }),
    );
    await store.addDocuments(docs);
    const all = await store.similaritySearch('cats', 2);
    assert.deepEqual(all.map((d) => d.pageContent).sort(), [
      'cats chase mice at night',
      'cats purr and sleep in the sun',
    ]);
    const filtered = await store.similaritySearchWithScore('cats', 3, {
      must: [{ key: 'metadata.source', match: { value: 'pets' } }],
    });
    assert.equal(filtered[0]![0].pageContent, 'cats purr and sleep in the sun');
    assert.deepEqual(filtered[0]![0].metadata, { source: 'pets', year: 2021 });
    assert.equal(filtered[0]![0].id, docs[0]!.id);
    assert.ok(filtered.every(([d]) => d.metadata.source === 'pets'));
    const scores = filtered.map(([, s]) => s);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    await store.delete({ ids: [docs[0]!.id!] });
    const after = await store.similaritySearch('cats purr and sleep in the sun', 5);
    assert.ok(!after.some((d) => d.id === docs[0]!.id));
    assert.equal(after.length, 4);
    await store.delete({ filter: { must: [{ key: 'metadata.source', match: { value: 'news' } }] } });
    assert.equal((await store.similaritySearch('market rain', 5)).length, 2);
    // MMR runs on GoDB's query pipeline (decision 0063): k documents, the most similar first, none repeated.
    const nearestFirst = await store.similaritySearch('cats', 1);
    const diverse = await store.maxMarginalRelevanceSearch('cats', { k: 2, fetchK: 4 });
    assert.equal(diverse.length, 2);
    assert.equal(diverse[0]!.id, nearestFirst[0]!.id);
    assert.notEqual(diverse[1]!.id, diverse[0]!.id);
  });
});

describe('@llamaindex/qdrant QdrantVectorStore', () => {
  test('add nodes, query with metadata filters, delete by document', async () => {
    const store = new LlamaIndexQdrant({
      url,
      apiKey: key,
      collectionName: 'llamaindex',
      embedModel: new HashingEmbedding(),
    });
    // Nodes of two source documents: doc-0 (texts 0, 2, 4) and doc-1 (texts 1, 3).
    const built = texts.map(
      ({ text, source, year }, i) =>
        new TextNode({
          id_: randomUUID(),
          text,
          metadata: { source, year },
          embedding: hashEmbedding(text),
          relationships: { [NodeRelationship.SOURCE]: { nodeId: `doc-${i % 2}`, metadata: {} } },
        }),
    );
    const ids = await store.add(built);
    assert.deepEqual(
      ids,
      built.map((n) => n.id_),
    );
    const answer = await store.query({
      queryEmbedding: hashEmbedding('cats'),
      similarityTopK: 2,
      mode: VectorStoreQueryMode.DEFAULT,
    });
    assert.deepEqual(answer.nodes!.map((n) => (n as TextNode).text).sort(), [
      'cats chase mice at night',
      'cats purr and sleep in the sun',
    ]);
    const filtered = await store.query({
      queryEmbedding: hashEmbedding('cats'),
      similarityTopK: 3,
      mode: VectorStoreQueryMode.DEFAULT,
      filters: { filters: [{ key: 'source', value: 'pets', operator: '==' }] },
    });
    assert.equal((filtered.nodes![0] as TextNode).text, 'cats purr and sleep in the sun');
    assert.ok(filtered.nodes!.every((n) => n.metadata.source === 'pets'));
    const recent = await store.query({
      queryEmbedding: hashEmbedding('cats'),
      similarityTopK: 5,
      mode: VectorStoreQueryMode.DEFAULT,
      filters: { filters: [{ key: 'year', value: 2023, operator: '>=' }] },
    });
    assert.deepEqual(recent.nodes!.map((n) => n.metadata.year).sort(), [2023, 2023, 2024]);
    await store.delete('doc-0');
    const left = await store.query({
      queryEmbedding: hashEmbedding('cats'),
      similarityTopK: 5,
      mode: VectorStoreQueryMode.DEFAULT,
    });
    assert.deepEqual(left.nodes!.map((n) => (n as TextNode).text).sort(), [
      'dogs bark at the mail carrier',
      'the stock market fell on monday',
    ]);
  });
});
