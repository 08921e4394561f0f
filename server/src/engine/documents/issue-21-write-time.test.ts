import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Readable } from 'node:stream';
import { LocalObjectStore } from '../files/local-object-store.js';
import type { ObjectStore } from '../files/object-store.js';
import { openTestEngine } from '../../test-support/engine.js';
import { prepareDocument } from './prepare.js';

// Issue #21: an embedded write runs at the time decided for it before it runs — as an operation of the replicated
// log runs at the `now` its taking node decided — so every timestamp it writes is the time it was taken, however long
// storing its file took, and one write's rows all carry the same time.
const tenantId = '00000000-0000-4000-8000-0000000000e1';
const owner = { tenantId, userId: 'owner', groups: [] as string[] };

test('a write is stamped with the time it was taken, not the time its file finished storing', async () => {
  const taken = 1_767_225_600_000; // 2026-01-01T00:00:00Z
  let now = taken;
  const dir = mkdtempSync(join(tmpdir(), 'godb-write-time-'));
  const local = new LocalObjectStore(join(dir, 'files'));
  // A store that takes 90 s to store a file, on the engine's clock.
  const slow: ObjectStore = {
    location: local.location,
    put: async (key: string, body: Buffer | Readable) => {
      now += 90_000;
      await local.put(key, body);
    },
    get: (key) => local.get(key),
    has: (key) => local.has(key),
    list: () => local.list(),
    delete: (keys) => local.delete(keys),
  };
  const engine = openTestEngine(dir, 'use-lite-512', { clock: { now: () => now }, files: slow });
  try {
    const input = (id: string) => ({
      id,
      title: id,
      file_content: Buffer.from(`the ${id} file`).toString('base64'),
      embedding_options: { enabled: false },
    });
    const docs = ['a', 'b'].map((id) => ({ ...prepareDocument(input(id), 'owner', 'body'), model: null, chunks: [] }));
    await engine.commands.write(owner, docs, (i) => `body[${i}]`);
    assert.equal(now, taken + 180_000, 'both files were stored, each taking 90 s');
    for (const id of ['a', 'b']) {
      const row = engine.documents.reads.readable(owner, id);
      assert.deepEqual([row.created_at, row.updated_at], [taken / 1000, taken / 1000], id);
    }
    // A delete and a visibility change are stamped with their own time the same way.
    now += 5_000;
    await engine.commands.change('setVisibility', owner, 'a', 'public');
    assert.equal(engine.documents.reads.readable(owner, 'a').updated_at, (taken + 185_000) / 1000);
  } finally {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
