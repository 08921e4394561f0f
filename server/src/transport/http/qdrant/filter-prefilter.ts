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
