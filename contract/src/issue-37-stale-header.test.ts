import { test } from 'node:test';
import assert from 'node:assert/strict';
import { operations } from './catalogue.js';
import { marksStale, staleHeader } from './cluster.js';
import { buildOpenApi } from './openapi.js';

// Issue #37 (item 4): in cluster mode a read answered while the node cannot confirm it is current carries
// X-GoDB-Stale on every answer, errors too (server/src/cluster/issue-37-stale-reads.test.ts sees it sent). The
// document declares it on exactly those operations' responses, so a generated client and the reference show it.

type Json = Record<string, unknown>;
const doc = buildOpenApi(operations, { version: '0.1.0' }) as {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { headers?: Json }> }>>;
  components: { headers: Json };
};

test('X-GoDB-Stale is declared on every response of the reads of replicated data, and nowhere else', () => {
  assert.deepEqual(doc.components.headers.GoDBStale, {
    description: staleHeader.description,
    schema: staleHeader.schema,
  });
  const entries = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
  assert.equal(entries.length, operations.length);
  let marked = 0;
  for (const entry of entries) {
    const expected = marksStale(entry.operationId as (typeof operations)[number]['id']);
    if (expected) marked++;
    for (const [status, response] of Object.entries(entry.responses)) {
      const declared = response.headers?.[staleHeader.name];
      if (expected) {
        assert.deepEqual(declared, { $ref: '#/components/headers/GoDBStale' }, `${entry.operationId} ${status}`);
      } else assert.equal(declared, undefined, `${entry.operationId} ${status}`);
    }
  }
  assert.ok(marked > 10, `${marked} operations marked`);
  assert.ok(marked < operations.length, 'the embedding and shared-snapshot operations are never stale');
});
