import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DateInput } from '@godb/contract';
import { fieldRows, sentence, typeOf } from './schema-text.js';

test('issue 20: a field with a default is not required from the caller', () => {
  const rows = fieldRows({
    type: 'object',
    required: ['query', 'limit'],
    properties: { query: { type: 'string' }, limit: { type: 'integer', default: 10 } },
  });
  assert.deepEqual(
    rows.map((r) => [r.name, r.required, r.default]),
    [
      ['query', true, ''],
      ['limit', false, '10'],
    ],
  );
});

test('issue 20: descriptions read as sentences, identifiers keep their spelling', () => {
  assert.equal(sentence('number of results'), 'Number of results');
  assert.equal(sentence('user_id of the caller'), 'user_id of the caller');
  assert.equal(sentence('minScore: the lowest score'), 'minScore: the lowest score');
  assert.equal(sentence('Already a sentence.'), 'Already a sentence.');
  assert.equal(sentence(''), '');
  assert.equal(sentence('mode auto picks a route', ['mode']), 'mode auto picks a route');
  assert.equal(
    fieldRows({
      type: 'object',
      properties: { role: { type: 'string', enum: ['user', 'admin'], description: 'user or admin' } },
    })[0]?.description,
    'user or admin',
  );
  assert.equal(
    fieldRows({ type: 'object', properties: { q: { type: 'string', description: 'the text' } } })[0]?.description,
    'The text',
  );
});

test('issue 20: a date field reads as seconds or an ISO text', () => {
  assert.equal(typeOf(DateInput as Parameters<typeof typeOf>[0]), 'integer | string');
});
