import type { FieldIndexKind } from '@godb/contract';
import type { FieldIndexReader, ReadyIndex } from '../field-indexes/field-indexes.js';
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

/** The key an index of `kind` holds for the values a filter's value equals (see filters.ts `equal`), or none. */
const noMatch = Symbol('no match');
function equalKey(kind: FieldIndexKind, value: unknown): string | number | typeof noMatch {
  const text = String(value);
  switch (kind) {
    case 'keyword':
    case 'datetime':
      return text;
    case 'integer':
    case 'float': {
      // A number equals a value whose text is its text: 5 and "5", not "5.0".
      const n = Number(text);
      return Number.isFinite(n) && String(n) === text ? n : noMatch;
    }
    case 'bool':
      return text === 'true' ? 1 : text === 'false' ? 0 : noMatch;
  }
}

/** A condition the indexes cannot answer exactly as the filter evaluates it: the filter reads the documents. */
class Unplannable extends Error {}

interface Target {
  readonly reader: FieldIndexReader;
  readonly tenant: string;
  readonly collection: string;
  readonly ready: ReadonlyMap<string, ReadyIndex>;
}

function condition(t: Target, f: Filter): Planned {
  const kind = t.ready.get(f.field)?.kind;
  if (kind === undefined) throw new Unplannable();
  const { reader, tenant, collection } = t;
  const equalTo = (values: readonly unknown[]): Planned => {
    // eq null matches a null value, which the index does not hold.
    if (values.some((v) => v === undefined || v === null)) throw new Unplannable();
    const keys = values.map((v) => equalKey(kind, v)).filter((k): k is string | number => k !== noMatch);
    return of(reader.equal(tenant, collection, f.field, keys));
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
      const present = of(reader.present(tenant, collection, f.field));
      return (f.value === undefined ? true : Boolean(f.value)) ? present : not(present);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      // As filters.ts `compare`: nothing compares with null; two strings compare as text, anything else as numbers.
      if (f.value === undefined || f.value === null) return nothing;
      if (kind === 'keyword') throw new Unplannable(); // text order of any string: JavaScript's, not SQLite's
      let bound: string | number;
      if (kind === 'datetime') {
        if (typeof f.value !== 'string') return nothing; // an ISO date is not a number
        bound = f.value;
      } else {
        bound = Number(f.value);
        if (Number.isNaN(bound)) return nothing;
      }
      return of(reader.range(tenant, collection, f.field, { [f.operator]: bound }));
    }
    case 'contains':
    case 'geo_radius':
      throw new Unplannable();
  }
}

const rangeOperators = ['gt', 'gte', 'lt', 'lte'] as const;
type RangeOperator = (typeof rangeOperators)[number];
const isRange = (n: FilterNode): n is Filter & { operator: RangeOperator } =>
  'field' in n && (rangeOperators as readonly string[]).includes(n.operator);

/**
 * The range conditions of a `must` on one indexed number field whose documents hold one value each, read as one range (`price >= 10` and `price < 20`
 * read the postings between, not half the collection twice); the rest of the conditions, as they are.
 */
function mergedRanges(t: Target, must: readonly FilterNode[]): { planned: (() => Planned)[]; rest: FilterNode[] } {
  const byField = new Map<string, Map<RangeOperator, number>>();
  const rest: FilterNode[] = [];
  for (const n of must) {
    // A list [1, 50] matches `>= 2` and `< 10` (each by another element) but holds nothing in [2, 10).
    const index = isRange(n) ? t.ready.get(n.field) : undefined;
    const kind = index && !index.multi ? index.kind : undefined;
    const bound = isRange(n) && n.value !== undefined && n.value !== null ? Number(n.value) : NaN;
    const numeric = kind === 'integer' || kind === 'float' || kind === 'bool';
    const ops = isRange(n) ? byField.get(n.field) : undefined;
    if (!isRange(n) || !numeric || Number.isNaN(bound) || ops?.has(n.operator)) {
      rest.push(n);
      continue;
    }
    byField.set(n.field, (ops ?? new Map<RangeOperator, number>()).set(n.operator, bound));
  }
  const planned = [...byField].map(
    ([field, ops]) =>
      () =>
        of(t.reader.range(t.tenant, t.collection, field, Object.fromEntries(ops))),
  );
  return { planned, rest };
}

function group(t: Target, g: FilterGroup): Planned {
  const node = (n: FilterNode): Planned => ('field' in n ? condition(t, n) : group(t, n));
  let out = all;
  const { planned, rest } = mergedRanges(t, g.must);
  // Every other condition first: a missing index gives up before any range is read.
  for (const n of rest) out = and(out, node(n));
  for (const read of planned) out = and(out, read());
  if (g.should.length > 0) out = and(out, g.should.map(node).reduce(or, nothing));
  if (g.mustNot.length > 0) out = and(out, not(g.mustNot.map(node).reduce(or, nothing)));
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
  return planned.not ? minus(new Set(reader.live(tenant, collection)), planned.seqs) : planned.seqs;
}
