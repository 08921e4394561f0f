// Issue #18: a tenant restore replaces the tenant's rows in slices; one cut short part way (here: its progress
// report fails, as a full disk would make it) is tried again in the same process; one whose retries fail too keeps
// the tenant fenced and its unpacked snapshot, and is finished by a later restore of the tenant or when the engine
// opens again — the tenant then holds exactly the snapshot, text index included, its uploaded files are kept or
// deleted as the restored rows name them, no unpacked snapshot is left behind, and no other tenant's data changed.
import assert from 'node:assert/strict';
import { createReadStream, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { withTempDirs } from '../../test-support/temp-dirs.js';

/** Ids `<prefix>0` to `<prefix><count - 1>`. */
const numbered = (prefix: string, count: number) => Array.from({ length: count }, (_v, i) => `${prefix}${i}`);

const tenantA = '00000000-0000-4000-8000-0000000000c1';
const tenantB = '00000000-0000-4000-8000-0000000000c2';
const viewerOf = (tenantId: string) => ({ tenantId, userId: 'owner', groups: [] as string[] });
const noRetry = { retries: 0, wait: async () => {} };
const words = 'shock wave boundary layer heat transfer wing lift drag nozzle'.split(' ');

async function add(engine: TestEngine, tenantId: string, ids: string[]): Promise<void> {
  await engine.add(
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

const count = (engine: TestEngine, tenantId: string) =>
  engine.db
    .prepare('SELECT count(*) FROM documents WHERE tenant_id = ? AND deleted_at IS NULL AND superseded = 0')
    .pluck()
    .get(tenantId) as number;
const indexed = (engine: TestEngine, tenantId: string) => {
  const t = engine.text.tables(tenantId);
  if (!t) return 0;
  return (
    (engine.db.prepare(`SELECT count(*) FROM ${t.fts}`).pluck().get() as number) +
    (engine.db.prepare(`SELECT count(*) FROM ${t.hidden}`).pluck().get() as number)
  );
};

describe('a tenant restore cut short', () => {
  it('keeps the tenant fenced and is finished when the engine opens again', async () => {
    await withTempDirs(['godb-restore-resume-'], async ([dir]) => {
      let engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10, restoreRetry: noRetry });
      await add(engine, tenantA, numbered('a', 120));
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
        { code: 'RESTORE_INTERRUPTED', message: /stopped part way \(no space left on device; 1 attempt\)/ },
      );
      assert.equal(engine.restore!.restoring(tenantA), manifest.id, 'fenced: its data requests answer 503');
      assert.equal(engine.restore!.restoring(tenantB), undefined);
      const chunks = engine.db
        .prepare('SELECT count(*) FROM chunks WHERE tenant_id = ?')
        .pluck()
        .get(tenantA) as number;
      assert.ok(chunks > 0 && chunks < 121, `part way (${chunks} chunks left)`);
      await assert.rejects(engine.vectors.ready(tenantA, 'glove-100', 100), { code: 'TENANT_RESTORING' });

      // The process ends (nothing saved); the engine opens again on the same folder.
      engine.vectors.close();
      engine.db.close();
      await engine.embedder.close();
      engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10 });
      assert.equal(engine.restore!.restoring(tenantA), manifest.id, 'still fenced when the engine opens');
      await assert.rejects(
        engine.vectors.ready(tenantA, 'glove-100', 100),
        { code: 'TENANT_RESTORING' },
        'no index is built from its half-restored rows',
      );
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
    });
  });
});

describe('a tenant restore on another node while its other tenants write', () => {
  for (const clash of [false, true]) {
    it(
      clash
        ? 'moves clashing seqs past the highest and reserves them, so writes between slices never take one'
        : 'keeps seqs above the node’s highest and reserves them, so writes between slices never take one',
      async () => {
        await withTempDirs(['godb-restore-from-', 'godb-restore-to-'], async ([from, to]) => {
          // The source node: tenant B's rows first, so tenant A's seqs start above 1.
          const source = openTestEngine(from, 'glove-100', { restoreSliceRows: 10 });
          await add(source, tenantB, numbered('b', 30));
          await add(source, tenantA, numbered('a', 60));
          const manifest = await source.snapshots!.create(source.snapshots!.newId(), () => {}, tenantA);
          const archive = join(source.snapshots!.location, `${manifest.id}.tar`);

          // The target node holds another tenant whose seqs clash with A's snapshot, or none below them.
          const target = openTestEngine(to, 'glove-100', { restoreSliceRows: 10 });
          const tenantC = '00000000-0000-4000-8000-0000000000c3';
          if (clash) await add(target, tenantC, numbered('c', 50));
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
        });
      },
    );
  }
});

