import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';
import { addUser } from './add-user.js';
import type { AuthDeps } from './deps.js';

// Issue #21: a write runs at a time decided before it runs (the operation's `now`, the engine's clock held there
// while the embedded log applies it), as an operation of the replicated log runs at its own `now`: registering a tenant stores the
// tenant and its first user at one time, even on a clock that moves at every reading.
test('a tenant and its first user registered in one write carry the one time the write was taken at', async () => {
  let ms = 1_767_225_600_000;
  const engine = openTestEngine(':memory:', 'use-lite-512', { clock: { now: () => (ms += 1000) } });
  try {
    const deps = { directory: engine.directory, log: engine.log } as unknown as AuthDeps;
    const tenantId = '00000000-0000-4000-8000-0000000000f1';
    const user = await addUser(deps, { tenantId, email: 'a@example.com', passwordHash: 'x', role: 'admin' }, true);
    const tenantCreated = engine.db.prepare('SELECT created_at FROM tenants WHERE id = ?').pluck().get(tenantId);
    assert.equal(tenantCreated, user.created_at);
    assert.equal(user.updated_at, user.created_at);
  } finally {
    await engine.close();
  }
});
