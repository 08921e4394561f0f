import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { operationById, operations, type CatalogueOperation } from '@godb/contract';
import { operationsModule, renderOperations, renderTypes, responseComponent, typesModule } from './scripts/generate.js';
import { runPython } from './run-python.js';

// Issue #19: the Python client has one method per operation of the catalogue, sending the operation's verb to
// its path. godb/_operations.py is generated from the catalogue; the methods are written by hand and checked here.

interface RecordedCall {
  operation: string;
  namespace: string;
  method: string;
  http_method: string;
  path: string;
  returns: string | null;
}

/** What differs between the catalogue and the requests the client's methods send; empty when they agree. */
function driftOf(catalogue: readonly CatalogueOperation[], calls: readonly RecordedCall[]): string[] {
  const problems: string[] = [];
  for (const operation of catalogue) {
    const mine = calls.filter((c) => c.operation === operation.id);
    if (mine.length !== 1) {
      problems.push(`${operation.id}: ${mine.length} methods (${mine.map((c) => c.method).join(', ') || 'none'})`);
      continue;
    }
    const [call] = mine as [RecordedCall];
    const where = `${operation.id} (client.${call.namespace}.${call.method})`;
    if (call.namespace !== operation.category) {
      problems.push(`${where}: in client.${call.namespace}, its category is ${operation.category}`);
    }
    if (call.http_method !== operation.http.method) {
      problems.push(`${where}: sends ${call.http_method}, the server serves ${operation.http.method}`);
    }
    const template = new RegExp(`^${operation.http.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!template.test(call.path))
      problems.push(`${where}: sends ${call.path}, the server serves ${operation.http.path}`);
    const answer = responseComponent(operation, catalogue) ?? null;
    if (call.returns !== answer) problems.push(`${where}: returns ${call.returns}, the server answers ${answer}`);
  }
  for (const call of calls) {
    if (!catalogue.some((o) => o.id === call.operation))
      problems.push(`${call.method}: unknown operation ${call.operation}`);
  }
  return problems;
}

async function recordedCalls(): Promise<RecordedCall[]> {
  const run = await runPython(['tests/record_methods.py']);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as RecordedCall[];
}

test('godb/_operations.py and godb/types.py are what scripts/generate.ts renders (npm run generate:python)', () => {
  assert.equal(readFileSync(operationsModule, 'utf8'), renderOperations());
  assert.equal(readFileSync(typesModule, 'utf8'), renderTypes());
});

test('every operation has one method, in its category, sending its verb to its path, typed with its answer', async () => {
  const calls = await recordedCalls();
  assert.deepEqual(driftOf(operations, calls), []);
  assert.equal(calls.length, operations.length);
});

test('the drift check fails on an operation without a method, and on a method whose path or verb differs', async () => {
  const calls = await recordedCalls();
  const renamed = operations.map((o) =>
    o.id === 'search-hybrid' ? { ...o, http: { ...o.http, path: '/api/v2/search/hybrid' } } : o,
  );
  const reverbed = operations.map((o) =>
    o.id === 'get-document' ? { ...o, http: { ...o.http, method: 'POST' as const } } : o,
  );
  const added = [...operations, { ...operations.find((o) => o.id === 'login'), id: 'brand-new' } as CatalogueOperation];
  assert.deepEqual(driftOf(renamed, calls), [
    'search-hybrid (client.search.hybrid): sends /api/v1/search/hybrid, the server serves /api/v2/search/hybrid',
  ]);
  assert.deepEqual(driftOf(reverbed, calls), [
    'get-document (client.documents.get): sends GET, the server serves POST',
  ]);
  assert.deepEqual(driftOf(added, calls), ['brand-new: 0 methods (none)']);
  const retyped = operations.map((o) =>
    o.id === 'list-collections'
      ? { ...o, success: { ...o.success, schema: operationById('get-collection').success.schema } }
      : o,
  );
  assert.deepEqual(driftOf(retyped, calls), [
    'list-collections (client.collections.list): returns null, the server answers CollectionInfo',
  ]);
});
