import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { operations } from '@godb/contract';
import { renderOperationTable } from '../scripts/operation-table.js';
import { GoDBClient } from './client.js';
import { operationTable } from './operations.generated.js';
import type { Input, Output } from './types.js';

// Drift: the client's run-time table is generated from the catalogue; a new or changed operation without a
// regenerated table (npm run generate -w @godb/client) fails here.
test('operations.generated.ts is what the generator writes from the current catalogue', async () => {
  const committed = readFileSync(new URL('./operations.generated.ts', import.meta.url), 'utf8');
  assert.equal(committed, await renderOperationTable(), 'run: npm run generate -w @godb/client');
});

test('every catalogue operation is a method of the client, and every method is an operation', () => {
  const client = new GoDBClient({ url: 'http://127.0.0.1:1' });
  const methods = Object.entries(operationTable).flatMap(([group, entries]) =>
    Object.entries(entries).map(([name, entry]) => ({ group, name, id: entry.id })),
  );
  for (const op of operations) {
    const found = methods.find((m) => m.id === op.id);
    assert.ok(found, `operation ${op.id} has no client method`);
    const group = (client as unknown as Record<string, Record<string, unknown>>)[found.group];
    assert.equal(typeof group?.[found.name], 'function', `client.${found.group}.${found.name} (${op.id})`);
    assert.equal(found.group, op.category);
  }
  assert.equal(methods.length, operations.length);
});

test('the naming rule: the category word leaves the name; the plural of a clash ends in Many', () => {
  const name = (id: string) =>
    Object.entries(operationTable).flatMap(([group, entries]) =>
      Object.entries(entries)
        .filter(([, entry]) => entry.id === id)
        .map(([method]) => `${group}.${method}`),
    )[0];
  assert.equal(name('add-document'), 'documents.add');
  assert.equal(name('search-hybrid'), 'search.hybrid');
  assert.equal(name('create-collection'), 'collections.create');
  assert.equal(name('login'), 'auth.login');
  assert.equal(name('create-api-key'), 'auth.createApiKey');
  assert.equal(name('delete-document'), 'documents.delete');
  assert.equal(name('delete-documents'), 'documents.deleteMany');
  assert.equal(name('list-embedding-models'), 'embeddings.listModels');
  assert.equal(name('refresh-indexes'), 'indexes.refresh');
});

test('retry classes: reads and PUT/DELETE are idempotent, writes by POST and PATCH are not', () => {
  const { documents, search, collections } = operationTable;
  assert.equal(search.vector.idempotent, true);
  assert.equal(documents.count.idempotent, true);
  assert.equal(documents.get.idempotent, true);
  assert.equal(documents.add.idempotent, false);
  assert.equal(documents.update.idempotent, false);
  assert.equal(collections.delete.idempotent, true);
});

// Compile-time checks (tsc -p clients/typescript/tsconfig.test.json): inputs and outputs come from the contract's
// schemas, and fields the server defaults may be left out.
export const typeChecks = () => {
  const vector: Input<'search', 'vector'> = { primary_table: 'docs', vector: [1, 0, 0] };
  const collection: Input<'collections', 'create'> = { name: 'c', vectors: { default: { dimensions: 3 } } };
  const batch: Input<'documents', 'batchAdd'> = { body: [{ title: 'a', edges: [{ target_id: 'b' }] }] };
  // @ts-expect-error name is required
  const nameless: Input<'collections', 'create'> = {};
  // @ts-expect-error limit is a number
  const wrong: Input<'search', 'text'> = { query: 'x', limit: 'ten' };
  const results = (answer: Output<'search', 'hybrid'>) => answer.results.map((r) => r.document_id.length + r.score);
  const file = (answer: Output<'documents', 'downloadFile'>): Promise<Blob> => answer.blob();
  return [vector, collection, batch, nameless, wrong, results, file];
};
