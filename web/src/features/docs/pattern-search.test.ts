import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matcher } from './pattern-search.js';

test('a regular expression, or plain text when it is not one', () => {
  assert.equal(matcher('^/api/v1/search')('/api/v1/search/text'), true);
  assert.equal(matcher('^/api/v1/search')('/auth/login'), false);
  assert.equal(matcher('LOGIN')('/auth/login'), true);
  assert.equal(matcher('(')('rpc TextSearch(TextSearchRequest)'), true);
  assert.equal(matcher('(')('/auth/login'), false);
  assert.equal(matcher('')('anything'), true);
});
