import type { FieldIndexReader } from '../field-indexes/field-indexes.js';
import type { ValueRange } from '../field-indexes/field-index-rows.js';
import type { Filter, FilterGroup, FilterNode } from './filters.js';
import {
  boxAround,
  equalKey,
  mergedRanges,
  noMatch,
  rangeBound,
  Unplannable,
  type Radius,
  type Target,
} from './filter-index-parts.js';

// Cardinality estimates of a filter on indexed fields: each condition's postings counted up to a cap, combined
// through the filter's groups into bounds (decision 0050), so the planner picks a path before making any set.

/** Bounds of how many documents a filter (or a part of it) lets through; `high` Infinity when unknown. */
export interface MatchEstimate {
  readonly low: number;
  readonly high: number;
}

const unknown: MatchEstimate = { low: 0, high: Infinity };
const none: MatchEstimate = { low: 0, high: 0 };
// Without the collection's size no lower bound survives an intersection or a negation: "unknown" there makes the
// caller compute the set (as exact as before, only slower), never take a selective filter for a broad one.
const both = (a: MatchEstimate, b: MatchEstimate): MatchEstimate => ({ low: 0, high: Math.min(a.high, b.high) });
const either = (a: MatchEstimate, b: MatchEstimate): MatchEstimate => ({
  low: Math.max(a.low, b.low),
  high: a.high + b.high,
});

/** A count that stopped at the cap says "at least the cap"; below it, it is exact. */
const counted = (n: number, cap: number): MatchEstimate =>
  n >= cap ? { low: cap, high: Infinity } : { low: n, high: n };

/** The bounds of one condition, from the postings counted up to `cap` (see plannedSet for what is plannable). */
export function conditionEstimate(t: Target, f: Filter, cap: number): MatchEstimate {
  const index = t.ready.get(f.field);
  if (index === undefined) throw new Unplannable();
  const { kind, multi } = index;
  if (kind === 'geo') {
    if (f.operator !== 'geo_radius') throw new Unplannable();
    // The box holds the circle: its points bound the matches from above.
    const inBox = t.reader.pointsInBox(t.tenant, t.collection, boxAround(f.value as Radius), cap).length;
    return inBox >= cap ? unknown : { low: 0, high: inBox };
  }
  const equalTo = (values: readonly unknown[]): MatchEstimate => {
    if (values.some((v) => v === undefined || v === null)) throw new Unplannable();
    const keys = [...new Set(values.map((v) => equalKey(kind, v)).filter((k): k is string | number => k !== noMatch))];
    // A key's postings are one per document; a list holding two of the keys is counted under each.
    return keys
      .map((key) => counted(t.reader.countKey(t.tenant, t.collection, f.field, key, cap), cap))
      .reduce((a, b) => (multi ? either(a, b) : { low: a.low + b.low, high: a.high + b.high }), none);
  };
  switch (f.operator) {
    case 'eq':
      return equalTo([f.value]);
    case 'in':
      return equalTo(f.value as unknown[]);
    case 'ne':
    case 'nin':
      equalTo(f.operator === 'ne' ? [f.value] : (f.value as unknown[])); // plannable or not, as plannedSet says
      return unknown;
    case 'exists': {
      const present = counted(t.reader.countPresent(t.tenant, t.collection, f.field, cap), cap);
      return (f.value === undefined ? true : Boolean(f.value)) ? present : unknown;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = rangeBound(kind, f.value);
      if (bound === noMatch) return none;
      return rangeEstimate(t, f.field, multi, { [f.operator]: bound }, cap);
    }
    case 'contains':
    case 'geo_radius':
      throw new Unplannable();
  }
}

/** Postings in a range are one per document of a single-valued field; of a list, a document may hold several. */
export function rangeEstimate(t: Target, path: string, multi: boolean, range: ValueRange, cap: number): MatchEstimate {
  const n = counted(t.reader.countRange(t.tenant, t.collection, path, range, cap), cap);
  return multi ? { low: Math.min(n.low, 1), high: n.high } : n;
}

export function groupEstimate(t: Target, g: FilterGroup, cap: number): MatchEstimate {
  const node = (n: FilterNode): MatchEstimate =>
    'field' in n ? conditionEstimate(t, n, cap) : groupEstimate(t, n, cap);
  let out: MatchEstimate | undefined; // every document, so far
  const and = (e: MatchEstimate) => (out = out === undefined ? e : both(out, e));
  const { planned, rest } = mergedRanges(t, g.must);
  for (const n of rest) and(node(n));
  for (const p of planned) and(rangeEstimate(t, p.field, false, p.range, cap));
  if (g.should.length > 0) and(g.should.map(node).reduce(either, none));
  for (const n of g.mustNot) {
    node(n); // plannable or not
    and(unknown);
  }
  return out ?? unknown;
}

/**
 * Bounds of how many live documents a filter lets through, from the collection's ready field indexes without
 * reading a single posting list: each condition's postings counted up to `cap` (an index walk that stops there),
 * combined through the filter's groups. Undefined when plannedSet would answer undefined (the filter reads the
 * documents). A `low` of `cap` or more says the filter is broad: its set would cost at least that many postings.
 *
 * @example const e = estimateMatches(engine.fieldIndexes, tenantId, 'products', filters, 2000); // {low, high}
 */
export function estimateMatches(
  reader: FieldIndexReader,
  tenant: string,
  collection: string,
  filters: FilterGroup,
  cap: number,
): MatchEstimate | undefined {
  const ready = reader.ready(tenant, collection);
  if (ready.size === 0) return undefined;
  try {
    return groupEstimate({ reader, tenant, collection, ready }, filters, cap);
  } catch (error) {
    if (error instanceof Unplannable) return undefined;
    throw error;
  }
}