const fileKeyOf = (engine: TestEngine, tenantId: string, id: string) =>
  engine.db
    .prepare(
      "SELECT json_extract(fields, '$.file_path') FROM documents WHERE tenant_id = ? AND id = ? AND superseded = 0",
    )
    .pluck()
    .get(tenantId, id) as string;
const unpacked = (dir: string) => readdirSync(join(dir, 'snapshots')).filter((name) => name.startsWith('.restore-'));

describe('a tenant restore that fails part way, in a running engine', () => {
  it('is tried again at once, owes the files of the rows it deleted before failing, and keeps the snapshot’s', async () => {
    await withTempDirs(['godb-restore-retry-'], async ([dir]) => {
      let waits = 0;
      const engine = openTestEngine(dir, 'glove-100', {
        restoreSliceRows: 10,
        restoreRetry: { retries: 2, wait: async () => void (waits += 1) },
      });
      await add(engine, tenantA, numbered('a', 60));
      const file = (id: string, text: string) =>
        engine.add(
          viewerOf(tenantA),
          [{ id, content: text, file_content: Buffer.from(`%PDF-1.7 ${text}`).toString('base64') }],
          (i) => `docs[${i}]`,
        );
      await file('kept', 'in the snapshot');
      const keptKey = fileKeyOf(engine, tenantA, 'kept');
      const manifest = await engine.snapshots!.create(engine.snapshots!.newId(), () => {}, tenantA);
      await file('later', 'uploaded after the snapshot');
      const laterKey = fileKeyOf(engine, tenantA, 'later');
      assert.ok(keptKey && laterKey);

      const staged = await engine.restore!.stage(
        createReadStream(join(engine.snapshots!.location, `${manifest.id}.tar`)),
        { tenantId: tenantA, keepTenants: [], trustIndexFiles: true },
      );
      // The first attempt fails once the old rows are deleted and half the snapshot's are copied.
      let failed = false;
      const report = await engine.restore!.apply(staged, (done, total) => {
        if (!failed && done - (total - 1) > 0.6) {
          failed = true;
          const left = engine.db.prepare('SELECT count(*) FROM documents WHERE id = ?').pluck().get('later');
          assert.equal(left, 0, 'the row that named the later file is gone when it fails');
          throw new Error('no space left on device');
        }
      });
      assert.ok(failed);
      assert.equal(waits, 1, 'one retry');
      assert.equal(report.documents, 61);
      assert.equal(engine.restore!.restoring(tenantA), undefined, 'unfenced without a restart');
      assert.equal(count(engine, tenantA), 61);
      assert.equal(indexed(engine, tenantA), 61);

      await engine.files!.deleteOwed();
      assert.equal(await engine.files!.open(laterKey), null, 'the file only the replaced rows named is deleted');
      const kept = await engine.files!.open(keptKey);
      assert.ok(kept, 'the file the restored rows name is kept');
      assert.deepEqual(unpacked(dir), []);
      await engine.close();
    });
  });

  it('stays fenced after its retries; restoring the tenant again finishes it and leaves no unpacked snapshot', async () => {
    await withTempDirs(['godb-restore-again-'], async ([dir]) => {
      let engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10, restoreRetry: noRetry });
      await add(engine, tenantA, numbered('a', 50));
      await add(engine, tenantB, ['b0']);
      const snapshots = engine.snapshots!;
      const manifest = await snapshots.create(snapshots.newId(), () => {}, tenantA);
      const archive = join(snapshots.location, `${manifest.id}.tar`);
      const stage = () =>
        engine.restore!.stage(createReadStream(archive), { tenantId: tenantA, keepTenants: [], trustIndexFiles: true });
      let reports = 0;
      await assert.rejects(
        engine.restore!.apply(await stage(), () => {
          if (++reports === 6) throw new Error('disk I/O error');
        }),
        { code: 'RESTORE_INTERRUPTED', message: /tenant .* stopped part way \(disk I\/O error; 1 attempt\)/ },
      );
      assert.equal(engine.restore!.restoring(tenantA), manifest.id, 'fenced: its rows are half replaced');
      assert.equal(unpacked(dir).length, 1, 'its unpacked snapshot is kept to resume from');

      // A new restore of the tenant, in the same process: it supersedes the failed one and finishes.
      const report = await engine.restore!.apply(await stage());
      assert.equal(report.documents, 50);
      assert.equal(engine.restore!.restoring(tenantA), undefined);
      assert.equal(count(engine, tenantA), 50);
      assert.equal(count(engine, tenantB), 1);
      assert.deepEqual(unpacked(dir), [], 'neither the failed restore’s unpacked snapshot nor its own is left');
      assert.equal(engine.db.prepare('SELECT count(*) FROM tenant_restores').pluck().get(), 0);

      // And again: a restore that completes leaves nothing behind either; an unpacked snapshot no restore names
      // (a crash while one was being checked) is removed when the engine opens.
      await engine.restore!.apply(await stage());
      assert.deepEqual(unpacked(dir), []);
      mkdirSync(join(dir, 'snapshots', '.restore-left-by-a-crash'));
      await engine.close();
      engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10 });
      assert.deepEqual(unpacked(dir), []);
      assert.equal(count(engine, tenantA), 50);
      await engine.close();
    });
  });
});

