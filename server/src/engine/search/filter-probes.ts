import {
  equalKey,
  noMatch,
  rangeBound,
  Unplannable,
  withinRadius,
  type Radius,
  type Target,
} from './filter-index-parts.js';
import type { Filter, FilterGroup, FilterNode } from './filters.js';

/** The indexes are not in memory now (inside a write transaction): the caller reads the postings from SQLite. */
export class NotInMemory extends Error {}

type Test = (seq: number) => boolean;

const compare = {
  gt: (a: string | number, b: string | number) => a > b,
  gte: (a: string | number, b: string | number) => a >= b,
  lt: (a: string | number, b: string | number) => a < b,
  lte: (a: string | number, b: string | number) => a <= b,
};

/** One condition as a test of a document's keys, answering what indexed-filters.ts `condition` answers. */
function conditionTest(t: Target, f: Filter): Test {
  const kind = t.ready.get(f.field)?.kind;
  if (kind === undefined) throw new Unplannable();
  if (kind === 'geo') {
    if (f.operator !== 'geo_radius') throw new Unplannable();
    let near: Set<number> | undefined;
    return (seq) => (near ??= new Set(withinRadius(t, f.value as Radius))).has(seq);
  }
  const held = t.reader.holding(t.tenant, t.collection, f.field);
  if (!held) throw new NotInMemory();
  const holdsAny = (values: readonly unknown[]): Test => {
    if (values.some((v) => v === undefined || v === null)) throw new Unplannable();
    const keys = new Set(values.map((v) => equalKey(kind, v)).filter((k): k is string | number => k !== noMatch));
    const test = (key: string | number) => keys.has(key);
    return (seq) => held.some(seq, test);
  };
  const none: Test = () => false;
  switch (f.operator) {
    case 'eq':
      return holdsAny([f.value]);
    case 'in':
      return holdsAny(f.value as unknown[]);
    case 'ne':
    case 'nin': {
      const holds = holdsAny(f.operator === 'ne' ? [f.value] : (f.value as unknown[]));
      return (seq) => !holds(seq);
    }
    case 'exists':
      return (f.value === undefined ? true : Boolean(f.value)) ? (seq) => held.has(seq) : (seq) => !held.has(seq);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = rangeBound(kind, f.value);
      if (bound === noMatch) return none;
      const op = compare[f.operator];
      const test = (key: string | number) => typeof key === typeof bound && op(key, bound);
      return (seq) => held.some(seq, test);
    }
    case 'contains':
    case 'geo_radius':
      throw new Unplannable();
  }
}

function nodeTest(t: Target, n: FilterNode): Test {
  return 'field' in n ? conditionTest(t, n) : compiledTest(t, n);
}

/**
 * A filter group as one test of a document, from the postings in memory: every `must`, one `should` when there are
 * any, no `must_not` — what plannedAmong's sets answer for the documents it is given, at a few array reads per
 * document and condition instead of a set per condition. Throws Unplannable where plannedSet gives up (every node is
 * compiled first, so a filter is unplannable here exactly when it is there), NotInMemory inside a transaction.
 *
 * @example const test = compiledTest(t, parseFilters({ 'metadata.tag': 'a' })!); test(42); // true or false
 */
export function compiledTest(t: Target, g: FilterGroup): Test {
  const must = g.must.map((n) => nodeTest(t, n));
  const should = g.should.map((n) => nodeTest(t, n));
  const mustNot = g.mustNot.map((n) => nodeTest(t, n));
  return (seq) => {
    for (const test of must) if (!test(seq)) return false;
    if (should.length > 0 && !should.some((test) => test(seq))) return false;
    for (const test of mustNot) if (test(seq)) return false;
    return true;
  };
}
