import { conditionList } from './filter-eval.js';
import { documentIdOf } from './point-ids.js';

/** A GoDB filter clause (contract Filters). */
export interface GoDBClause {
  readonly field: string;
  readonly operator: 'eq' | 'in' | 'gt' | 'gte' | 'lt' | 'lte';
  readonly value: unknown;
}

/**
 * The part of a Qdrant filter GoDB's own filters can apply, as a list of clauses that must all match: every
 * document matching the Qdrant filter matches them (GoDB's `eq` compares as text, so it allows a few more), so they
 * only narrow the candidates — matchesQdrantFilter decides. Taken from `must` (and `must` of nested filters) only:
 * match value/any, numeric ranges and has_id. Undefined when nothing narrows.
 *
 * @example narrowingClauses('books', { must: [{ key: 'year', range: { gte: 2000 } }] }) // [{field: 'metadata.year', operator: 'gte', value: 2000}]
 */
export function narrowingClauses(collection: string, filter: unknown): GoDBClause[] | undefined {
  const clauses: GoDBClause[] = [];
  const collect = (f: unknown, depth: number) => {
    if (!f || typeof f !== 'object' || depth > 4) return;
    for (const c of conditionList((f as { must?: unknown }).must)) {
      if ('must' in c || 'should' in c || 'must_not' in c) collect(c, depth + 1);
      else clauses.push(...clausesOf(collection, c));
    }
  };
  collect(filter, 0);
  // GoDB bounds the clauses of one filter; the narrowest few are enough to narrow.
  return clauses.length === 0 ? undefined : clauses.slice(0, 16);
}

function clausesOf(collection: string, c: Record<string, unknown>): GoDBClause[] {
  if ('has_id' in c && Array.isArray(c.has_id)) {
    return [{ field: 'id', operator: 'in', value: c.has_id.map((id) => documentIdOf(collection, id)) }];
  }
  if (typeof c.key !== 'string' || !/^[A-Za-z0-9_\-[\].]+$/.test(c.key)) return [];
  // GoDB walks lists of objects on plain keys: `a[].b` narrows as `metadata.a.b`.
  const field = `metadata.${c.key.replace(/\[\]/g, '')}`;
  if (/\[\d*\]/.test(field)) return [];
  const match = c.match as Record<string, unknown> | undefined;
  if (match && 'value' in match && ['string', 'number', 'boolean'].includes(typeof match.value)) {
    return [{ field, operator: 'eq', value: match.value }];
  }
  if (match && 'any' in match && Array.isArray(match.any) && match.any.length > 0) {
    return [{ field, operator: 'in', value: match.any }];
  }
  const range = c.range as Record<string, unknown> | undefined;
  if (range && typeof range === 'object') {
    return (['gt', 'gte', 'lt', 'lte'] as const)
      .filter((op) => typeof range[op] === 'number')
      .map((op) => ({ field, operator: op, value: range[op] }));
  }
  return [];
}

/** A GoDB filter group (contract FilterGroup). */
export interface GoDBGroup {
  must?: (GoDBClause | GoDBGroup)[];
  should?: (GoDBClause | GoDBGroup)[];
  must_not?: (GoDBClause | GoDBGroup)[];
}

/** The field indexes of a collection that are ready, by field: what makes a translation exact. */
export type ReadyIndexes = Readonly<Record<string, string>>;

/**
 * The Qdrant filter as a GoDB filter with the same answers, or undefined when GoDB's grammar cannot say it exactly.
 * GoDB compares `eq` as text (`"1"` matches `1`), so a condition translates only on a field whose ready field index
 * guarantees every stored value's type (a keyword index holds only strings; integer, float and bool alike): match
 * value and any, numeric ranges, has_id, and must/should/must_not up to GoDB's three levels. With such indexes
 * (Qdrant's `PUT /collections/{name}/index`) a filter is answered by GoDB's own filtered search.
 *
 * @example exactFilter('c', { must: [{ key: 'city', match: { value: 'Oslo' } }] }, { 'metadata.city': 'keyword' }) // {must: [{field: 'metadata.city', operator: 'eq', value: 'Oslo'}]}
 */
export function exactFilter(collection: string, filter: unknown, indexes: ReadyIndexes): GoDBGroup | undefined {
  const group = (f: unknown, depth: number): GoDBGroup | undefined => {
    if (!f || typeof f !== 'object' || Array.isArray(f) || depth > 3) return undefined;
    const out: GoDBGroup = {};
    for (const [key, value] of Object.entries(f)) {
      if (value === undefined || value === null) continue;
      if (key !== 'must' && key !== 'should' && key !== 'must_not') return undefined;
      const entries: (GoDBClause | GoDBGroup)[] = [];
      for (const c of conditionList(value)) {
        const entry = conditionOf(c, depth);
        if (!entry) return undefined;
        entries.push(entry);
      }
      if (entries.length > 0) out[key] = entries;
    }
    return out;
  };
  const conditionOf = (c: Record<string, unknown>, depth: number): GoDBClause | GoDBGroup | undefined => {
    if ('has_id' in c) {
      return Array.isArray(c.has_id)
        ? { field: 'id', operator: 'in', value: c.has_id.map((id) => documentIdOf(collection, id)) }
        : undefined;
    }
    if (!('key' in c)) {
      const nested = group(c, depth + 1);
      return nested && Object.keys(nested).length > 0 ? nested : undefined;
    }
    if (typeof c.key !== 'string' || !/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(c.key)) return undefined;
    const field = `metadata.${c.key}`;
    const kind = indexes[field];
    const others = Object.keys(c).filter((k) => k !== 'key' && c[k] !== undefined && c[k] !== null);
    if (kind === undefined || others.length !== 1) return undefined;
    const match = c.match as Record<string, unknown> | undefined;
    const typed = (v: unknown) =>
      (kind === 'keyword' && typeof v === 'string') ||
      (kind === 'bool' && typeof v === 'boolean') ||
      (kind === 'integer' && typeof v === 'number' && Number.isInteger(v));
    if (match && Object.keys(match).length === 1 && 'value' in match && typed(match.value)) {
      return { field, operator: 'eq', value: match.value };
    }
    if (
      match &&
      Object.keys(match).length === 1 &&
      Array.isArray(match.any) &&
      match.any.length > 0 &&
      match.any.every(typed)
    ) {
      return { field, operator: 'in', value: match.any };
    }
    const range = c.range as Record<string, unknown> | undefined;
    if (range && (kind === 'integer' || kind === 'float')) {
      const bounds = Object.entries(range).filter(([, b]) => b !== undefined && b !== null);
      if (
        bounds.length === 0 ||
        bounds.some(([op, b]) => !['gt', 'gte', 'lt', 'lte'].includes(op) || typeof b !== 'number')
      ) {
        return undefined;
      }
      const clauses = bounds.map(([op, b]) => ({ field, operator: op as GoDBClause['operator'], value: b }));
      if (clauses.length === 1) return clauses[0];
      return depth < 3 ? { must: clauses } : undefined;
    }
    return undefined;
  };
  const translated = group(filter, 1);
  return translated && Object.keys(translated).length > 0 ? translated : undefined;
}
