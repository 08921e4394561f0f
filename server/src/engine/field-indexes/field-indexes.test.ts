import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { DocumentInput, FieldIndexDeclarations } from '@godb/contract';
import { isGoDBError } from '@godb/contract';
import { openTestEngine, type TestEngine } from '../../test-support/engine.js';
import { matchesFilters, parseFilters, type FilterableDocument } from '../search/filters.js';
import { estimateMatches } from '../search/filter-estimates.js';
import { plannedAmong, plannedSet } from '../search/indexed-filters.js';
import { seededRandom } from '../../test-support/fuzz-inputs.js';

// Issue #39: a filter on indexed fields learns its documents from the postings. Every answer must be the one the
// filter's own evaluation (filters.ts) gives over every live document: checked against brute force on random data
// with missing fields, lists, nulls and values of every type, after writes, updates, deletes and a restart.
const tenantId = '00000000-0000-4000-8000-0000000000e9';
const viewer = { tenantId, userId: 'owner', groups: [] as string[] };
const indexes: FieldIndexDeclarations = {
  'metadata.tag': 'keyword',
  'metadata.price': 'float',
  'metadata.n': 'integer',
  'metadata.flag': 'bool',
  'metadata.when': 'datetime',
  tags: 'keyword',
  created_at: 'integer',
};

// One fixed sequence (seeds 1 to 5 passed too when this landed).
const rnd = seededRandom(39);
/** For the checks' own choices (caps), so that the data and filters stay the sequence above. */
const side = seededRandom(7);
const pick = <T>(values: readonly T[]): T => values[Math.floor(rnd() * values.length)]!;
const maybeList = <T>(value: () => T): T | (T | null)[] | null | undefined => {
  const r = rnd();
  if (r < 0.15) return undefined;
  if (r < 0.22) return null;
  if (r < 0.4) return Array.from({ length: Math.floor(rnd() * 4) }, () => (rnd() < 0.1 ? null : value()));
  return value();
};
const tags = ['a', 'b', 'c', '5', 'É', 'a b', ''];
const dates = ['2026-01-01', '2026-01-15T10:00:00Z', '2025-12-31', '2026-02-01T00:00:00.5+01:00'];
const numbers = [0, 1, 2, 2.5, -3, 5, 10, 100.25];

function metadata(): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) m[key] = value;
  };
  put(
    'tag',
    maybeList(() => pick(tags)),
  );
  put(
    'price',
    maybeList(() => pick(numbers)),
  );
  put(
    'n',
    maybeList(() => Math.floor(pick(numbers))),
  );
  put(
    'flag',
    maybeList(() => rnd() < 0.5),
  );
  put(
    'when',
    maybeList(() => pick(dates)),
  );
  // Not indexed: any type; a filter on it reads the documents.
  put(
    'other',
    maybeList(() => pick<unknown>(['x', 1, true, '2'])),
  );
  return m;
}

function input(id: string): DocumentInput {
  const t = maybeList(() => pick(tags));
  return {
    id,
    title: id,
    content: id,
    primary_table: 'c',
    metadata: metadata(),
    ...(Array.isArray(t) && { tags: t.filter((x): x is string => x !== null) }),
    created_at: 1_700_000_000 + Math.floor(rnd() * 10),
    embedding_options: { enabled: false },
  } as DocumentInput;
}

/** Random values of every type a filter may carry. */
const anyValue = (): unknown =>
  pick<() => unknown>([
    () => pick(tags),
    () => pick(numbers),
    () => String(pick(numbers)),
    () => rnd() < 0.5,
    () => pick(['true', 'false']),
    () => pick(dates),
    () => (rnd() < 0.3 ? null : pick(tags)),
  ])();
const fields = ['metadata.tag', 'metadata.price', 'metadata.n', 'metadata.flag', 'metadata.when', 'tags', 'created_at'];
const operators = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'exists'] as const;

function condition(unindexed: boolean): Record<string, unknown> {
  const field = unindexed ? 'metadata.other' : pick(fields);
  const operator = pick(operators);
  const value =
    operator === 'in' || operator === 'nin'
      ? Array.from({ length: 1 + Math.floor(rnd() * 3) }, anyValue).filter((v) => v !== null)
      : operator === 'exists'
        ? pick([true, false, undefined])
        : field === 'created_at' && rnd() < 0.7
          ? 1_700_000_000 + Math.floor(rnd() * 10)
          : anyValue();
  return { field, operator, ...(value !== undefined && { value }) };
}
function group(depth: number): Record<string, unknown> {
  const nodes = () =>
    Array.from({ length: Math.floor(rnd() * 3) }, () =>
      depth < 3 && rnd() < 0.3 ? group(depth + 1) : condition(rnd() < 0.03),
    );
  const g: Record<string, unknown> = { must: nodes(), should: nodes(), must_not: nodes() };
  return g;
}

