import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById } from './catalogue.js';
import { playgroundFields } from './playground-fields.js';

const field = (id: Parameters<typeof operationById>[0], name: string) => {
  const found = playgroundFields(operationById(id)).find((f) => f.name === name);
  assert.ok(found, `${id} has no field ${name}`);
  return found;
};

test('fields, kinds, defaults and options come from the schemas', () => {
  assert.deepEqual(
    playgroundFields(operationById('login')).map((f) => [f.name, f.kind, f.required]),
    [
      ['email', 'text', true],
      ['password', 'text', true],
      ['tenant_id', 'text', false],
    ],
  );
  const queryType = field('search-text', 'query_type');
  assert.equal(queryType.kind, 'select');
  assert.deepEqual(queryType.options, ['match', 'phrase', 'wildcard']);
  assert.equal(queryType.default, 'phrase');
  assert.equal(field('search-text', 'limit').default, 10);
  assert.equal(field('search-autocomplete', 'limit').default, 5);
  assert.equal(field('search-vector', 'threshold').default, 0.7);
  assert.equal(field('search-vector', 'similarity_method').default, 'cosine');
  assert.equal(field('search-fuzzy', 'fuzziness').default, 1);
  assert.equal(field('search-autocomplete', 'fuzziness').default, 0);
  assert.equal(field('search-recommendations', 'strategy').default, 'hybrid');
  assert.equal(field('search-graph', 'depth').default, 2);
  assert.equal(field('search-graph', 'edge_type').default, 'links_to');
  assert.equal(field('search-graph', 'dimensions').default, 100);
  assert.equal(field('list-users', 'limit').default, 50);
  assert.equal(field('list-users', 'offset').in, 'query');
  assert.equal(field('get-user', 'userID').in, 'path');
  assert.equal(field('add-document', 'file').kind, 'file');
  assert.equal(field('add-document', 'lang_code').default, 'en');
  assert.equal(field('add-document', 'visibility').default, 'public');
  assert.equal(field('create-quantized-embedding', 'bit_width').default, 8);
  assert.deepEqual(field('create-quantized-embedding', 'bit_width').options, ['4', '8', '16']);
  assert.equal(field('batch-add-documents', 'body').in, 'raw-body');
});
