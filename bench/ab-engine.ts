// npm run bench:ab — the engine's search paths of another checkout (AB_BEFORE, a folder holding GoDB, with its own
// node_modules) against this one, in one process on the same data: AB_DOCS documents (30,000; 60 Zipf words each,
// glove-100 vectors) written by the other checkout's engine, the folder copied for this one (which migrates it), then
// the same 100 queries of each kind through both, in alternating order for AB_ROUNDS rounds (12), so that the noise
// of a shared machine falls on both alike. Prints each side's median time per query and the median ratio
// (this ÷ before): a ratio near 1 with rounds on both sides of it is no change.
//
//   git worktree add --detach /tmp/before <commit> && (cd /tmp/before && npm ci)
//   AB_BEFORE=/tmp/before npm run bench:ab
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEngineOptions, random, zipfDocuments, zipfWord } from './engine-fixture.js';
import { caveat } from './support.js';

const before = process.env.AB_BEFORE;
if (!before) throw new Error('AB_BEFORE must name the folder of the GoDB checkout to compare with (see the header).');
const total = Number(process.env.AB_DOCS ?? 30_000);
const rounds = Number(process.env.AB_ROUNDS ?? 12);
/** Seconds the engines are left idle after the warm-up, so that their background work (copies, indexes) ends. */
const settle = Number(process.env.AB_SETTLE ?? 10);
const model = 'glove-100';
const viewer = { tenantId: '00000000-0000-4000-8000-0000000000ab', userId: 'ab', groups: [] as string[] };
const scope = { viewer, now: Math.floor(Date.now() / 1000) };
caveat();

/* eslint-disable @typescript-eslint/no-explicit-any -- two checkouts' engines, whose types differ by design */
interface Side {
  readonly name: 'before' | 'this';
  readonly root: string;
  mods?: Record<string, any>;
  engine?: any;
}
const sides: Side[] = [
  { name: 'before', root: join(resolve(before), 'server/src/engine') },
  { name: 'this', root: fileURLToPath(new URL('../server/src/engine', import.meta.url)) },
];
const options = (dataDir: string) => benchEngineOptions(dataDir, model);
for (const side of sides) {
  side.mods = {
    engine: await import(join(side.root, 'engine.ts')),
    text: await import(join(side.root, 'search/text-search.ts')),
    vector: await import(join(side.root, 'search/vector-search.ts')),
    hybrid: await import(join(side.root, 'search/hybrid-search.ts')),
  };
}
const dirs = [mkdtempSync(join(tmpdir(), 'godb-ab-')), mkdtempSync(join(tmpdir(), 'godb-ab-'))] as const;
{
  const engine = sides[0]!.mods!.engine.openEngine(options(dirs[0]));
  // Before issue #38 the engine wrote documents itself; since, writes are operations of the embedded log.
  const add: (docs: unknown[], path: (k: number) => string) => Promise<unknown> = engine.documents.add
    ? (docs, path) => engine.documents.add(viewer, docs, path)
    : await import(join(sides[0]!.root, '../test-support/engine.ts')).then(({ withLocalLog }) => {
        const composed = withLocalLog(engine);
        return (docs: unknown[], path: (k: number) => string) => composed.add(viewer, docs, path);
      });
  const next = random(5);
  for (let i = 0; i < total; i += 1000) {
    const docs = zipfDocuments(next, i, Math.min(1000, total - i), model);
    await add(docs, (k: number) => `body[${k}]`);
  }
  await engine.close();
}
cpSync(dirs[0], dirs[1], { recursive: true });
sides.forEach((side, i) => (side.engine = side.mods!.engine.openEngine(options(dirs[i]!))));

// As bench:search: one common, one ordinary and one rare word; phrases of two frequent words.
const next = random(9);
const word = (rank: number) => zipfWord(Math.max(1, Math.round(rank * (0.5 + next()))));
const queries = Array.from({ length: 100 }, () => [40, 400, 4000].map(word).join(' '));
const phrases = Array.from({ length: 100 }, () => [4, 40].map(word).join(' '));
const allKinds: Record<string, (s: Side, q: number) => Promise<unknown>> = {
  text: async (s, q) => s.mods!.text.textSearch(s.engine.search, scope, queries[q], 'match', 10),
  phrase: async (s, q) => s.mods!.text.textSearch(s.engine.search, scope, phrases[q], 'phrase', 10),
  vector: async (s, q) =>
    s.mods!.vector.vectorSearch(s.engine.search, s.engine.embedder, scope, {
      text: queries[q],
      model,
      method: 'cosine',
      threshold: 0,
      limit: 10,
    }),
  hybrid: async (s, q) =>
    s.mods!.hybrid.hybridSearch(s.engine.search, s.engine.embedder, scope, {
      text: queries[q],
      model,
      alpha: 0.3,
      limit: 10,
      fusion: 'weighted',
      useMlRanking: false,
    }),
};
/** AB_KINDS: some of text, phrase, vector, hybrid (comma-separated); all by default. */
const only = process.env.AB_KINDS?.split(',');
const kinds = Object.fromEntries(Object.entries(allKinds).filter(([kind]) => !only || only.includes(kind)));
for (const s of sides) {
  await s.engine.text.loaded(viewer.tenantId);
  for (const run of Object.values(kinds)) for (let q = 0; q < 100; q += 1) await run(s, q);
}
// The queries above run without a turn of the event loop between them, which background work (the float32 copies of
// an index loaded from its file, filled in slices) waits for: measured at once, one side would rescore from the store.
await new Promise((done) => setTimeout(done, settle * 1000));

const times: Record<string, Record<string, number[]>> = {};
const ratios: Record<string, number[]> = {};
for (let r = 0; r < rounds; r += 1) {
  for (const [kind, run] of Object.entries(kinds)) {
    const took: Record<string, number> = {};
    for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
      const start = performance.now();
      for (let q = 0; q < 100; q += 1) await run(s, q);
      took[s.name] = (performance.now() - start) / 100;
      ((times[kind] ??= {})[s.name] ??= []).push(took[s.name]!);
    }
    (ratios[kind] ??= []).push(took.this! / took.before!);
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`${total} documents; ${rounds} rounds of 100 queries per kind and side; before: ${before}\n`);
for (const kind of Object.keys(kinds)) {
  process.stdout.write(
    `${kind.padEnd(7)} before ${median(times[kind]!.before!).toFixed(3)} ms, this ${median(times[kind]!.this!).toFixed(3)} ms, ` +
      `this ÷ before ${median(ratios[kind]!).toFixed(2)} (rounds ${Math.min(...ratios[kind]!).toFixed(2)}–${Math.max(...ratios[kind]!).toFixed(2)})\n`,
  );
}
for (const s of sides) await s.engine.close();
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
