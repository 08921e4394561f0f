import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operationById, operations } from './catalogue.js';
import { playgroundFields, requestBodyOf } from './playground-fields.js';

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

test('how a request carries its input is in the contract: a streamed body has its file field, fills name fields', () => {
  assert.deepEqual(requestBodyOf(operationById('import-documents')), {
    kind: 'file',
    contentType: 'application/x-ndjson',
  });
  assert.deepEqual(requestBodyOf(operationById('upload-snapshot')), { kind: 'file', contentType: 'application/x-tar' });
  assert.deepEqual(requestBodyOf(operationById('search-text')), { kind: 'json' });
  assert.deepEqual(requestBodyOf(operationById('get-document')), { kind: 'none' });
  for (const op of operations) {
    const fields = playgroundFields(op);
    const sent = fields.filter((f) => f.sends === 'body');
    // The playground sends the chosen file as the body: an operation that streams one declares exactly one.
    assert.equal(sent.length, requestBodyOf(op).kind === 'file' ? 1 : 0, `${op.id}: file fields sent as the body`);
    for (const f of sent) assert.ok(f.required && f.requiredMessage, `${op.id}.${f.name} says which file to choose`);
    for (const f of fields.filter((x) => x.fills)) {
      for (const target of Object.values(f.fills ?? {})) {
        assert.ok(
          fields.some((x) => x.name === target && x.in !== 'client'),
          `${op.id}.${f.name} fills ${target}, a field of the form`,
        );
      }
    }
  }
});

test('date fields are converted to Unix seconds; JSON fields with their own error code name it', () => {
  assert.equal(field('add-document', 'created_at').valueType, 'date');
  assert.equal(field('record-engagement', 'last_engaged').valueType, 'date');
  assert.equal(field('add-document', 'title').valueType, 'string');
  assert.match(field('search-text', 'filters').jsonMessage ?? '', /^Invalid JSON in filters/);
  assert.equal(field('add-document', 'created_at').initial, 'now');
  assert.equal(field('create-embedding', 'model_name').initial, 'default-model');
});
