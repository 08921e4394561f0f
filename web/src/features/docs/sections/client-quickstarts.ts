/**
 * The quickstarts of the Client libraries section, as a reader pastes them. e2e/issue-19-client-quickstarts.test.ts
 * runs these same strings against a fresh server, so the page cannot show code that does not work.
 */

export const typescriptQuickstart = `import { GoDBClient, GoDBError } from '@godb/client';

const client = new GoDBClient({
  url: process.env.GODB_URL ?? 'http://localhost:8081',
  apiKey: process.env.GODB_API_KEY, // from POST /auth/api-keys; or: await client.login(email, password)
});

// A collection whose documents carry a vector of your own (3 numbers here)
await client.collections
  .create({ name: 'shop', vectors: { default: { dimensions: 3, distance: 'cosine' } } })
  .catch((error) => {
    if (!(error instanceof GoDBError && error.code === 'COLLECTION_EXISTS')) throw error;
  });

await client.documents.batchAdd({
  body: [
    { id: 'red-shoe', title: 'Red shoe', primary_table: 'shop', vector: [0.9, 0.1, 0], metadata: { colour: 'red' } },
    { id: 'blue-hat', title: 'Blue hat', primary_table: 'shop', vector: [0, 0.2, 0.9], metadata: { colour: 'blue' } },
  ],
});

const { results } = await client.search.vector({ primary_table: 'shop', vector: [1, 0, 0], limit: 1 });
console.log('nearest:', results[0]?.document_id);

// Any number of documents, streamed as NDJSON, with progress
async function* catalogue() {
  for (let i = 0; i < 1000; i += 1) {
    yield { id: \`item-\${i}\`, title: \`Item \${i}\`, primary_table: 'shop', vector: [Math.random(), Math.random(), 1] };
  }
}
const summary = await client.documents.import(catalogue(), {
  onProgress: (p) => process.stdout.write(\`\\r\${p.written} written\`),
});
console.log(\`\\nimported: \${summary.written} written, \${summary.failed} failed\`);

// Errors carry the catalogue code, the HTTP status, the field and the request id of the server's log
try {
  await client.documents.get({ id: 'no-such-document' });
} catch (error) {
  if (error instanceof GoDBError) console.log('error:', error.code, error.status, error.requestId);
}
`;

export const langchainQuickstart = `import { GoDBVectorStore } from '@godb/langchain';
// Any LangChain embeddings: OpenAIEmbeddings, OllamaEmbeddings … (this one needs no model, for a first try)
import { SyntheticEmbeddings } from '@langchain/core/utils/testing';

const store = await GoDBVectorStore.fromTexts(
  [
    'GoDB stores vectors beside the documents',
    'Hybrid search fuses BM25 and vector scores',
    'Snapshots copy a live node while it serves',
  ],
  [{ topic: 'storage' }, { topic: 'search' }, { topic: 'operations', year: 2026 }],
  new SyntheticEmbeddings({ vectorSize: 256 }),
  {
    client: { url: process.env.GODB_URL ?? 'http://localhost:8081', apiKey: process.env.GODB_API_KEY },
    collection: 'notes', // created on the first write, sized to the embeddings
  },
);

const [best] = await store.similaritySearch('Hybrid search fuses BM25 and vector scores', 1, { topic: 'search' });
console.log('best:', best?.pageContent);

// Metadata filters: { key: value }, { key: [any, of] }, { key: { $gte: 2025 } }, $and, $or, $not
const recent = await store.similaritySearch('a live node', 3, { year: { $gte: 2025 } });
console.log('recent:', recent.length);

// Diverse results (maximal marginal relevance), and a retriever for your chains
const diverse = await store.maxMarginalRelevanceSearch('vectors', { k: 2, fetchK: 10 });
const retrieved = await store.asRetriever({ k: 1 }).invoke('snapshots');
console.log('diverse:', diverse.length, 'retrieved:', retrieved.length);

await store.delete({ filter: { topic: 'operations' } });
`;
