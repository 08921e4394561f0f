import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentInput } from './schemas/document.js';

// Issue #37 (13): the API reference showed these document fields with an empty description column.

test('issue 37: acl, vector_meta, engagement, embedding_options and edges say what they are', () => {
  const properties = DocumentInput.properties as Record<string, { description?: string }>;
  for (const name of ['acl', 'vector_meta', 'engagement', 'embedding_options', 'edges']) {
    assert.ok((properties[name]?.description ?? '').length > 30, `${name} has no description`);
  }
});
