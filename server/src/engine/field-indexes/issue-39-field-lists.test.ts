import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { DocumentInput, FieldIndexDeclarations } from '@godb/contract';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { matchesFilters, parseFilters, type FilterableDocument } from '../search/filters.js';
import { estimateMatches } from '../search/filter-estimates.js';
import { plannedAmong, plannedSet } from '../search/indexed-filters.js';
import { FieldIndexRows } from './field-index-rows.js';
import { seededRandom } from '../../test-support/fuzz-inputs.js';

// Issue #39, decision 0077: the declared indexes are answered from in-memory posting lists kept in step with SQLite.
// After writes, updates, deletes, a refused batch (its transaction rolled back), a redeclared index, a removed and
// recreated collection and a restart, every planned filter answers what the filter's own evaluation gives over the
// live documents, and every lookup the lists answer equals SQLite's answer to it.
const tenantId = '00000000-0000-4000-8000-0000000000f7';
const viewer = { tenantId, userId: 'owner', groups: [] as string[] };
const indexes: FieldIndexDeclarations = {
  'metadata.tag': 'keyword',
  'metadata.price': 'float',
  'metadata.when': 'datetime',
  'metadata.flag': 'bool',
  created_at: 'integer',
};

const rnd = seededRandom(77);
const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)]!;
const tags = ['a', 'b', 'c', 'd', '5', ''];
const prices = [0, 1, 2.5, 3, 7, 10, 99.5];
const dates = ['2026-01-01', '2026-01-15T10:00:00Z', '2025-12-31', '2026-03-01'];
/** Missing, null, a list (with nulls) or one value. */
const some = <T>(value: () => T): unknown => {
  const r = rnd();
  if (r < 0.1) return undefined;
  if (r < 0.15) return null;
  if (r < 0.3) return Array.from({ length: Math.floor(rnd() * 3) }, () => (rnd() < 0.1 ? null : value()));
  return value();
};

function input(id: string, price?: unknown): DocumentInput {
  const metadata: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => value !== undefined && (metadata[key] = value);
  put(
    'tag',
    some(() => pick(tags)),
  );
  put('price', price ?? some(() => pick(prices)));
  put(
    'when',
    some(() => pick(dates)),
  );
  put(
    'flag',
    some(() => rnd() < 0.5),
  );
  return {
    id,
    title: id,
    content: id,
    primary_table: 'c',
    metadata,
    created_at: 1_700_000_000 + Math.floor(rnd() * 20),
    embedding_options: { enabled: false },
  } as DocumentInput;
}

function filterable(doc: DocumentInput): FilterableDocument {
  return {
    id: doc.id!,
    title: doc.title ?? '',
    content: doc.content ?? '',
    primary_table: 'c',
    visibility: 'private',
    created_at: doc.created_at as number,
    updated_at: 0,
    parent_doc_id: null,
    cluster: null,
    fields: { metadata: doc.metadata as Record<string, unknown> },
  };
}