describe('the vector index of a tenant being restored', () => {
  it('is not built from its half-restored rows; after the restore it is loaded from the snapshot’s file', async () => {
    await withTempDirs(['godb-restore-vectors-'], async ([dir]) => {
      const engine = openTestEngine(dir, 'glove-100', { restoreSliceRows: 10 });
      await engine.add(
        viewerOf(tenantA),
        Array.from({ length: 40 }, (_v, i) => ({ id: `v${i}`, content: `${words[i % words.length]} nozzle` })),
        (i) => `docs[${i}]`,
      );
      const space = engine.db
        .prepare('SELECT model FROM vector_generations WHERE tenant_id = ?')
        .pluck()
        .get(tenantA) as string;
      await engine.vectors.ready(tenantA, space, 100);
      const manifest = await engine.snapshots!.create(engine.snapshots!.newId(), () => {}, tenantA);
      const staged = await engine.restore!.stage(
        createReadStream(join(engine.snapshots!.location, `${manifest.id}.tar`)),
        { tenantId: tenantA, keepTenants: [], trustIndexFiles: true },
      );
      const builtBefore = engine.vectors.counters().opened.rebuild;
      const refusals: unknown[] = [];
      const pending: Promise<void>[] = [];
      await engine.restore!.apply(staged, (done, total) => {
        if (done <= total - 1 || done === total) return; // the files before, the end after the rows
        // A request that reaches the index another way, between two slices, and a write's index update.
        pending.push(engine.vectors.ready(tenantA, space, 100).catch((error: unknown) => void refusals.push(error)));
        assert.throws(() => engine.vectors.size(tenantA, space, 100), { code: 'TENANT_RESTORING' });
        assert.deepEqual(engine.vectors.loading(), [], 'nothing loads or builds meanwhile');
      });
      await Promise.all(pending);
      assert.ok(refusals.length > 3);
      for (const error of refusals) assert.equal((error as { code: string }).code, 'TENANT_RESTORING');
      assert.equal(engine.vectors.counters().opened.rebuild, builtBefore, 'no index built during the restore');

      await engine.vectors.ready(tenantA, space, 100);
      assert.equal(engine.vectors.size(tenantA, space, 100), 40);
      assert.equal(engine.vectors.stats(tenantA, space, 100).source, 'file', 'the snapshot’s index file, as it is');
      await engine.close();
    });
  });
});

