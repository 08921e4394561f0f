import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById } from '@godb/contract';
import { buildRequest, ClientValidationError, toCurl } from './build-request.js';

const build = (id: Parameters<typeof operationById>[0], values: Record<string, string>, log?: (m: string) => void) =>
  buildRequest(operationById(id), values, log ? { log } : {});
const rejects = (fn: () => unknown, message: string | RegExp) =>
  assert.throws(
    fn,
    (e: unknown) =>
      e instanceof ClientValidationError &&
      (typeof message === 'string' ? e.message === message : message.test(e.message)),
  );

test('paths use the /api/v1 form and substitute parameters; GET sends the rest as a query string', () => {
  assert.deepEqual(build('get-document', { id: 'doc 1', include_chunks: 'true' }), {
    method: 'GET',
    path: '/api/v1/documents/doc%201',
    query: { include_chunks: 'true' },
  });
  assert.deepEqual(build('delete-document', { id: 'x', recursive: 'true' }), {
    method: 'DELETE',
    path: '/api/v1/documents/x',
    query: { recursive: 'true' },
  });
  assert.equal(build('search-text', { query: 'wing' }).path, '/api/v1/search/text');
});

test('POST bodies: numbers as numbers, comma lists split, dates to Unix seconds', () => {
  const body = build('search-faceted', { query: 'wing', facets: 'tags, categories', limit: '5' }).body as Record<
    string,
    unknown
  >;
  assert.deepEqual(body, { query: 'wing', facets: ['tags', 'categories'], limit: 5 });
  const multi = build('search-multi-table', { table_names: 'papers,authors' }).body as Record<string, unknown>;
  assert.deepEqual(multi.table_names, ['papers', 'authors']);
  const engagement = build('record-engagement', {
    id: 'doc-1',
    clicks: '2',
    likes: '',
    last_engaged: '2025-06-01T00:00:00Z',
    feedback: '{"rating": 5}',
  });
  assert.equal(engagement.path, '/api/v1/documents/doc-1/engagement');
  assert.deepEqual(
    engagement.body,
    { clicks: 2, last_engaged: 1748736000, feedback: { rating: 5 } },
    'empty fields and id are omitted',
  );
});

test('every validation message of api-spec §5', () => {
  rejects(() => build('record-engagement', { id: 'd', feedback: '{oops' }), /^Invalid JSON in feedback: /);
  rejects(() => build('search-text', {}), "query parameter 'query' is required");
  rejects(() => build('search-smart', { query: ' ' }), "query parameter 'query' is required");
  rejects(() => build('search-fuzzy', {}), "query parameter 'query' is required");
  rejects(
    () => build('search-graph', { query_type: 'teleport' }),
    /^Invalid query_type\. Must be one of: shortest_path, astar, bidirectional, bellman_ford, bfs, dfs, centrality, embeddings, transe_embeddings, graphsage_embeddings$/,
  );
  rejects(
    () => build('search-graph', { query_type: 'centrality', centrality_type: 'fame' }),
    /^Invalid centrality_type\. Must be one of: degree, closeness, betweenness, pagerank, eigenvector, katz, harmonic$/,
  );
  rejects(() => build('search-graph', { depth: '0' }), 'Depth must be greater than 0');
  rejects(
    () =>
      build('search-recommendations', {
        strategy: 'hybrid',
        content_weight: '0.5',
        collab_weight: '0.3',
        graph_weight: '0.3',
      }),
    'Weights must sum to 1.0 for hybrid strategy',
  );
  assert.ok(
    build('search-recommendations', {
      strategy: 'hybrid',
      content_weight: '0.5',
      collab_weight: '0.25',
      graph_weight: '0.25',
    }),
  );
  rejects(() => build('search-recommendations', { min_similarity: '1.5' }), 'min_similarity must be between 0 and 1');
  rejects(() => build('search-autocomplete', { prefix: 'a', fuzziness: '3' }), 'Fuzziness must be 0, 1 or 2');
  rejects(() => build('search-vector', { query: 'x', threshold: '1.2' }), 'Threshold must be between 0 and 1');
  rejects(() => build('search-vector', { vector: '[1, 2' }), /^Invalid vector format: /);
  rejects(() => build('search-vector', { vector: '["a"]' }), 'Invalid vector format: expected a JSON array of numbers');
  rejects(() => build('search-text', { query: 'x', filters: '{bad' }), /^Invalid JSON in filters: /);
});