const fields = Object.keys(indexes);
const values = (): unknown => pick<() => unknown>([() => pick(tags), () => pick(prices), () => pick(dates)])();
function condition(): Record<string, unknown> {
  const field = pick(fields);
  const operator = pick(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists'] as const);
  if (operator === 'exists') return { field, operator, value: rnd() < 0.7 };
  if (operator === 'in' || operator === 'nin') return { field, operator, value: [values(), values()] };
  if (field === 'created_at') return { field, operator, value: 1_700_000_000 + Math.floor(rnd() * 20) };
  if (field === 'metadata.flag') return { field, operator, value: rnd() < 0.5 };
  return { field, operator, value: values() };
}
const filter = (): unknown =>
  rnd() < 0.4
    ? [condition()]
    : { must: [condition(), condition()], should: rnd() < 0.5 ? [condition(), condition()] : [], must_not: [] };

const idsOf = (engine: TestEngine, seqs: Iterable<number>) =>
  [...seqs].map((seq) => engine.documents.store.rowBySeq(seq)!.id).sort();

/** Random filters planned from the lists against brute force; every list lookup against SQLite's. */
function check(engine: TestEngine, docs: ReadonlyMap<string, DocumentInput>, label: string): void {
  let planned = 0;
  for (let i = 0; i < 150; i += 1) {
    const raw = filter();
    const filters = parseFilters(raw)!;
    const seqs = plannedSet(engine.fieldIndexes, tenantId, 'c', filters);
    if (!seqs) continue;
    planned += 1;
    const expected = [...docs.values()].filter((d) => matchesFilters(filterable(d), filters)).map((d) => d.id!);
    assert.deepEqual(idsOf(engine, seqs), expected.sort(), `${label}: ${JSON.stringify(raw)}`);
    const estimate = estimateMatches(engine.fieldIndexes, tenantId, 'c', filters, 1 + Math.floor(rnd() * 80))!;
    assert.ok(estimate.low <= seqs.size && seqs.size <= estimate.high, `${label}: estimate ${JSON.stringify(raw)}`);
    const among = new Set(engine.fieldIndexes.live(tenantId, 'c').filter(() => rnd() < 0.3));
    const passing = plannedAmong(engine.fieldIndexes, tenantId, 'c', filters, among)!;
    assert.deepEqual(
      idsOf(engine, passing),
      idsOf(
        engine,
        [...seqs].filter((s) => among.has(s)),
      ),
      `${label}: among ${JSON.stringify(raw)}`,
    );
  }
  assert.ok(planned > 100, `${label}: most filters are planned (${planned})`);
  // The same lookups in SQLite (the truth the lists follow).
  const rows = new FieldIndexRows(engine.db);
  const sorted = (xs: Iterable<number>) => [...new Set(xs)].sort((a, b) => a - b);
  const live = engine.fieldIndexes.live(tenantId, 'c');
  for (const path of fields) {
    const memory = engine.fieldIndexes;
    assert.deepEqual(sorted(memory.present(tenantId, 'c', path)), sorted(rows.present(tenantId, 'c', path)), path);
    assert.equal(memory.countPresent(tenantId, 'c', path, 1e9), rows.countPresent(tenantId, 'c', path, 1e9), path);
    for (const key of [...tags, ...prices, ...dates, 0, 1, 1_700_000_005]) {
      const keys = [key];
      assert.deepEqual(sorted(memory.equal(tenantId, 'c', path, keys)), sorted(rows.equal(tenantId, 'c', path, keys)));
      assert.equal(memory.countKey(tenantId, 'c', path, key, 1e9), rows.countKey(tenantId, 'c', path, key, 1e9));
      for (const range of [{ gte: key }, { lt: key }, { gt: key, lte: pick([...prices, ...dates]) }]) {
        assert.deepEqual(
          sorted(memory.range(tenantId, 'c', path, range)),
          sorted(rows.range(tenantId, 'c', path, range)),
          `${label}: ${path} ${JSON.stringify(range)}`,
        );
      }
    }
    const held = memory.valuesOf(tenantId, 'c', live, path);
    const truth = new Map<number, (string | number)[]>();
    const present = new Set<number>();
    for (const { seq, value } of rows.valuesOf(JSON.stringify(live), path)) {
      if (value === null) present.add(seq);
      else truth.set(seq, [...new Set([...(truth.get(seq) ?? []), value])]);
    }
    assert.deepEqual(sorted(held.present), sorted(present), `${label}: ${path} present`);
    assert.deepEqual(
      new Map([...held.keys].map(([s, k]) => [s, [...k].sort()])),
      new Map([...truth].map(([s, k]) => [s, [...k].sort()])),
      `${label}: ${path} values`,
    );
  }
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function waitBuilt(engine: TestEngine): Promise<void> {
  while (engine.fieldIndexes.building) await new Promise((resolve) => setImmediate(resolve));
}

test('in-memory posting lists equal brute force and SQLite after writes, rollbacks, redeclaring and a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-field-lists-'));
  dirs.push(dir);
  let engine = openTestEngine(dir, 'use-lite-512');
  await engine.log.submit({ kind: 'create-collection', tenantId, body: { name: 'c', indexes } });
  const docs = new Map<string, DocumentInput>();
  const write = async (inputs: DocumentInput[]) => {
    await engine.add(viewer, inputs, (i) => `body[${i}]`);
    for (const d of inputs) docs.set(d.id!, d);
  };
  await write(Array.from({ length: 400 }, (_v, i) => input(`d${i}`)));
  check(engine, docs, 'written'); // builds the lists

  // Writes after the lists were built: new documents, new versions (new seqs, the old ones unposted), deletes.
  await write(Array.from({ length: 120 }, (_v, i) => input(i % 2 === 0 ? `d${i * 3}` : `n${i}`)));
  for (let i = 1; i < 200; i += 7) {
    await engine.commands.delete(viewer, `d${i}`, { recursive: false, permanent: i % 2 === 0 });
    docs.delete(`d${i}`);
  }
  // A refused batch: an update of a live document and new ones, then a string in the float index. Its transaction
  // rolls back, so neither the new versions' postings nor the old version's removal may show.
  await assert.rejects(
    engine.add(viewer, [input('d0'), input('r1'), input('r2', 'not a number')], (i) => `body[${i}]`),
    /metadata\.price/,
  );
  check(engine, docs, 'after writes and a refused batch');

  // An index redeclared with another kind is built again (and its old list forgotten).
  await engine.log.submit({
    kind: 'update-collection',
    tenantId,
    name: 'c',
    body: { indexes: { ...indexes, created_at: 'float' } },
  });
  await waitBuilt(engine);
  check(engine, docs, 'redeclared');

  await engine.close();
  engine = openTestEngine(dir, 'use-lite-512');
  check(engine, docs, 'restarted');

  // A removed collection takes its lists: recreated under the same name, it answers its new documents only.
  await engine.log.submit({ kind: 'delete-collection', tenantId, name: 'c' });
  docs.clear();
  await engine.log.submit({ kind: 'create-collection', tenantId, body: { name: 'c', indexes } });
  await write(Array.from({ length: 200 }, (_v, i) => input(`e${i}`)));
  check(engine, docs, 'recreated');
  await engine.close();
});
