// Issue #21 (writes take their time from the engine's injected clock): a tenant restore onto a node that does not
// hold the tenant adds its tenant row with the engine's time, not SQLite's own clock (`unixepoch()`), like every
// other row the engine writes.
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';

const tenantId = '00000000-0000-4000-8000-0000000000d1';

test('a tenant restored onto a node without it gets its tenant row at the time of the engine’s clock', async () => {
  const from = mkdtempSync(join(tmpdir(), 'godb-restore-time-from-'));
  const to = mkdtempSync(join(tmpdir(), 'godb-restore-time-to-'));
  try {
    const source = openTestEngine(from);
    await source.add(
      { tenantId, userId: 'owner', groups: [] },
      [{ id: 'a', title: 'a', content: 'shock wave', embedding_options: { enabled: false } }],
      (i) => `docs[${i}]`,
    );
    const manifest = await source.snapshots!.create(source.snapshots!.newId(), () => {}, tenantId);
    const archive = join(source.snapshots!.location, `${manifest.id}.tar`);

    // The target node's clock stands in 2001 and moves a millisecond at every reading (which sizes the restore's slices).
    const base = Date.UTC(2001, 0, 1);
    let ms = base;
    const target = openTestEngine(to, 'glove-100', { clock: { now: () => (ms += 1) } });
    const staged = await target.restore!.stage(createReadStream(archive), {
      tenantId,
      keepTenants: [],
      trustIndexFiles: true,
    });
    await target.restore!.apply(staged, () => {});
    const createdAt = target.db.prepare('SELECT created_at FROM tenants WHERE id = ?').pluck().get(tenantId) as number;
    assert.ok(
      createdAt >= base / 1000 && createdAt < base / 1000 + 3600,
      `created_at ${new Date(createdAt * 1000).toISOString()}`,
    );
    await target.close();
    await source.close();
  } finally {
    rmSync(from, { recursive: true, force: true });
    rmSync(to, { recursive: true, force: true });
  }
});
