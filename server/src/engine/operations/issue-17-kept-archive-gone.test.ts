import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGoDBError } from '@godb/contract';
import { systemClock } from '../clock.js';
import { openTestEngine } from '../../test-support/engine.js';
import { LocalObjectStore } from '../files/local-object-store.js';
import { OperationApplier } from './operation-applier.js';
import { OperationClock } from './operation-clock.js';
import type { Operation } from './operation.js';

// Issue #17: the archive copy a restore operation names is deleted once the log is truncated past the restore
// (cluster/kept-archives.ts). A node that applies the restore and finds its copy gone missed that truncation: it
// halts (the operation is not recorded, as for any failure of its own) instead of recording NOT_FOUND as the
// outcome, which would leave its copy of the tenant unrestored. A damaged copy stays a refusal, alike everywhere.

const restoreOf = (archive: string, id: string): Operation => ({
  kind: 'restore-snapshot',
  snapshotId: 'snap-20261124T000000Z-0000abcd',
  archive,
  restorer: { tenantId: '00000000-0000-4000-8000-0000000000d4', keepTenants: [], trustIndexFiles: true },
  id,
  node: 'b',
  now: 1_800_000_000_000,
});

test("a restore whose kept archive copy is gone halts the node; a damaged one is the operation's refusal (issue #17)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-kept-gone-'));
  const engine = openTestEngine(dir);
  try {
    const applier = new OperationApplier({ ...engine, clock: new OperationClock(systemClock), node: 'a' });
    const gone = restoreOf('kept/snap-20261124T000000Z-0000abcd-0e5c2a4e-5f0b-4b0e-9d53-6c1c1c2f7a10.tar', 'op-1');
    await assert.rejects(applier.prepare(3, 1, gone), (error: unknown) => {
      assert.ok(isGoDBError(error) && error.code === 'STORAGE_UNAVAILABLE', String(error));
      assert.match(error.message, /archive copy kept\/snap-.* of this restore is gone/);
      assert.ok(error.status >= 500, 'not a refusal of the catalogue: the node halts before the operation');
      return true;
    });
    assert.equal(applier.applied(3), 0, 'nothing recorded');

    // A copy that is there but damaged: every node reads the same bytes and refuses it alike.
    const damaged = 'kept/snap-20261124T000000Z-0000abcd-7d1f3c22-9a0e-4c55-8f3b-2b9f0e6f1c11.tar';
    // The engine's snapshot store on disk (DATA_DIR/snapshots).
    await new LocalObjectStore(join(dir, 'snapshots')).put(damaged, Buffer.from('not a tar archive'));
    await applier.prepare(3, 1, restoreOf(damaged, 'op-2'));
    const applied = applier.apply(3, 1, restoreOf(damaged, 'op-2'));
    assert.ok(applied && 'error' in applied.outcome);
    assert.ok(isGoDBError(applied.outcome.error) && applied.outcome.error.status < 500);
    assert.equal(applier.applied(3), 1, 'recorded, with the refusal as its outcome');
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
