import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations.js';
import { openDatabase } from './database.js';

test('migration 5: earlier versions of a document deleted before it landed are deleted too (issue #22)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-migrate-'));
  try {
    // A data folder as version 4 left it: `report` deleted with its v1 still live, `memo` live with v1.
    const old = new Database(join(dir, 'godb.sqlite'));
    for (const m of migrations.filter((m) => m.version <= 4)) old.exec(m.sql);
    old.pragma('user_version = 4');
    const insert = old.prepare(
      `INSERT INTO documents (tenant_id, id, owner_id, version, superseded, deleted_at, visibility, primary_table,
         title, content, created_at, updated_at, fields)
       VALUES ('t', ?, 'u', ?, ?, ?, 'public', 'documents', '', '', 0, 0, '{}')`,
    );
    insert.run('report@v1', 1, 1, null);
    insert.run('report@v2', 2, 1, null);
    insert.run('report', 3, 0, 1000);
    insert.run('report@vintage@v1', 1, 1, null);
    insert.run('memo@v1', 1, 1, null);
    insert.run('memo', 2, 0, null);
    old.close();

    const db = openDatabase({ dataDir: dir });
    const deleted = db.prepare('SELECT id, deleted_at FROM documents ORDER BY id').all();
    db.close();
    assert.deepEqual(deleted, [
      { id: 'memo', deleted_at: null },
      { id: 'memo@v1', deleted_at: null },
      { id: 'report', deleted_at: 1000 },
      { id: 'report@v1', deleted_at: 1000 },
      { id: 'report@v2', deleted_at: 1000 },
      { id: 'report@vintage@v1', deleted_at: null },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
