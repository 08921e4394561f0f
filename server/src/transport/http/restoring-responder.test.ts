import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRestoringResponder } from './restoring-responder.js';

test('while a cluster node restores a snapshot, it is alive, not ready, says what it restores, and its API answers 503', async () => {
  const responder = await startRestoringResponder('127.0.0.1', 0, {
    node: 'b',
    snapshot: { id: 'snap-20261124T130000Z-1a2b3c4d', seq: 1234, bytes: 5678 },
  });
  try {
    const health = await fetch(`${responder.url}/healthz`);
    assert.equal(health.status, 200);
    const ready = await fetch(`${responder.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(((await ready.json()) as { cluster: object }).cluster, {
      node_id: 'b',
      applied_seq: 0,
      restoring_snapshot: { id: 'snap-20261124T130000Z-1a2b3c4d', seq: 1234, bytes: 5678 },
    });
    const api = await fetch(`${responder.url}/api/v1/documents?limit=1`);
    assert.equal(api.status, 503);
    assert.equal(api.headers.get('retry-after'), '5');
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'CLUSTER_CATCHING_UP');
  } finally {
    await responder.close();
  }
});