interface Model {
  readonly docs: Map<string, DocumentInput>;
}

/** What filters.ts reads of a document, from the input the test wrote (as the store keeps it). */
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
    fields: { metadata: doc.metadata as Record<string, unknown>, ...(doc.tags && { tags: doc.tags }) },
  };
}

function idsOf(engine: TestEngine, seqs: Iterable<number>): string[] {
  return [...seqs].map((seq) => engine.documents.store.rowBySeq(seq)!.id).sort();
}

/** Checks `count` random filters; answers how many the indexes planned. */
function checkFilters(engine: TestEngine, model: Model, count: number): number {
  let planned = 0;
  for (let i = 0; i < count; i += 1) {
    const raw = rnd() < 0.3 ? [condition(false)] : group(1);
    const filters = parseFilters(raw);
    if (!filters) continue;
    const expected = [...model.docs.values()]
      .filter((d) => matchesFilters(filterable(d), filters))
      .map((d) => d.id!)
      .sort();
    const seqs = plannedSet(engine.fieldIndexes, tenantId, 'c', filters);
    // The planner's estimate exists exactly when the set does, and bounds it (a small cap: counts stop on both sides).
    const cap = 1 + Math.floor(side() * 120);
    const estimate = estimateMatches(engine.fieldIndexes, tenantId, 'c', filters, cap);
    assert.equal(estimate === undefined, seqs === undefined, `filter ${JSON.stringify(raw)}`);
    if (seqs === undefined || estimate === undefined) continue;
    planned += 1;
    assert.deepEqual(idsOf(engine, seqs), expected, `filter ${JSON.stringify(raw)}`);
    assert.ok(
      estimate.low <= seqs.size && seqs.size <= estimate.high,
      `${JSON.stringify(estimate)} bounds ${seqs.size} (cap ${cap}): ${JSON.stringify(raw)}`,
    ); // HNSW candidates of a broad filter are checked on their postings: the same documents, among some.
    const among = new Set(engine.fieldIndexes.live(tenantId, 'c').filter(() => rnd() < 0.5));
    const passing = plannedAmong(engine.fieldIndexes, tenantId, 'c', filters, among);
    assert.deepEqual(
      idsOf(engine, passing ?? []),
      idsOf(
        engine,
        [...seqs].filter((seq) => among.has(seq)),
      ),
      `among: ${JSON.stringify(raw)}`,
    );
  }
  return planned;
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function waitBuilt(engine: TestEngine): Promise<void> {
  while (engine.fieldIndexes.building) await new Promise((resolve) => setImmediate(resolve));
}

test('every operator and nesting answers what the filter evaluates, after writes, updates, deletes and a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'godb-field-indexes-'));
  dirs.push(dir);
  let engine = openTestEngine(dir, 'use-lite-512');
  await engine.log.submit({ kind: 'create-collection', tenantId, body: { name: 'c', indexes } });
  const model: Model = { docs: new Map() };
  const write = async (ids: readonly string[]) => {
    const inputs = ids.map(input);
    await engine.add(viewer, inputs, (i) => `body[${i}]`);
    for (const doc of inputs) model.docs.set(doc.id!, doc);
  };
  await write(Array.from({ length: 300 }, (_v, i) => `d${i}`));
  // Some carry a condition the indexes leave to the documents (null, a text range on a keyword, an unindexed field).
  assert.ok(checkFilters(engine, model, 400) > 200, 'most random filters are answered from the indexes');

  // Updates (new versions), soft deletes and purges.
  await write(Array.from({ length: 80 }, (_v, i) => `d${i * 3}`));
  for (let i = 1; i < 60; i += 5) {
    await engine.commands.delete(viewer, `d${i}`, { recursive: false, permanent: i % 2 === 0 });
    model.docs.delete(`d${i}`);
  }
  assert.ok(checkFilters(engine, model, 300) > 150);
  const info = engine.fieldIndexes.info(tenantId, 'c');
  const withTag = [...model.docs.values()].filter((d) => {
    const v = (d.metadata as Record<string, unknown>).tag;
    return v !== undefined && v !== null;
  }).length;
  assert.equal(info['metadata.tag']?.documents, withTag, 'postings hold current live versions only');
  assert.equal(info['metadata.tag']?.state, 'ready');

  await engine.close();
  engine = openTestEngine(dir, 'use-lite-512');
  assert.ok(checkFilters(engine, model, 200) > 100, 'the indexes are kept across a restart');

  // The search's allowed set comes from the indexes the first time a filter is seen.
  const filters = parseFilters({ 'metadata.tag': 'a' })!;
  const set = engine.search.allowed.get(tenantId, 'c', filters);
  assert.ok(set, 'a first-seen filter on an indexed field has its set at once');
  const expected = [...model.docs.values()].filter((d) => matchesFilters(filterable(d), filters)).map((d) => d.id!);
  assert.deepEqual(idsOf(engine, set.docs), expected.sort());
  await engine.close();
});

