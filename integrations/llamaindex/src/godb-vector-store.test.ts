import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BaseEmbedding,
  Document,
  MetadataMode,
  Settings,
  SimpleVectorStore,
  VectorStoreIndex,
  VectorStoreQueryMode,
  storageContextFromDefaults,
  type MetadataFilters,
  type NodeWithScore,
} from 'llamaindex';
import { GoDBClient } from '@godb/client';
import {
  startListeningServer,
  type ListeningServer,
} from '../../../clients/typescript/src/test-support/listening-server.js';
import { GoDBVectorStore } from './godb-vector-store.js';

/**
 * A deterministic embedding model: each word hashed (FNV-1a) into one of 64 buckets, the counts normalised, so texts
 * sharing words are near. A real LlamaIndex BaseEmbedding, run by LlamaIndex's own pipeline.
 */
class HashingEmbedding extends BaseEmbedding {
  static readonly dimensions = 64;
  // BaseEmbedding’s constructor is protected: `public` makes this one usable.
  public constructor() {
    super();
  }
  getTextEmbedding(text: string): Promise<number[]> {
    const vector = new Array<number>(HashingEmbedding.dimensions).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      let hash = 0x811c9dc5;
      for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
      vector[hash % HashingEmbedding.dimensions] = (vector[hash % HashingEmbedding.dimensions] ?? 0) + 1;
    }
    const norm = Math.hypot(...vector) || 1;
    return Promise.resolve(vector.map((v) => v / norm));
  }
}

const documents = () => [
  new Document({
    id_: 'doc-storage',
    text: 'GoDB stores vectors beside the documents on disk',
    metadata: { topic: 'storage', year: 2024, tags: ['disk', 'wal'], owner: 'Ana' },
  }),
  new Document({
    id_: 'doc-hybrid',
    text: 'GoDB hybrid search fuses BM25 keyword scores with vector scores',
    metadata: { topic: 'search', year: 2025, tags: ['bm25', 'vectors'], owner: 'Ben Stone' },
  }),
  new Document({
    id_: 'doc-hnsw',
    text: 'GoDB walks the HNSW graph to find nearest neighbours quickly',
    metadata: { topic: 'search', year: 2023, tags: ['vectors'], owner: '' },
  }),
  new Document({
    id_: 'doc-ops',
    text: 'GoDB snapshots copy a live node consistently for operations teams',
    metadata: { topic: 'operations', year: 2025, tags: ['backup'] },
  }),
];

const refDocs = (nodes: NodeWithScore[]) => nodes.map((n) => n.node.sourceNode?.nodeId).sort();
const textOf = (result: NodeWithScore | undefined) => result?.node.getContent(MetadataMode.NONE);

