import type { FieldIndexReader } from '../field-indexes/field-indexes.js';
import { conditionEstimate, groupEstimate, rangeEstimate } from './filter-estimates.js';
import {
  equalKey,
  mergedRanges,
  noMatch,
  rangeBound,
  type rangeOperators,
  Unplannable,
  withinRadius,
  type Radius,
  type Target,
} from './filter-index-parts.js';
import { compiledTest, NotInMemory } from './filter-probes.js';
import type { Filter, FilterGroup, FilterNode } from './filters.js';

/** Documents a part of a filter lets through: `seqs`, or (`not`) every live document of the collection but those. */
interface Planned {
  readonly not: boolean;
  readonly seqs: Set<number>;
}

const of = (seqs: Iterable<number>, not = false): Planned => ({ not, seqs: new Set(seqs) });
const all: Planned = { not: true, seqs: new Set() };
const nothing: Planned = { not: false, seqs: new Set() };

function intersect(a: Set<number>, b: Set<number>): Set<number> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const out = new Set<number>();
  for (const s of small) if (large.has(s)) out.add(s);
  return out;
}
function minus(a: Set<number>, b: Set<number>): Set<number> {
  const out = new Set<number>();
  for (const s of a) if (!b.has(s)) out.add(s);
  return out;
}
function union(a: Set<number>, b: Set<number>): Set<number> {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  const out = new Set(large);
  for (const s of small) out.add(s);
  return out;
}

/** Both (complements kept as complements: a negation costs its own matches, not the collection). */
function and(a: Planned, b: Planned): Planned {
  // Everything and b is b (a group's first part starts from everything: no copy of its set).
  if (a === all) return b;
  if (b === all) return a;
  if (!a.not && !b.not) return of(intersect(a.seqs, b.seqs));
  if (!a.not) return of(minus(a.seqs, b.seqs));
  if (!b.not) return of(minus(b.seqs, a.seqs));
  return of(union(a.seqs, b.seqs), true);
}
function or(a: Planned, b: Planned): Planned {
  if (!a.not && !b.not) return of(union(a.seqs, b.seqs));
  if (!a.not) return of(minus(b.seqs, a.seqs), true);
  if (!b.not) return of(minus(a.seqs, b.seqs), true);
  return of(intersect(a.seqs, b.seqs), true);
}
const not = (a: Planned): Planned => ({ not: !a.not, seqs: a.seqs });

/** Allowed documents up to which further conditions are checked on their own postings (see probeLookup). */
const probeBelow = 2000;
/** How many more postings than allowed documents make probing them cheaper than reading the postings. */
const probeRatio = 8;

/** How the postings answer one condition: the documents holding some keys, a range, or a value at all. */
interface Lookup {
  /** The few documents a probe looks among (undefined: the whole index). */
  readonly among?: Set<number>;
  equal(keys: readonly (string | number)[]): Planned;
  range(operator: (typeof rangeOperators)[number], bound: string | number): Planned;
  present(): Planned;
}

/** Lookups over the whole index: postings read by value. */
const indexLookup = (t: Target, path: string): Lookup => ({
  equal: (keys) => of(keys.length === 0 ? [] : t.reader.equal(t.tenant, t.collection, path, keys)),
  range: (operator, bound) => of(t.reader.range(t.tenant, t.collection, path, { [operator]: bound })),
  present: () => of(t.reader.present(t.tenant, t.collection, path)),
});

/**
 * Lookups among a few documents already allowed: their postings of the field read by document and compared here
 * (keys compare as SQLite compares them: numbers as numbers, the ASCII dates as text), so that a broad condition
 * after a selective one costs the few documents, not its own matches.
 */