test('vector filters that are not field/operator/value lists are dropped with a console message only', () => {
  const logged: string[] = [];
  const request = build('search-vector', { query: 'x', filters: '{"tags": "a"}' }, (m) => logged.push(m));
  assert.equal((request.body as Record<string, unknown>).filters, undefined);
  assert.equal(logged.length, 1);
});

test('raw JSON bodies (batch) and curl', () => {
  const batch = build('batch-add-documents', { body: '[{"title": "a"}]' });
  assert.deepEqual(batch.body, [{ title: 'a' }]);
  assert.equal(
    toCurl(build('search-text', { query: "it's" }), 'http://localhost:8081', 'tok'),
    `curl -X POST 'http://localhost:8081/api/v1/search/text' \\\n  -H 'authorization: Bearer tok' \\\n  -H 'content-type: application/json' \\\n  -d '{"query":"it'\\''s"}'`,
  );
});

test('a query-string field of a POST goes in the URL: Add Document with async', () => {
  const request = build('add-document', { text_content: 'Wings.', async: 'true' });
  assert.deepEqual(request.query, { async: 'true' });
  assert.equal((request.body as Record<string, unknown>).async, undefined);
  assert.equal((request.body as Record<string, unknown>).text_content, 'Wings.');
});

test('a streamed body is the chosen file with the contract’s content type; without one, the catalogue says which', () => {
  rejects(() => build('import-documents', {}), 'Choose an NDJSON file to import (one document per line)');
  rejects(() => build('upload-snapshot', {}), 'Choose a snapshot archive (.tar) to upload');
  const file = new File(['{"title":"a"}\n'], 'docs.ndjson');
  const request = buildRequest(
    operationById('import-documents'),
    { async: 'true', batch_size: '100' },
    { files: { file } },
  );
  assert.equal(request.path, '/api/v1/documents/import');
  assert.deepEqual(request.query, { async: 'true', batch_size: '100' });
  assert.equal(request.body, undefined);
  assert.equal(request.file?.blob, file);
  assert.equal(request.file?.contentType, 'application/x-ndjson');
  assert.equal(
    toCurl(request, 'http://localhost:8081', null),
    `curl -X POST 'http://localhost:8081/api/v1/documents/import?async=true&batch_size=100' \\\n  -H 'content-type: application/x-ndjson' \\\n  --data-binary '@docs.ndjson'`,
  );
});

test('the query pipeline’s form (issue #42) sends its stages, fusion and options as JSON structures', () => {
  const request = build('search-query', {
    primary_table: 'papers',
    prefetch:
      '[{"kind": "text", "query": "shock wave"}, {"kind": "dense", "vector_name": "abstract", "query": "shock"}]',
    fusion: '{"method": "rrf", "k": 60}',
    mmr: '{"lambda": 0.5, "vector_name": "abstract"}',
    with_fields: 'true',
    limit: '5',
  });
  assert.equal(request.path, '/api/v1/search/query');
  assert.deepEqual(request.body, {
    primary_table: 'papers',
    prefetch: [
      { kind: 'text', query: 'shock wave' },
      { kind: 'dense', vector_name: 'abstract', query: 'shock' },
    ],
    fusion: { method: 'rrf', k: 60 },
    mmr: { lambda: 0.5, vector_name: 'abstract' },
    with_fields: true,
    limit: 5,
  });
});
