// Issue #18: a tenant restore replaces the tenant's rows in slices; one cut short part way (here: its progress
// report fails, as a full disk would make it) keeps the tenant fenced and its unpacked snapshot, and is finished
// when the engine opens again — the tenant then holds exactly the snapshot, text index included, and no other
// tenant's data changed.
import assert from 'node:assert/strict';
import { createReadStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTestEngine } from '../../test-support/engine.js';
import type { Engine } from '../engine.js';

const tenantA = '00000000-0000-4000-8000-0000000000c1';
const tenantB = '00000000-0000-4000-8000-0000000000c2';
const viewerOf = (tenantId: string) => ({ tenantId, userId: 'owner', groups: [] as string[] });
const words = 'shock wave boundary layer heat transfer wing lift drag nozzle'.split(' ');

async function add(engine: Engine, tenantId: string, ids: string[]): Promise<void> {
  await engine.documents.add(
    viewerOf(tenantId),
    ids.map((id, i) => ({
      id,
      title: id,
      content: `${words[i % words.length]} ${words[(i * 3) % words.length]}`,
      embedding_options: { enabled: false },
    })),
    (i) => `docs[${i}]`,
  );
}

const count = (engine: Engine, tenantId: string) =>
  engine.db
    .prepare('SELECT count(*) FROM documents WHERE tenant_id = ? AND deleted_at IS NULL AND superseded = 0')
    .pluck()
    .get(tenantId) as number;
const indexed = (engine: Engine, tenantId: string) => {
  const t = engine.text.tables(tenantId);
  if (!t) return 0;
  return (
    (engine.db.prepare(`SELECT count(*) FROM ${t.fts}`).pluck().get() as number) +
    (engine.db.prepare(`SELECT count(*) FROM ${t.hidden}`).pluck().get() as number)
  );
};

describe('a tenant restore cut short', () => {
  it('keeps the tenant fenced and is finished when the engine opens again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'godb-restore-resume-'));
    try {
      let engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10 });
      await add(
        engine,
        tenantA,
        Array.from({ length: 120 }, (_v, i) => `a${i}`),
      );
      await add(engine, tenantB, ['b0', 'b1']);
      const snapshots = engine.snapshots!;
      const manifest = await snapshots.create(snapshots.newId(), () => {}, tenantA);
      await add(engine, tenantA, ['late']);

      const staged = await engine.restore!.stage(createReadStream(join(snapshots.location, `${manifest.id}.tar`)), {
        tenantId: tenantA,
        keepTenants: [],
        trustIndexFiles: true,
      });
      let reports = 0;
      await assert.rejects(
        engine.restore!.apply(staged, () => {
          reports += 1;
          if (reports === 8) throw new Error('no space left on device');
        }),
        /finishes when the server restarts: Error: no space left on device/,
      );
      assert.equal(engine.restore!.restoring(tenantA), manifest.id, 'fenced: its data requests answer 503');
      assert.equal(engine.restore!.restoring(tenantB), undefined);
      const chunks = engine.db
        .prepare('SELECT count(*) FROM chunks WHERE tenant_id = ?')
        .pluck()
        .get(tenantA) as number;
      assert.ok(chunks > 0 && chunks < 121, `part way (${chunks} chunks left)`);

      // The process ends (nothing saved); the engine opens again on the same folder.
      engine.vectors.close();
      engine.db.close();
      await engine.embedder.close();
      engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10 });
      assert.equal(engine.restore!.restoring(tenantA), manifest.id, 'still fenced when the engine opens');
      const failures: unknown[] = [];
      await engine.restore!.resumePending((_tenant, error) => failures.push(error));
      assert.deepEqual(failures, []);
      assert.equal(engine.restore!.restoring(tenantA), undefined);
      assert.equal(count(engine, tenantA), 120, 'exactly the snapshot');
      assert.equal(
        engine.db.prepare('SELECT count(*) FROM documents WHERE tenant_id = ? AND id = ?').pluck().get(tenantA, 'late'),
        0,
      );
      assert.equal(indexed(engine, tenantA), 120, 'its text index filled from the restored rows');
      assert.equal(count(engine, tenantB), 2, 'another tenant untouched');
      assert.deepEqual(
        readdirSync(join(dir, 'snapshots')).filter((name) => name.startsWith('.restore-')),
        [],
        'the unpacked snapshot is removed once done',
      );
      assert.equal(engine.db.prepare('SELECT count(*) FROM tenant_restores').pluck().get(), 0);
      await engine.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a tenant restore on another node while its other tenants write', () => {
  for (const clash of [false, true]) {
    it(
      clash
        ? 'moves clashing seqs past the highest and reserves them, so writes between slices never take one'
        : 'keeps seqs above the node’s highest and reserves them, so writes between slices never take one',
      async () => {
        const from = mkdtempSync(join(tmpdir(), 'godb-restore-from-'));
        const to = mkdtempSync(join(tmpdir(), 'godb-restore-to-'));
        try {
          // The source node: tenant B's rows first, so tenant A's seqs start above 1.
          const source = openTestEngine(from, 'glove-100', { restoreSliceRows: 10 });
          await add(
            source,
            tenantB,
            Array.from({ length: 30 }, (_v, i) => `b${i}`),
          );
          await add(
            source,
            tenantA,
            Array.from({ length: 60 }, (_v, i) => `a${i}`),
          );
          const manifest = await source.snapshots!.create(source.snapshots!.newId(), () => {}, tenantA);
          const archive = join(source.snapshots!.location, `${manifest.id}.tar`);

          // The target node holds another tenant whose seqs clash with A's snapshot, or none below them.
          const target = openTestEngine(to, 'glove-100', { restoreSliceRows: 10 });
          const tenantC = '00000000-0000-4000-8000-0000000000c3';
          if (clash)
            await add(
              target,
              tenantC,
              Array.from({ length: 50 }, (_v, i) => `c${i}`),
            );
          const staged = await target.restore!.stage(createReadStream(archive), {
            tenantId: tenantA,
            keepTenants: [],
            trustIndexFiles: true,
          });
          let written = 0;
          const writes: Promise<void>[] = [];
          const report = await target.restore!.apply(staged, () => {
            // Between two slices, another tenant writes.
            writes.push(add(target, tenantC, [`w${written++}`]));
          });
          await Promise.all(writes);
          assert.equal(report.seqsPreserved, !clash);
          assert.ok(written > 5, `tenant C wrote between slices (${written})`);
          assert.equal(count(target, tenantA), 60, 'the snapshot, whole');
          assert.equal(count(target, tenantC), written + (clash ? 50 : 0), 'and every write of the other tenant');
          assert.equal(indexed(target, tenantA), 60);
          await target.close();
          await source.close();
        } finally {
          rmSync(from, { recursive: true, force: true });
          rmSync(to, { recursive: true, force: true });
        }
      },
    );
  }
});