function probeLookup(t: Target, path: string, within: Set<number>): Lookup {
  const compare = {
    gt: (a: string | number, b: string | number) => a > b,
    gte: (a: string | number, b: string | number) => a >= b,
    lt: (a: string | number, b: string | number) => a < b,
    lte: (a: string | number, b: string | number) => a <= b,
  };
  const lookup = (holding: (test: (key: string | number) => boolean) => Planned, present: () => Planned) => ({
    among: within,
    equal: (wanted: readonly (string | number)[]) => {
      const set = new Set(wanted);
      return holding((key) => set.has(key));
    },
    range: (operator: (typeof rangeOperators)[number], bound: string | number) =>
      holding((key) => typeof key === typeof bound && compare[operator](key, bound)),
    present,
  });
  const held = t.reader.holding(t.tenant, t.collection, path);
  if (held) {
    // In memory: each document's keys tested in place (a 1 % group's 2,000 documents: no arrays made per document).
    const passing = (pass: (seq: number) => boolean): Planned => {
      const out = new Set<number>();
      for (const seq of within) if (pass(seq)) out.add(seq);
      return { not: false, seqs: out };
    };
    return lookup(
      (test) => passing((seq) => held.some(seq, test)),
      () => passing((seq) => held.has(seq)),
    );
  }
  const { present, keys } = t.reader.valuesOf(t.tenant, t.collection, [...within], path);
  return lookup(
    (test) => {
      const out = new Set<number>();
      for (const [seq, values] of keys) if (values.some(test)) out.add(seq);
      return { not: false, seqs: out };
    },
    () => ({ not: false, seqs: present }),
  );
}

/** Documents that are in `within` and in (or not in) `p`. */
const inside = (within: Set<number>, p: Planned): Planned =>
  of(p.not ? minus(within, p.seqs) : intersect(within, p.seqs));

function condition(t: Target, f: Filter, lookup: Lookup = indexLookup(t, f.field)): Planned {
  const kind = t.ready.get(f.field)?.kind;
  if (kind === undefined) throw new Unplannable();
  if (kind === 'geo') {
    // The R*Tree answers a radius; any other condition on the location reads the documents.
    if (f.operator !== 'geo_radius') throw new Unplannable();
    const near = of(withinRadius(t, f.value as Radius));
    return lookup.among ? inside(lookup.among, near) : near;
  }
  const equalTo = (values: readonly unknown[]): Planned => {
    // eq null matches a null value, which the index does not hold.
    if (values.some((v) => v === undefined || v === null)) throw new Unplannable();
    const keys = values.map((v) => equalKey(kind, v)).filter((k): k is string | number => k !== noMatch);
    return lookup.equal(keys);
  };
  switch (f.operator) {
    case 'eq':
      return equalTo([f.value]);
    case 'ne':
      return not(equalTo([f.value]));
    case 'in':
      return equalTo(f.value as unknown[]);
    case 'nin':
      return not(equalTo(f.value as unknown[]));
    case 'exists': {
      const present = lookup.present();
      return (f.value === undefined ? true : Boolean(f.value)) ? present : not(present);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = rangeBound(kind, f.value);
      if (bound === noMatch) return nothing;
      return lookup.range(f.operator, bound);
    }
    case 'contains':
    case 'geo_radius':
      throw new Unplannable();
  }
}

/**
 * Whether a condition (or group) is checked on the postings of the `within` documents rather than read whole: when
 * they are few (probeBelow), or when the node's own postings, counted up to probeRatio times as many, are more (a
 * 1 % group after a 50 % date range: 2,000 documents probed at about 2 µs each instead of 500,000 postings read).
 */
function probes(t: Target, within: Planned, n: FilterNode | readonly Filter[]): boolean {
  if (within.not) return false;
  const size = within.seqs.size;
  if (size <= probeBelow) return true;
  const cap = size * probeRatio;
  const bounds = Array.isArray(n)
    ? rangeEstimate(t, n[0]!.field, false, Object.fromEntries(n.map((f) => [f.operator, Number(f.value)])), cap)
    : 'field' in (n as FilterNode)
      ? conditionEstimate(t, n as Filter, cap)
      : groupEstimate(t, n as FilterGroup, cap);
  return bounds.low >= cap;
}