test('an index declared over existing documents is built in the background, and dropped when undeclared', async () => {
  const engine = openTestEngine(':memory:', 'use-lite-512');
  try {
    await engine.log.submit({ kind: 'create-collection', tenantId, body: { name: 'c' } });
    const model: Model = { docs: new Map() };
    const inputs = Array.from({ length: 2500 }, (_v, i) => input(`e${i}`));
    await engine.add(viewer, inputs, (i) => `body[${i}]`);
    for (const doc of inputs) model.docs.set(doc.id!, doc);
    await engine.log.submit({
      kind: 'update-collection',
      tenantId,
      name: 'c',
      body: { indexes: { 'metadata.tag': 'keyword', 'metadata.price': 'float' } },
    });
    const building = engine.fieldIndexes.info(tenantId, 'c')['metadata.tag']!;
    assert.equal(building.state, 'building');
    assert.equal(building.progress, 0);
    assert.equal(
      plannedSet(engine.fieldIndexes, tenantId, 'c', parseFilters({ 'metadata.tag': 'a' })!),
      undefined,
      'a building index is not used',
    );
    // A write while it builds is indexed by the write itself.
    const late = input('late');
    await engine.add(viewer, [late], () => 'body');
    model.docs.set('late', late);
    await waitBuilt(engine);
    const ready = engine.fieldIndexes.info(tenantId, 'c');
    assert.equal(ready['metadata.tag']!.state, 'ready');
    assert.equal(ready['metadata.tag']!.progress, 1);
    for (const raw of [
      { 'metadata.tag': 'a' },
      { 'metadata.tag': ['b', '5'] },
      [{ field: 'metadata.price', operator: 'gte', value: 2 }],
      // Ranges of one field read as one range; a repeated bound stays apart.
      [
        { field: 'metadata.price', operator: 'gte', value: 2 },
        { field: 'metadata.price', operator: 'lt', value: '10' },
      ],
      {
        must: [
          { field: 'metadata.price', operator: 'gt', value: 1 },
          { field: 'metadata.price', operator: 'gt', value: 5 },
          { field: 'metadata.price', operator: 'lte', value: 100.25 },
          { field: 'metadata.tag', operator: 'ne', value: 'a' },
        ],
      },
    ]) {
      const filters = parseFilters(raw)!;
      const expected = [...model.docs.values()].filter((d) => matchesFilters(filterable(d), filters)).map((d) => d.id!);
      assert.deepEqual(
        idsOf(engine, plannedSet(engine.fieldIndexes, tenantId, 'c', filters)!),
        expected.sort(),
        JSON.stringify(raw),
      );
    }

    await engine.log.submit({
      kind: 'update-collection',
      tenantId,
      name: 'c',
      body: { indexes: { 'metadata.price': 'float' } },
    });
    assert.deepEqual(Object.keys(engine.fieldIndexes.info(tenantId, 'c')), ['metadata.price']);
    assert.equal(engine.collections.get(tenantId, 'c')?.indexes?.['metadata.tag'], undefined);
  } finally {
    await engine.close();
  }
});

test('a value of another type than declared is refused at write time, naming the field and the type', async () => {
  const engine = openTestEngine(':memory:', 'use-lite-512');
  try {
    await engine.log.submit({ kind: 'create-collection', tenantId, body: { name: 'c', indexes } });
    const bad = { ...input('bad'), metadata: { price: [1, 'cheap'] } } as DocumentInput;
    await assert.rejects(
      engine.add(viewer, [input('ok'), bad], (i) => `body[${i}]`),
      (error: unknown) =>
        isGoDBError(error) &&
        error.code === 'VALIDATION_FAILED' &&
        error.field === 'body[1].metadata.price' &&
        /"cheap".*metadata\.price as float/.test(error.message),
    );
    assert.equal(engine.documents.store.row(tenantId, 'ok'), undefined, 'nothing of the write stays');

    // Existing documents of another type: the build fails, says why, and filters read the documents.
    await engine.log.submit({ kind: 'create-collection', tenantId, body: { name: 'd' } });
    await engine.add(
      viewer,
      [{ ...input('x'), primary_table: 'd', metadata: { size: 'large' } } as DocumentInput],
      () => 'body',
    );
    await engine.log.submit({
      kind: 'update-collection',
      tenantId,
      name: 'd',
      body: { indexes: { 'metadata.size': 'integer' } },
    });
    await waitBuilt(engine);
    const failed = engine.fieldIndexes.info(tenantId, 'd')['metadata.size']!;
    assert.equal(failed.state, 'failed');
    assert.match(failed.error ?? '', /document x has metadata\.size = "large", not integer/);
    assert.equal(plannedSet(engine.fieldIndexes, tenantId, 'd', parseFilters({ 'metadata.size': 1 })!), undefined);
  } finally {
    await engine.close();
  }
});

