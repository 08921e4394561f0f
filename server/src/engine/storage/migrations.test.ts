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

test('migration 6: every table documents named becomes an implicit collection with its models (issue #15)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-migrate-'));
  try {
    const old = new Database(join(dir, 'godb.sqlite'));
    for (const m of migrations.filter((m) => m.version <= 5)) old.exec(m.sql);
    old.pragma('user_version = 5');
    const doc = old.prepare(
      `INSERT INTO documents (tenant_id, id, owner_id, version, visibility, primary_table, title, content, model,
         created_at, updated_at, fields)
       VALUES (?, ?, 'u', 1, 'public', ?, '', '', ?, ?, ?, '{}')`,
    );
    const chunk = old.prepare(
      `INSERT INTO chunks (doc_seq, tenant_id, chunk_index, content, start_offset, end_offset, model, vector)
       VALUES (?, ?, 0, '', 0, 0, ?, ?)`,
    );
    const add = (tenant: string, id: string, table: string, model: string | null, dims: number, at: number) => {
      const seq = doc.run(tenant, id, table, model, at, at + 1).lastInsertRowid;
      chunk.run(seq, tenant, model, model ? Buffer.alloc(dims * 4) : null);
    };
    add('t1', 'a', 'documents', 'glove-100', 100, 10);
    add('t1', 'b', 'documents', 'use-lite-512', 512, 20);
    add('t1', 'c', 'papers', null, 0, 30);
    add('t2', 'd', 'documents', 'glove-100', 100, 40);
    old.close();

    const db = openDatabase({ dataDir: dir });
    const rows = db
      .prepare(
        'SELECT tenant_id, name, vectors, default_vector, implicit, created_at, updated_at FROM collections ORDER BY tenant_id, name',
      )
      .all() as { vectors: string }[];
    db.close();
    const settings = (model: string, dims: number) => ({
      dimensions: dims,
      distance: 'cosine',
      storage: 'f16',
      hnsw: { m: 16, ef_construction: 200, ef_search: 100 },
      model,
    });
    assert.deepEqual(
      rows.map((r) => ({ ...r, vectors: JSON.parse(r.vectors) as unknown })),
      [
        {
          tenant_id: 't1',
          name: 'documents',
          vectors: { 'glove-100': settings('glove-100', 100), 'use-lite-512': settings('use-lite-512', 512) },
          default_vector: 'glove-100',
          implicit: 1,
          created_at: 10,
          updated_at: 21,
        },
        {
          tenant_id: 't1',
          name: 'papers',
          vectors: {},
          default_vector: null,
          implicit: 1,
          created_at: 30,
          updated_at: 31,
        },
        {
          tenant_id: 't2',
          name: 'documents',
          vectors: { 'glove-100': settings('glove-100', 100) },
          default_vector: 'glove-100',
          implicit: 1,
          created_at: 40,
          updated_at: 41,
        },
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
