// Issue #16 (restart without full rebuilds): a tenant's in-memory BM25 index is checkpointed to a file in the
// background; after a crash, the next start reads the file back, compares it with the stored rows (chunks deleted,
// moved between public and private, added after it) and answers exactly as before — never from a stale file.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Engine } from '../engine.js';
import { Bm25Index } from './bm25-index.js';
import { readBm25File, writeBm25File } from './bm25-file.js';
import { indexTerms } from './tokenize.js';
import { openTestEngine } from '../../test-support/engine.js';
import { seededRandom } from '../vectors/kmeans.js';
import type { Viewer } from '../documents/types.js';
import { textSearch } from '../search/text-search.js';

const words =
  'boundary layer turbulent flow heat transfer wing drag nozzle shock vortex plate cone jet noise laminar wake'.split(
    ' ',
  );
const tenant = '00000000-0000-4000-8000-0000000000d1';
const viewer: Viewer = { tenantId: tenant, userId: 'owner', groups: [] };
const queries = ['shock vortex', 'laminar wake', 'heat', '"boundary layer"', 'jet noise drag'];

const docs = (seed: number, from: number, n: number) => {
  const next = seededRandom(seed);
  const text = (k: number) => Array.from({ length: k }, () => words[Math.floor(next() * words.length)]).join(' ');
  return Array.from({ length: n }, (_v, i) => ({
    id: `t${from + i}`,
    title: text(3),
    content: text(40),
    visibility: (from + i) % 5 === 0 ? ('private' as const) : ('public' as const),
    embedding_options: { enabled: false },
  }));
};

/** Every query's hits (document ids and scores, to the bit), from whatever ranks the tenant now. */
const answers = (engine: Engine) =>
  queries.map((q) =>
    textSearch(engine.search, { viewer, now: 1_800_000_000 }, q, q.startsWith('"') ? 'phrase' : 'match', 20).hits.map(
      (h) => [h.doc.id, h.score],
    ),
  );

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

/** Checkpoints the tenant's index now (its first save is due as soon as it is built) and waits for the file. */
const checkpointed = async (engine: Engine) => {
  await engine.text.loaded(tenant);
  const saves = engine.text.counters().saves;
  engine.text.checkpoint();
  await until(() => engine.text.counters().saves > saves);
};

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
/** A new temporary folder, removed after the tests. */
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/** What a kill -9 leaves: the data folder as it is while the engine runs (no save on close). */
const crashCopy = (dataDir: string) => {
  const copy = tempDir('godb-text-crash-');
  cpSync(dataDir, copy, { recursive: true });
  return copy;
};