test('an unknown kind or a field no index can be declared on is refused, naming it', async () => {
  const engine = openTestEngine(':memory:', 'use-lite-512');
  try {
    for (const [declared, field] of [
      [{ 'metadata.a': 'geo' }, 'body.indexes.metadata.a'],
      [{ location: 'keyword' }, 'body.indexes.location'],
      [{ content: 'keyword' }, 'body.indexes.content'],
      [{ 'engagement.views': 'integer' }, 'body.indexes.engagement.views'],
      [{ created_at: 'keyword' }, 'body.indexes.created_at'],
    ] as const) {
      await assert.rejects(
        engine.log.submit({
          kind: 'create-collection',
          tenantId,
          body: { name: 'c', indexes: declared as unknown as FieldIndexDeclarations },
        }),
        (error: unknown) => isGoDBError(error) && error.code === 'VALIDATION_FAILED' && error.field === field,
      );
    }
    assert.equal(engine.collections.get(tenantId, 'c'), undefined);
  } finally {
    await engine.close();
  }
});

test('a geo index on location answers geo_radius from the R*Tree, exactly as the filter measures', async () => {
  const engine = openTestEngine(':memory:', 'use-lite-512');
  try {
    const geoRnd = seededRandom(4242);
    await engine.log.submit({
      kind: 'create-collection',
      tenantId,
      body: { name: 'places', indexes: { location: 'geo', 'metadata.tag': 'keyword' } },
    });
    // Points around a centre, a few near the poles and the antimeridian, some with no location at all.
    const docs = Array.from({ length: 400 }, (_v, i) => {
      const far = i % 17 === 0;
      const lat = far ? 89.5 - geoRnd() : 48 + (geoRnd() - 0.5) * 4;
      const lon = far ? 179.9 - geoRnd() * 0.2 : 2 + (geoRnd() - 0.5) * 6;
      return {
        id: `g${i}`,
        title: `g${i}`,
        primary_table: 'places',
        metadata: { tag: pick(tags) },
        ...(i % 9 !== 0 && { location: [lat, lon] }),
        embedding_options: { enabled: false },
      } as DocumentInput;
    });
    await engine.add(viewer, docs, (i) => `body[${i}]`);
    const info = engine.fieldIndexes.info(tenantId, 'places');
    assert.equal(info.location?.state, 'ready', 'ready at once: nothing to build');
    assert.equal(info.location?.documents, docs.filter((d) => d.location).length);
    const rows = new Map(
      docs.map((d) => [
        d.id!,
        {
          ...filterable(d),
          primary_table: 'places',
          ...(d.location && { lat: d.location[0], lon: d.location[1] }),
        } as FilterableDocument,
      ]),
    );
    for (let i = 0; i < 60; i += 1) {
      const centre = i % 5 === 0 ? { lat: 89, lon: 179.5 } : { lat: 48 + geoRnd() - 0.5, lon: 2 + geoRnd() - 0.5 };
      const radius = [1, 25, 80, 200, 500][i % 5]!;
      const near = { field: 'location', operator: 'geo_radius', value: { ...centre, radius } };
      const raw =
        i % 2 === 0 ? [near] : { must: [near], must_not: [{ field: 'metadata.tag', operator: 'eq', value: 'a' }] };
      const filters = parseFilters(raw)!;
      const expected = [...rows.values()]
        .filter((d) => matchesFilters(d, filters))
        .map((d) => d.id)
        .sort();
      const seqs = plannedSet(engine.fieldIndexes, tenantId, 'places', filters);
      assert.ok(seqs, 'planned from the indexes');
      assert.deepEqual(idsOf(engine, seqs), expected, JSON.stringify(raw));
      const estimate = estimateMatches(engine.fieldIndexes, tenantId, 'places', filters, 50)!;
      assert.ok(estimate.low <= seqs.size && seqs.size <= estimate.high, JSON.stringify({ estimate, n: seqs.size }));
    }
    // Another condition on the location reads the documents.
    const exists = parseFilters([{ field: 'location', operator: 'exists', value: true }])!;
    assert.equal(plannedSet(engine.fieldIndexes, tenantId, 'places', exists), undefined);
  } finally {
    await engine.close();
  }
});
