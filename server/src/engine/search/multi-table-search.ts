import { jsonInput } from './json-input.js';
import { createError } from '@godb/contract';
import { fieldValue, matchesFilter, type FilterOperator } from './filters.js';
import { textMatch } from './fts-query.js';
import type { Hit, Scope, SearchCore } from './search-core.js';

export interface JoinCondition {
  readonly left_table: string;
  readonly left_field: string;
  readonly right_table: string;
  readonly right_field: string;
  readonly operator: FilterOperator;
}

const joinOperators: readonly FilterOperator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'];

/**
 * Parses join conditions: a list (or a JSON string of a list) of
 * {left_table, left_field, operator (eq by default), right_table, right_field}; fields as in filters
 * (`id`, `title`, `metadata.<key>`, …). Both tables must be among table_names.
 */
export function parseJoins(raw: unknown, tables: readonly string[]): JoinCondition[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const value = jsonInput(raw, 'INVALID_FILTERS_JSON', 'body.join_conditions');
  const list = Array.isArray(value) ? value : [value];
  return list.map((entry, i) => {
    const at = `body.join_conditions[${i}]`;
    const c = entry as Partial<Record<keyof JoinCondition, unknown>>;
    for (const key of ['left_table', 'left_field', 'right_table', 'right_field'] as const) {
      if (typeof c[key] !== 'string' || c[key] === '') {
        throw createError(
          'VALIDATION_FAILED',
          {
            detail: `${at}.${key} is required (a join is {left_table, left_field, operator, right_table, right_field})`,
          },
          { field: `${at}.${key}` },
        );
      }
    }
    for (const key of ['left_table', 'right_table'] as const) {
      if (!tables.includes(c[key] as string)) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `${at}.${key} "${String(c[key])}" is not in table_names` },
          { field: `${at}.${key}` },
        );
      }
    }
    const operator = (c.operator ?? 'eq') as FilterOperator;
    if (!joinOperators.includes(operator)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at}.operator must be one of: ${joinOperators.join(', ')}` },
        { field: `${at}.operator` },
      );
    }
    return { ...(c as unknown as JoinCondition), operator };
  });
}

/**
 * Search across primary tables. Without joins: the query (any word, BM25) over the listed tables, or their
 * newest documents without a query, each result naming its table. With joins: the documents of the first
 * condition's left table (matching the query, if any) that have at least one partner in every right table,
 * with the partners listed under `joined` (an inner join).
 */
export function multiTableSearch(
  core: SearchCore,
  scope: Scope,
  tables: readonly string[],
  query: string | undefined,
  joins: readonly JoinCondition[],
): Hit[] {
  const match = query ? textMatch(query, 'match') : undefined;
  const inTable = (table: string): Hit[] => {
    const tableScope = { ...scope, table };
    const hits = match
      ? core.textHits(tableScope, match)
      : core
          .all(tableScope)
          .filter((d) => core.accept(d, tableScope).ok)
          .map((doc) => ({ doc, score: 1, chunks: [] }));
    return hits.map((h) => ({ ...h, table }));
  };
  if (joins.length === 0) {
    return tables.flatMap(inTable).sort((a, b) => b.score - a.score);
  }
  const base = joins[0]!.left_table;
  const partners = new Map<string, Hit[]>();
  const docsOf = (table: string) => {
    let docs = partners.get(table);
    if (!docs) {
      const tableScope = { ...scope, table, filters: [] };
      docs = core.all(tableScope).map((doc) => ({ doc, score: 1, chunks: [], table }));
      partners.set(table, docs);
    }
    return docs;
  };
  const results: Hit[] = [];
  for (const hit of inTable(base)) {
    const joined: NonNullable<Hit['joined']> = [];
    let ok = true;
    for (const join of joins) {
      if (join.left_table !== base) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `every join must start from ${base}, the first condition's left_table` },
          { field: 'body.join_conditions' },
        );
      }
      const left = fieldValue(hit.doc, join.left_field);
      // The condition reads "left_field operator right_field".
      const matches = docsOf(join.right_table).filter(
        (p) =>
          p.doc.seq !== hit.doc.seq &&
          matchesFilter(left, {
            field: join.left_field,
            operator: join.operator,
            value: fieldValue(p.doc, join.right_field),
          }),
      );
      if (matches.length === 0) {
        ok = false;
        break;
      }
      joined.push(
        ...matches.slice(0, 10).map((m) => ({ table: join.right_table, document_id: m.doc.id, title: m.doc.title })),
      );
    }
    if (ok) results.push({ ...hit, joined });
  }
  return results;
}