describe('text index checkpoints', () => {
  it('reads a checkpoint back after a crash, catches up with the writes after it, and answers as before', async () => {
    const dataDir = tempDir('godb-text-checkpoint-');
    const engine = openTestEngine(dataDir);
    let copy: string;
    let before: ReturnType<typeof answers>;
    let stats: { chunks: number; tokens: number };
    try {
      await engine.add(viewer, docs(1, 0, 200), (i) => `[${i}]`);
      await checkpointed(engine);
      assert.ok(existsSync(join(dataDir, 'text', `${tenant}.bm25`)));
      // After the checkpoint: deletions (hidden and purged), visibility both ways, new documents.
      await engine.commands.delete(viewer, 't1', { recursive: false, permanent: false });
      await engine.commands.delete(viewer, 't2', { recursive: false, permanent: true });
      engine.documents.access.setVisibility(viewer, 't3', 'private');
      engine.documents.access.setVisibility(viewer, 't5', 'public');
      await engine.add(viewer, docs(2, 200, 30), (i) => `[${i}]`);
      before = answers(engine);
      stats = engine.text.publicStats(tenant);
      assert.deepEqual(engine.text.ranked(tenant)?.stats, stats, 'the live index is current');
      assert.equal(engine.text.ranked(tenant)?.size, 228, '230 documents of one chunk, less the two deleted');
      copy = crashCopy(dataDir);
    } finally {
      await engine.close();
    }

    const restarted = openTestEngine(copy);
    try {
      restarted.text.warmUp();
      assert.deepEqual(
        restarted.text.loading().map((l) => l.how),
        ['replay'],
        'loading from its checkpoint at start',
      );
      const index = await restarted.text.loaded(tenant);
      assert.deepEqual(restarted.text.counters(), { checkpoint: 1, rebuild: 0, saves: 0, unreadable: 0 });
      assert.deepEqual(index?.stats, stats, 'the same statistics as FTS5 keeps');
      assert.equal(index?.size, 228, 'the chunks stored');
      assert.deepEqual(answers(restarted), before, 'every answer the same, scores to the bit');
    } finally {
      await restarted.close();
    }
  });

  it('builds from the store when the checkpoint is cut short, changed on disk or gone, or after the tenant’s text was rebuilt', async () => {
    const dataDir = tempDir('godb-text-checkpoint-');
    const engine = openTestEngine(dataDir);
    let before: ReturnType<typeof answers>;
    let cut: string;
    try {
      await engine.add(viewer, docs(3, 0, 120), (i) => `[${i}]`);
      await checkpointed(engine);
      before = answers(engine);
      cut = crashCopy(dataDir);
      // A rebuild of the tenant's text writes its rows again: the checkpoint no longer counts.
      engine.maintenance.refresh(tenant);
      assert.equal(existsSync(join(dataDir, 'text', `${tenant}.bm25`)), false, 'its file is gone');
      assert.equal(engine.db.prepare('SELECT count(*) FROM text_checkpoints').pluck().get(), 0, 'and its row');
      assert.deepEqual(answers(engine), before, 'answered by FTS5 meanwhile, with the same scores');
    } finally {
      await engine.close();
    }

    const flipped = crashCopy(cut);
    const gone = crashCopy(cut);
    const fileIn = (dir: string) => join(dir, 'text', `${tenant}.bm25`);
    truncateSync(fileIn(cut), statSync(fileIn(cut)).size - 100);
    // One bit in the middle of the postings: the file's length and end mark are as written, its checksum is not.
    const bytes = readFileSync(fileIn(flipped));
    const middle = bytes.length >> 1;
    bytes.writeUInt8(bytes.readUInt8(middle) ^ 0x10, middle);
    writeFileSync(fileIn(flipped), bytes);
    rmSync(fileIn(gone));
    for (const [dir, unreadable] of [
      [cut, 1],
      [flipped, 1],
      [gone, 0], // its row is dropped at start: built as if never saved
    ] as const) {
      const restarted = openTestEngine(dir);
      try {
        restarted.text.warmUp();
        await restarted.text.loaded(tenant);
        assert.deepEqual(restarted.text.counters(), { checkpoint: 0, rebuild: 1, saves: 0, unreadable });
        assert.deepEqual(answers(restarted), before);
      } finally {
        await restarted.close();
      }
    }
  });

  it('saves a changed index on a clean shutdown, and the next start needs nothing from the store', async () => {
    const dataDir = tempDir('godb-text-checkpoint-');
    const engine = openTestEngine(dataDir);
    let before: ReturnType<typeof answers>;
    try {
      await engine.add(viewer, docs(4, 0, 100), (i) => `[${i}]`);
      await checkpointed(engine);
      await engine.add(viewer, docs(5, 100, 10), (i) => `[${i}]`);
      before = answers(engine);
    } finally {
      await engine.close();
    }
    const restarted = openTestEngine(dataDir);
    try {
      restarted.text.warmUp();
      const build = await new Promise<ReturnType<Engine['text']['loading']>>((resolve) => {
        const poll = () => {
          const loading = restarted.text.loading();
          if (loading.length > 0 && loading[0]!.total > 0) resolve(loading);
          else setImmediate(poll);
        };
        poll();
      });
      assert.equal(build[0]!.how, 'replay');
      assert.equal(build[0]!.total, 110, 'progress counts the stored rows');
      await restarted.text.loaded(tenant);
      assert.deepEqual(answers(restarted), before);
      assert.equal(restarted.text.counters().checkpoint, 1);
    } finally {
      await restarted.close();
    }
  });

  it('a read-back index takes writes in place, compacts, and is saved again, answering as the index it came from', async () => {
    const dir = tempDir('godb-bm25-file-');
    const file = join(dir, 'index.bm25');
    const weights = { title: 2, content: 1 };
    const next = seededRandom(9);
    const text = (k: number) => Array.from({ length: k }, () => words[Math.floor(next() * words.length)]).join(' ');
    // Titles of words in other scripts too: the file's terms are UTF-8.
    const scripts = ['café', 'naïve', '東京', 'Ελλάδα', 'wörter'];
    const chunks = Array.from({ length: 3000 }, (_v, i) => ({
      title: `chunk ${i} ${scripts[i % scripts.length]!}${i % 11}`,
      content: text(30),
    }));
    const built = new Bm25Index(weights);
    chunks.forEach((c, i) => built.add(i + 1, i + 1, c.title, c.content, i % 7 !== 0));
    const { state, release } = built.capture();
    await writeBm25File(file, state, { fileId: 'a', tenantId: tenant });
    release();
    const restored = Bm25Index.restore(weights, (await readBm25File(file))!.state);
    const same = () =>
      ['shock vortex', 'laminar wake heat', 'chunk 17', 'jet', '東京3', 'café'].every(
        (q) =>
          JSON.stringify(built.search(indexTerms(q), 15)) === JSON.stringify(restored.search(indexTerms(q), 15)) &&
          JSON.stringify(built.phrase(indexTerms(q), 15)) === JSON.stringify(restored.phrase(indexTerms(q), 15)),
      ) && JSON.stringify(built.stats) === JSON.stringify(restored.stats);
    assert.ok(same(), 'read back');
    for (let i = 3000; i < 3100; i += 1) {
      const content = text(30);
      built.add(i + 1, i + 1, `chunk ${i}`, content, true);
      restored.add(i + 1, i + 1, `chunk ${i}`, content, true);
    }
    assert.ok(same(), 'after writes into the file’s room');
    // More than half removed: both compact (local ids renumbered, postings rewritten in place).
    for (let seq = 1; seq <= 2200; seq += 1) {
      built.remove(seq);
      restored.remove(seq);
    }
    assert.equal(restored.size, 900);
    assert.ok(same(), 'after compaction');
    const again = restored.capture();
    await writeBm25File(file, again.state, { fileId: 'b', tenantId: tenant });
    again.release();
    const twice = Bm25Index.restore(weights, (await readBm25File(file))!.state);
    assert.equal(
      JSON.stringify(twice.search(indexTerms('shock vortex'), 15)),
      JSON.stringify(built.search(indexTerms('shock vortex'), 15)),
    );
    assert.deepEqual(twice.stats, built.stats);
  });
});
