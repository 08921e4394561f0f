// npm run bench:text-checkpoint — what a text (BM25) index checkpoint costs and saves (issue #16), in-process:
// BENCH_DOCS chunks (1,000,000 by default) of bench:scale's texts — ~60 Zipf words and the title `document <i>`, so
// as many distinct terms as chunks — built into a Bm25Index (what a restart without a checkpoint does, the
// reference), then captured, written, read back and restored (what a restart with one does). The restored index
// must answer every probe query exactly as the built one (results and scores, as JSON), before and after changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bm25Index } from '../server/src/engine/text/bm25-index.js';
import { readBm25File, writeBm25File } from '../server/src/engine/text/bm25-file.js';
import { indexTerms } from '../server/src/engine/text/tokenize.js';
import { random, zipfText } from './engine-fixture.js';
import { caveat, table } from './support.js';

const total = Number(process.env.BENCH_DOCS ?? 1_000_000);
const weights = { title: 2, content: 1 };
const probes = ['water flow', 'the of', 'boundary layer wing', 'x y z a', `document ${Math.floor(total / 2)}`];
/** Chunk i's text, as bench:scale makes document i's. */
const textOf = (i: number) => {
  const next = random(1_000_003 + i);
  return zipfText(next, 50 + Math.floor(next() * 21));
};
const same = (a: Bm25Index, b: Bm25Index) =>
  probes.every((q) => JSON.stringify(a.search(indexTerms(q), 20)) === JSON.stringify(b.search(indexTerms(q), 20))) &&
  JSON.stringify(a.stats) === JSON.stringify(b.stats);
/** The longest the event loop waited for a turn (beyond its 10 ms timer) while `work` ran. */
async function stalls<T>(work: () => Promise<T>): Promise<{ value: T; worstMs: number }> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  try {
    return { value: await work(), worstMs: worst };
  } finally {
    clearInterval(timer);
  }
}

caveat();
const dir = mkdtempSync(join(tmpdir(), 'godb-bench-text-checkpoint-'));
const file = join(dir, 'tenant.bm25');
try {
  const built = new Bm25Index(weights);
  let t = performance.now();
  for (let i = 0; i < total; i += 1) built.add(i + 1, i + 1, `document ${i}`, textOf(i), i % 10 !== 0);
  const buildS = (performance.now() - t) / 1000;

  t = performance.now();
  const { state, release } = built.capture();
  const captureMs = performance.now() - t;
  t = performance.now();
  const written = await stalls(() => writeBm25File(file, state, { fileId: 'bench', tenantId: 'bench' }));
  release();
  const writeS = (performance.now() - t) / 1000;

  t = performance.now();
  const read = await readBm25File(file);
  if (!read) throw new Error('the checkpoint just written could not be read back');
  const readS = (performance.now() - t) / 1000;
  t = performance.now();
  let longestStep = 0;
  const steps = Bm25Index.restoring(weights, read.state);
  let restored: Bm25Index;
  for (;;) {
    const s = performance.now();
    const step = steps.next();
    longestStep = Math.max(longestStep, performance.now() - s);
    if (step.done) {
      restored = step.value;
      break;
    }
  }
  const restoreS = (performance.now() - t) / 1000;
  const identical = same(built, restored);

  // Changed after it was read back, saved and read again: terms from its own arrays and from the file's columns.
  // The first 1,000 chunks added after the restore, timed against the same added to the built index.
  const added = (index: Bm25Index) => {
    const start = performance.now();
    for (let i = total; i < total + 1000; i += 1) index.add(i + 1, i + 1, `document ${i}`, textOf(i), true);
    return performance.now() - start;
  };
  const addBuiltMs = added(built);
  const addRestoredMs = added(restored);
  for (let seq = 1; seq <= total; seq += 97) {
    built.remove(seq);
    restored.remove(seq);
  }
  const again = restored.capture();
  await writeBm25File(file, again.state, { fileId: 'bench-2', tenantId: 'bench' });
  again.release();
  const twice = Bm25Index.restore(weights, (await readBm25File(file))!.state);
  const identicalAfterChanges = same(built, twice);

  table([
    {
      step: `build ${total.toLocaleString('en')} chunks (reference: a restart without checkpoint)`,
      result: `${buildS.toFixed(1)} s (${Math.round(total / buildS)} chunks/s)`,
    },
    { step: 'capture (on the thread)', result: `${captureMs.toFixed(0)} ms` },
    {
      step: 'write (in the background)',
      result: `${writeS.toFixed(2)} s, ${Math.round(written.value / 2 ** 20)} MB, longest stall ${written.worstMs.toFixed(0)} ms`,
    },
    { step: 'read back', result: `${readS.toFixed(2)} s` },
    { step: 'restore (in steps)', result: `${restoreS.toFixed(2)} s, longest step ${longestStep.toFixed(0)} ms` },
    { step: 'restart speed-up over a build', result: `${(buildS / (readS + restoreS)).toFixed(1)}x` },
    {
      step: 'first 1,000 chunks added after it (built index: reference)',
      result: `${addRestoredMs.toFixed(0)} ms (${addBuiltMs.toFixed(0)} ms)`,
    },
    {
      step: 'identical answers and statistics',
      result: `${identical}; after changes and a second save: ${identicalAfterChanges}`,
    },
  ]);
  if (!identical || !identicalAfterChanges) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