describe('a whole-node restore', () => {
  it('restores each tenant in slices from one unpacked snapshot; one that fails is finished when the engine opens', async () => {
    await withTempDirs(['godb-node-restore-from-', 'godb-node-restore-to-'], async ([from, to]) => {
      const source = openTestEngine(from, 'glove-100', { restoreSliceRows: 10 });
      for (const tenant of [tenantA, tenantB])
        source.db.prepare('INSERT INTO tenants (id, created_at) VALUES (?, 0)').run(tenant);
      await add(source, tenantA, numbered('a', 30));
      await add(source, tenantB, numbered('b', 40));
      const manifest = await source.snapshots!.create(source.snapshots!.newId(), () => {});
      const archive = join(source.snapshots!.location, `${manifest.id}.tar`);
      await source.close();

      let target = openTestEngine(to, 'glove-100', { restoreSliceRows: 10, restoreRetry: noRetry });
      const staged = await target.restore!.stage(createReadStream(archive), {
        tenantId: undefined,
        keepTenants: [],
        trustIndexFiles: true,
      });
      assert.deepEqual(staged.tenants, [tenantA, tenantB]);
      // Tenant A is restored; tenant B's rows fail half way (its progress is past the first tenant's).
      await assert.rejects(
        target.restore!.apply(staged, (done, total) => {
          if (done < total && done > staged.files + 1.3) throw new Error('no space left on device');
        }),
        { code: 'RESTORE_INTERRUPTED', message: new RegExp(`tenant ${tenantB}`) },
      );
      assert.equal(target.restore!.restoring(tenantA), undefined);
      assert.equal(count(target, tenantA), 30);
      assert.equal(target.restore!.restoring(tenantB), manifest.id, 'the tenant that failed stays fenced');
      assert.equal(unpacked(to).length, 1, 'the unpacked snapshot is kept for it');

      target.vectors.close();
      target.db.close();
      await target.embedder.close();
      target = openTestEngine(to, 'glove-100', { restoreSliceRows: 10 });
      await target.restore!.resumePending();
      assert.equal(target.restore!.restoring(tenantB), undefined);
      assert.equal(count(target, tenantB), 40);
      assert.equal(indexed(target, tenantB), 40);
      assert.equal(count(target, tenantA), 30);
      assert.deepEqual(unpacked(to), [], 'removed after the last tenant restored from it');
      await target.close();
    });
  });
});

describe('a tenant restore whose seq range holds another tenant’s rows, while that tenant writes', () => {
  it('checks for clashes by range between the writes and never copies onto a row that holds one of its seqs', async () => {
    await withTempDirs(['godb-restore-gaps-from-', 'godb-restore-gaps-to-'], async ([from, to]) => {
      // The source: tenant A's seqs have a gap (1–10, then 41–50) where tenant B wrote.
      const source = openTestEngine(from, 'glove-100');
      await add(source, tenantA, numbered('a', 10));
      await add(source, tenantB, numbered('b', 30));
      await add(
        source,
        tenantA,
        Array.from({ length: 10 }, (_v, i) => `a${10 + i}`),
      );
      const manifest = await source.snapshots!.create(source.snapshots!.newId(), () => {}, tenantA);
      const archive = join(source.snapshots!.location, `${manifest.id}.tar`);
      await source.close();

      // The target: A's own rows at 1–10 (deleted by the restore), then tenant C's at 11–40, in A's gap — so the
      // check cannot answer at once and walks A's range a seq at a time, while C goes on writing (41, 42, …: seqs of
      // the snapshot, taken before or while the check runs). No retries: a copy that met one of C's rows would fail
      // the restore.
      const target = openTestEngine(to, 'glove-100', { restoreSliceRows: 1, restoreRetry: noRetry });
      const tenantC = '00000000-0000-4000-8000-0000000000c3';
      await add(target, tenantA, numbered('old', 10));
      await add(target, tenantC, numbered('c', 30));
      const staged = await target.restore!.stage(createReadStream(archive), {
        tenantId: tenantA,
        keepTenants: [],
        trustIndexFiles: true,
      });
      let restoring = true;
      let written = 0;
      const writer = (async () => {
        while (restoring) {
          await add(target, tenantC, [`w${written++}`]);
          await new Promise((next) => setImmediate(next)); // a turn of the event loop, as separate requests have
        }
      })();
      const report = await target.restore!.apply(staged).finally(() => (restoring = false));
      await writer;
      assert.ok(written > 0, 'tenant C wrote during the restore');
      assert.equal(count(target, tenantA), 20, 'the snapshot, whole');
      assert.equal(indexed(target, tenantA), 20);
      assert.equal(count(target, tenantC), 30 + written, 'and every write of the other tenant');
      if (report.seqsPreserved) {
        const seqs = target.db
          .prepare('SELECT seq FROM documents WHERE tenant_id = ? ORDER BY seq')
          .pluck()
          .all(tenantA) as number[];
        assert.deepEqual(seqs, [...range(1, 10), ...range(41, 50)], 'kept where they were');
      }
      await target.close();
    });
  });
});

const range = (low: number, high: number) => Array.from({ length: high - low + 1 }, (_v, i) => low + i);