describe('GoDBVectorStore in LlamaIndex’s VectorStoreIndex flow, against a real server', () => {
  let godb: ListeningServer;
  let client: GoDBClient;
  let index: VectorStoreIndex;
  let vectorStore: GoDBVectorStore;

  before(async () => {
    Settings.embedModel = new HashingEmbedding();
    godb = await startListeningServer();
    client = new GoDBClient({ url: godb.url });
    await client.login(godb.admin.email, godb.admin.password);
    vectorStore = new GoDBVectorStore({ client, collection: 'li_notes' });
    index = await VectorStoreIndex.fromDocuments(documents(), {
      storageContext: await storageContextFromDefaults({ vectorStore }),
    });
  });
  after(async () => godb.close());

  test('fromDocuments creates the collection and stores each node as a GoDB document', async () => {
    const collection = await client.collections.get({ name: 'li_notes' });
    assert.equal(collection.vectors.default?.dimensions, HashingEmbedding.dimensions);
    assert.equal(collection.vectors.default?.distance, 'cosine');
    const { documents: stored } = await client.documents.scroll({ primary_table: 'li_notes', limit: 10 });
    assert.equal(stored.length, 4);
    const hybrid = stored.find((d) => d.metadata?.ref_doc_id === 'doc-hybrid');
    assert.equal(hybrid?.content, 'GoDB hybrid search fuses BM25 keyword scores with vector scores');
    assert.equal(hybrid?.metadata?.topic, 'search');
  });

  test('asRetriever().retrieve finds a node by its own words, with its text, metadata and source document', async () => {
    const [best, second] = await index.asRetriever({ similarityTopK: 2 }).retrieve('HNSW graph nearest neighbours');
    assert.equal(textOf(best), 'GoDB walks the HNSW graph to find nearest neighbours quickly');
    assert.deepEqual(best?.node.metadata, { topic: 'search', year: 2023, tags: ['vectors'], owner: '' });
    assert.equal(best?.node.sourceNode?.nodeId, 'doc-hnsw');
    assert.ok((best?.score ?? 0) > (second?.score ?? 1), 'the best match scores highest');
  });

  test('fromVectorStore opens the existing collection in a new index', async () => {
    const reopened = await VectorStoreIndex.fromVectorStore(new GoDBVectorStore({ client, collection: 'li_notes' }));
    const [best] = await reopened.asRetriever({ similarityTopK: 1 }).retrieve('snapshots of a live node');
    assert.equal(best?.node.sourceNode?.nodeId, 'doc-ops');
  });

  test('metadata filters give what LlamaIndex’s own SimpleVectorStore gives on the same documents', async () => {
    // The reference: the same documents in LlamaIndex's in-memory store, which applies the filters itself.
    const reference = await VectorStoreIndex.fromDocuments(documents(), {
      storageContext: await storageContextFromDefaults({ vectorStore: new SimpleVectorStore() }),
    });
    const cases: [MetadataFilters, string[]][] = [
      [{ filters: [{ key: 'topic', operator: '==', value: 'search' }] }, ['doc-hnsw', 'doc-hybrid']],
      [{ filters: [{ key: 'topic', operator: '!=', value: 'search' }] }, ['doc-ops', 'doc-storage']],
      [{ filters: [{ key: 'year', operator: '>', value: 2024 }] }, ['doc-hybrid', 'doc-ops']],
      [{ filters: [{ key: 'year', operator: '>=', value: 2024 }] }, ['doc-hybrid', 'doc-ops', 'doc-storage']],
      [{ filters: [{ key: 'year', operator: '<', value: 2024 }] }, ['doc-hnsw']],
      [{ filters: [{ key: 'year', operator: '<=', value: 2024 }] }, ['doc-hnsw', 'doc-storage']],
      [{ filters: [{ key: 'topic', operator: 'in', value: ['storage', 'operations'] }] }, ['doc-ops', 'doc-storage']],
      [{ filters: [{ key: 'topic', operator: 'nin', value: ['storage', 'operations'] }] }, ['doc-hnsw', 'doc-hybrid']],
      [{ filters: [{ key: 'tags', operator: 'contains', value: 'vectors' }] }, ['doc-hnsw', 'doc-hybrid']],
      [{ filters: [{ key: 'tags', operator: 'any', value: ['wal', 'backup'] }] }, ['doc-ops', 'doc-storage']],
      [{ filters: [{ key: 'tags', operator: 'all', value: ['bm25', 'vectors'] }] }, ['doc-hybrid']],
      [{ filters: [{ key: 'owner', operator: 'text_match', value: 'Stone' }] }, ['doc-hybrid']],
      [{ filters: [{ key: 'owner', operator: 'is_empty' }] }, ['doc-hnsw', 'doc-ops']],
      // A key some nodes lack: they match no operator but is_empty.
      [{ filters: [{ key: 'owner', operator: '!=', value: 'Ana' }] }, ['doc-hnsw', 'doc-hybrid']],
      [
        {
          filters: [
            { key: 'topic', operator: '==', value: 'search' },
            { key: 'year', operator: '>=', value: 2025 },
          ],
          condition: 'and',
        },
        ['doc-hybrid'],
      ],
      [
        {
          filters: [
            { key: 'topic', operator: '==', value: 'storage' },
            { key: 'year', operator: '==', value: 2023 },
          ],
          condition: 'or',
        },
        ['doc-hnsw', 'doc-storage'],
      ],
    ];
    for (const [filters, expected] of cases) {
      const label = JSON.stringify(filters);
      const got = refDocs(await index.asRetriever({ similarityTopK: 10, filters }).retrieve('GoDB'));
      assert.deepEqual(got, expected, label);
      assert.deepEqual(
        refDocs(await reference.asRetriever({ similarityTopK: 10, filters }).retrieve('GoDB')),
        got,
        `SimpleVectorStore agrees on ${label}`,
      );
    }
  });

  test('filters LlamaIndex cannot express in one level nest, as in LlamaIndex Python', async () => {
    const filters = {
      filters: [
        { key: 'year', operator: '==' as const, value: 2025 },
        {
          filters: [
            { key: 'topic', operator: '==' as const, value: 'operations' },
            { key: 'tags', operator: 'contains' as const, value: 'bm25' },
          ],
          condition: 'or' as const,
        },
      ],
      condition: 'and' as const,
    };
    const got = await index
      .asRetriever({ similarityTopK: 10, filters: filters as unknown as MetadataFilters })
      .retrieve('GoDB');
    assert.deepEqual(refDocs(got), ['doc-hybrid', 'doc-ops']);
  });

  test('hybrid mode is GoDB’s hybrid search, alpha and filters included', async () => {
    const query = 'BM25 keyword scores';
    const retriever = index.asRetriever({
      mode: VectorStoreQueryMode.HYBRID,
      similarityTopK: 3,
      customParams: { alpha: 0.5 },
    });
    const results = await retriever.retrieve(query);
    assert.equal(results[0]?.node.sourceNode?.nodeId, 'doc-hybrid');
    const direct = await client.search.hybrid({
      primary_table: 'li_notes',
      vector_name: 'default',
      vector: await new HashingEmbedding().getTextEmbedding(query),
      query,
      alpha: 0.5,
      limit: 3,
    });
    assert.deepEqual(
      results.map((r) => [r.node.id_, r.score]),
      direct.results.map((r) => [r.document_id, r.score]),
    );

    const filtered = await index
      .asRetriever({
        mode: VectorStoreQueryMode.HYBRID,
        similarityTopK: 3,
        filters: { filters: [{ key: 'topic', operator: '!=', value: 'search' }] },
      })
      .retrieve(query);
    assert.ok(filtered.length > 0);
    assert.ok(
      filtered.every((r) => r.node.metadata.topic !== 'search'),
      'the filter holds in hybrid mode',
    );
  });

  test('sparse mode is GoDB’s BM25 text search', async () => {
    const results = await index
      .asRetriever({ mode: VectorStoreQueryMode.SPARSE, similarityTopK: 5 })
      .retrieve('snapshots consistently');
    assert.deepEqual(refDocs(results), ['doc-ops']);
  });

  test('mmr mode skips a duplicate that the default mode returns', async () => {
    const mmrStore = new GoDBVectorStore({ client, collection: 'li_mmr' });
    const text = 'GoDB stores vectors beside the documents on disk';
    const mmrIndex = await VectorStoreIndex.fromDocuments(
      [
        new Document({ id_: 'copy-1', text }),
        new Document({ id_: 'copy-2', text }),
        new Document({ id_: 'other', text: 'GoDB hybrid search fuses BM25 keyword scores with vector scores' }),
      ],
      { storageContext: await storageContextFromDefaults({ vectorStore: mmrStore }) },
    );
    const plain = await mmrIndex.asRetriever({ similarityTopK: 2 }).retrieve(text);
    assert.deepEqual(refDocs(plain), ['copy-1', 'copy-2']);
    const diverse = await mmrIndex
      .asRetriever({ mode: VectorStoreQueryMode.MMR, similarityTopK: 2, customParams: { mmrThreshold: 0.3 } })
      .retrieve(text);
    assert.equal(diverse.length, 2);
    assert.equal(textOf(diverse[0]), text);
    assert.equal(diverse[1]?.node.sourceNode?.nodeId, 'other');
  });

  test('query modes GoDB lacks and filters it cannot map are refused with a clear error', async () => {
    await assert.rejects(
      index.asRetriever({ mode: VectorStoreQueryMode.SVM }).retrieve('GoDB'),
      /GoDB does not support the svm query mode: use one of default, hybrid, sparse, mmr/,
    );
    await assert.rejects(
      index
        .asRetriever({ filters: { filters: [{ key: 'year', operator: 'near' as never, value: 1 }] } })
        .retrieve('GoDB'),
      /GoDB cannot map the metadata filter operator "near" on year/,
    );
  });

  test('deleteRefDoc removes every node of a document, even one split into several nodes', async () => {
    const sentence = 'Replication ships the write ahead log to every follower of the cluster. ';
    const long = new Document({ id_: 'doc-long', text: sentence.repeat(400), metadata: { topic: 'cluster' } });
    await index.insert(long);
    const nodes = async () =>
      (await client.documents.count({ primary_table: 'li_notes', filter: { 'metadata.ref_doc_id': 'doc-long' } }))
        .count;
    assert.ok((await nodes()) > 1, 'the long document was split into several nodes');

    await index.deleteRefDoc('doc-long');
    await index.deleteRefDoc('doc-ops');
    assert.equal(await nodes(), 0);
    assert.equal((await client.documents.count({ primary_table: 'li_notes' })).count, 3);
    const left = await index.asRetriever({ similarityTopK: 10 }).retrieve('snapshots of a live node');
    assert.deepEqual(refDocs(left), ['doc-hnsw', 'doc-hybrid', 'doc-storage']);
  });

  test('a document written through GoDB’s own API reads back as a text node, and deletes by its id', async () => {
    const text = 'Plain GoDB document about replication written without LlamaIndex';
    await client.documents.batchAdd({
      body: [
        {
          id: 'plain-1',
          primary_table: 'li_notes',
          content: text,
          metadata: { topic: 'plain' },
          vectors: { default: await new HashingEmbedding().getTextEmbedding(text) },
        },
      ],
    });
    const filters: MetadataFilters = { filters: [{ key: 'topic', operator: '==', value: 'plain' }] };
    const [plain] = await index.asRetriever({ similarityTopK: 5, filters }).retrieve('replication');
    assert.equal(plain?.node.id_, 'plain-1');
    assert.equal(textOf(plain), text);
    assert.deepEqual(plain?.node.metadata, { topic: 'plain' });

    // docIds (node ids) narrow a query, as LlamaIndex's own stores do.
    const only = await vectorStore.query({
      queryEmbedding: await new HashingEmbedding().getTextEmbedding('GoDB'),
      similarityTopK: 10,
      mode: VectorStoreQueryMode.DEFAULT,
      docIds: ['plain-1'],
    });
    assert.deepEqual(only.ids, ['plain-1']);

    await index.deleteRefDoc('plain-1');
    assert.equal((await client.documents.count({ primary_table: 'li_notes' })).count, 3);
  });
});
