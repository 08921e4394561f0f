import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operationById, operations } from './catalogue.js';
import { buildOpenApi } from './openapi.js';
import { canonical, dereference, schemaModules } from './openapi-components.js';

// Issue #19: shared schemas are named $ref components, so client generators produce named types; the document
// still says exactly what the catalogue says.

type Json = Record<string, unknown>;
const doc = buildOpenApi(operations, { version: 'test' });
const components = (doc.components as { schemas: Record<string, Json> }).schemas;

function* refs(node: unknown): Generator<string> {
  if (Array.isArray(node)) for (const item of node) yield* refs(item);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') yield value;
      else yield* refs(value);
    }
  }
}

const operationEntry = (id: Parameters<typeof operationById>[0]) => {
  const op = operationById(id);
  return ((doc.paths as Record<string, Json>)[op.http.path] as Record<string, Json>)[
    op.http.method.toLowerCase()
  ] as Json;
};
const jsonSchema = (content: unknown) => ((content as Record<string, Json>)['application/json'] as Json).schema;

test('with every reference inlined, the document is the catalogue’s inline document', () => {
  assert.deepEqual(dereference(doc), dereference(buildOpenApi(operations, { version: 'test' }, { components: false })));
});

test('documents, searches, users, keys and errors are named components, referenced where they are used', () => {
  for (const name of [
    'DocumentInput',
    'StoredDocument',
    'SearchResponse',
    'SearchResult',
    'TextSearchRequest',
    'VectorSearchRequest',
    'HybridSearchRequest',
    'User',
    'ApiKey',
    'ErrorBody',
  ]) {
    assert.ok(components[name], `${name} is a component`);
  }
  const searchText = operationEntry('search-text');
  assert.deepEqual(jsonSchema((searchText.requestBody as Json).content), {
    $ref: '#/components/schemas/TextSearchRequest',
  });
  assert.deepEqual(jsonSchema((searchText.responses as Record<string, Json>)['200']?.content), {
    $ref: '#/components/schemas/SearchResponse',
  });
  const getDocument = jsonSchema((operationEntry('get-document').responses as Record<string, Json>)['200']?.content);
  assert.deepEqual((getDocument as { properties: Json }).properties.document, {
    $ref: '#/components/schemas/StoredDocument',
  });
  // A component refers to the components inside it.
  assert.deepEqual((components.SearchResponse?.properties as Record<string, Json>).results?.items, {
    $ref: '#/components/schemas/SearchResult',
  });
});

test('every reference resolves, every component is used, and names are valid component keys', () => {
  const all = [...refs(doc)];
  const used = new Set(
    all.filter((ref) => ref.startsWith('#/components/schemas/')).map((ref) => ref.replace('#/components/schemas/', '')),
  );
  assert.deepEqual([...used].sort(), Object.keys(components).sort());
  // Headers declared once (Idempotency-Key, cluster mode's read options and X-GoDB-Seq) are the only other references.
  const { parameters, headers } = doc.components as { parameters: Json; headers: Json };
  for (const ref of all.filter((r) => !r.startsWith('#/components/schemas/'))) {
    const name = ref.split('/').at(-1)!;
    assert.ok(
      (ref.startsWith('#/components/parameters/') && parameters[name]) ||
        (ref.startsWith('#/components/headers/') && headers[name]),
      ref,
    );
  }
  for (const name of Object.keys(components)) assert.match(name, /^[A-Za-z0-9._-]+$/);
});

test('every module of contract/src/schemas names its schemas, and no two exported schemas are equal', () => {
  const files = readdirSync(fileURLToPath(new URL('./schemas/', import.meta.url)))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => f.replace(/\.ts$/, ''));
  assert.deepEqual(Object.keys(schemaModules).sort(), files.sort());
  // Equal exports would share one name: the first one's.
  const seen = new Map<string, string>();
  for (const [module, exports] of Object.entries(schemaModules)) {
    for (const [name, value] of Object.entries(exports)) {
      if (!value || typeof value !== 'object' || (value as Json).type !== 'object') continue;
      const key = canonical(JSON.parse(JSON.stringify(value)));
      assert.equal(seen.get(key), undefined, `${module}.${name} equals ${seen.get(key)}`);
      seen.set(key, `${module}.${name}`);
    }
  }
});