/** The part of `g` among `start` (every document when `all`); nested groups are evaluated among what is allowed. */
function group(t: Target, g: FilterGroup, start: Planned = all): Planned {
  let out = start;
  const { planned, rest } = mergedRanges(t, g.must);
  // The node among the documents allowed so far: by their postings alone when that costs less than its own.
  const among = (within: Planned, n: FilterNode): Planned => {
    if (!probes(t, within, n)) return and(within, 'field' in n ? condition(t, n) : group(t, n));
    return 'field' in n
      ? inside(within.seqs, condition(t, n, probeLookup(t, n.field, within.seqs)))
      : group(t, n, within);
  };
  const few = () => !out.not && out.seqs.size <= probeBelow;
  const each = (n: FilterNode): Planned => among(out, n);
  // Equalities first (usually the most selective), ranges last: a missing index gives up before any range is read.
  const first = (n: FilterNode) => 'field' in n && (n.operator === 'eq' || n.operator === 'in');
  for (const n of [...rest.filter(first), ...rest.filter((n) => !first(n))]) out = each(n);
  // The alternatives before the ranges of the must: a selective should leaves the ranges a few documents to check.
  if (g.should.length > 0) {
    const within = out;
    out = g.should.map((n) => among(within, n)).reduce(or, nothing);
  }
  for (const p of planned) {
    if (!few() && !probes(t, out, p.nodes))
      out = and(out, of(t.reader.range(t.tenant, t.collection, p.field, p.range)));
    else for (const n of p.nodes) out = each(n);
  }
  // Not n, among out: out less the part of n among out.
  for (const n of g.mustNot) out = out.not ? and(out, not(among(all, n))) : of(minus(out.seqs, among(out, n).seqs));
  return out;
}

/**
 * The live documents of a collection that a filter lets through, computed from the collection's ready field indexes
 * in time proportional to the postings it reads (a negation alone reads the collection's live seqs): or undefined
 * when a condition is on a field without a ready index, or one the indexes cannot answer exactly as filters.ts
 * evaluates it (contains, geo_radius, a comparison with null, a text range on a keyword): the caller then reads
 * the documents. The access rule is not applied (the caller checks its hits with it).
 *
 * @example const seqs = plannedSet(engine.fieldIndexes, tenantId, 'products', parseFilters({ 'metadata.tag': 'a' }));
 */
export function plannedSet(
  reader: FieldIndexReader,
  tenant: string,
  collection: string,
  filters: FilterGroup,
): Set<number> | undefined {
  const ready = reader.ready(tenant, collection);
  if (ready.size === 0) return undefined;
  let planned: Planned;
  try {
    planned = group({ reader, tenant, collection, ready }, filters);
  } catch (error) {
    if (error instanceof Unplannable) return undefined;
    throw error;
  }
  if (planned.not) return minus(new Set(reader.live(tenant, collection)), planned.seqs);
  // The caller's to keep and extend (AllowedSets adopts it): never a shared empty set.
  return planned.seqs === nothing.seqs || planned.seqs === all.seqs ? new Set() : planned.seqs;
}

/**
 * Which of documents `among` (live or not) a filter lets through, from the postings of those documents alone (about
 * 2 µs a document and condition): the check of HNSW candidates under a broad filter, which neither reads a row nor
 * makes the filter's set. Undefined as for plannedSet. The access rule is not applied.
 *
 * @example const pass = plannedAmong(engine.fieldIndexes, tenantId, 'products', filters, new Set([4, 8, 15]));
 */
export function plannedAmong(
  reader: FieldIndexReader,
  tenant: string,
  collection: string,
  filters: FilterGroup,
  among: ReadonlySet<number>,
): Set<number> | undefined {
  const ready = reader.ready(tenant, collection);
  if (ready.size === 0) return undefined;
  const t = { reader, tenant, collection, ready };
  try {
    // From memory: each document's keys tested in turn (no set made per condition).
    const test = compiledTest(t, filters);
    const out = new Set<number>();
    for (const seq of among) if (test(seq)) out.add(seq);
    return out;
  } catch (error) {
    if (error instanceof Unplannable) return undefined;
    if (!(error instanceof NotInMemory)) throw error;
  }
  try {
    const planned = group(t, filters, of(among));
    return planned.not ? minus(new Set(among), planned.seqs) : planned.seqs;
  } catch (error) {
    if (error instanceof Unplannable) return undefined;
    throw error;
  }
}
