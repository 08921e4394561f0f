import { distinctNames } from './distinct-names.js';
import { jsonInput } from './json-input.js';
import { createError } from '@godb/contract';
import { nextTurn } from '../next-turn.js';
import { fieldValue, matchesFilter, type FilterOperator } from './filters.js';
import { textMatch } from './fts-query.js';
import type { GivenStats } from '../text/bm25-score.js';
import type { Hit, LoadedDocument } from './hit.js';
import type { Scope } from './scope.js';
import type { SearchCore } from './search-core.js';

export interface JoinCondition {
  readonly left_table: string;
  readonly left_field: string;
  readonly right_table: string;
  readonly right_field: string;
  readonly operator: FilterOperator;
}

const joinOperators: readonly FilterOperator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'];

/**
 * Defensive bounds, whoever calls the engine (the contract bounds the request more tightly): 20,000 table names
 * once ran one query per name, repeated every table's documents per repetition, and ran the server out of memory.
 */
export const maxTables = 64;
export const maxJoins = 16;
/**
 * Pairs a join compares with an operator other than `eq` (which looks partners up by value instead). Beyond it
 * the search answers 400 rather than hold the server for minutes on a cross product.
 */
export const maxJoinComparisons = 20_000_000;
/** Work (documents, comparisons) between two turns of the event loop, so other requests are served meanwhile. */
const workPerSlice = 50_000;
/** Partners listed per join under `joined`. */
const listedPartners = 10;

/** The table names, each once, in their first order; at most `maxTables` of them. */
export function distinctTables(tables: readonly string[]): string[] {
  return distinctNames(tables, maxTables, 'body.table_names', 'tables');
}

/**
 * Parses join conditions: a list (or a JSON string of a list) of
 * {left_table, left_field, operator (eq by default), right_table, right_field}; fields as in filters
 * (`id`, `title`, `metadata.<key>`, …). Both tables must be among table_names, and every condition starts from
 * the first condition's left table.
 */
export function parseJoins(raw: unknown, tables: readonly string[]): JoinCondition[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const value = jsonInput(raw, 'INVALID_FILTERS_JSON', 'body.join_conditions');
  const list = Array.isArray(value) ? value : [value];
  if (list.length > maxJoins) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `body.join_conditions may hold at most ${maxJoins} conditions (it holds ${list.length})` },
      { field: 'body.join_conditions' },
    );
  }
  const known = new Set(tables);
  const joins = list.map((entry: unknown, i) => {
    const at = `body.join_conditions[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at} must be an object {left_table, left_field, operator, right_table, right_field}` },
        { field: at },
      );
    }
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
      if (!known.has(c[key] as string)) {
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
    return {
      left_table: c.left_table as string,
      left_field: c.left_field as string,
      right_table: c.right_table as string,
      right_field: c.right_field as string,
      operator,
    };
  });
  const base = joins[0]?.left_table;
  if (joins.some((j) => j.left_table !== base)) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `every join must start from ${String(base)}, the first condition's left_table` },
      { field: 'body.join_conditions' },
    );
  }
  return joins;
}

/**
 * The key under which `eq` finds a value: filters' equality is `a === b`, or the same string when neither is
 * null or undefined, so undefined and null only equal themselves and everything else compares as a string.
 */
const equalityKey = (value: unknown) =>
  value === undefined ? 'u' : value === null ? 'n' : `s${String(value as string | number | boolean)}`;

/** The documents of one right table and, for `eq`, an index of them by the value of each right field. */
class Partners {
  readonly docs: LoadedDocument[];
  readonly #byValue = new Map<string, Map<string, number[]>>();

  constructor(docs: LoadedDocument[]) {
    this.docs = docs;
  }

  /** Positions of the partners whose `field` equals (as filters' `eq`) the value, in order. */
  equalTo(field: string, key: string): readonly number[] {
    let index = this.#byValue.get(field);
    if (!index) {
      index = new Map();
      this.docs.forEach((doc, i) => {
        const k = equalityKey(fieldValue(doc, field));
        const list = index!.get(k);
        if (list) list.push(i);
        else index!.set(k, [i]);
      });
      this.#byValue.set(field, index);
    }
    return index.get(key) ?? [];
  }
}

/** Document ids in code-unit order (as merged answers break ties). */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Search across primary tables. Without joins: the query (any word, BM25; ranked with `stats` when given, a
 * partitioned collection's summed over its shards) over the listed tables, or their documents without a query,
 * each result naming its table; best first, ties in table_names' order, then newest first, then by id (an order a
 * cluster merging its shards' parts answers alike). With joins: the documents of the first
 * condition's left table (matching the query, if any) that have at least one partner in every right table,
 * with up to 10 partners per condition listed under `joined` (an inner join). The tenant's matching documents
 * are read once, whatever the number of tables; `eq` joins look partners up by value; long joins yield to other
 * requests between slices and stop when `signal` aborts.
 */
export async function multiTableSearch(
  core: SearchCore,
  scope: Scope,
  tableNames: readonly string[],
  query: string | undefined,
  joins: readonly JoinCondition[],
  signal?: AbortSignal,
  stats?: GivenStats,
): Promise<Hit[]> {
  const tables = distinctTables(tableNames);
  const match = query ? textMatch(query, 'match') : undefined;
  const wanted = new Map(tables.map((table, i) => [table, i]));
  const base = joins[0]?.left_table;
  const inTables = (only: ReadonlyMap<string, number>): Hit[] => {
    const all = { ...scope, table: only.size === 1 ? [...only.keys()][0] : scope.table };
    const hits = match
      ? core.textHits(all, match, stats && { stats })
      : core
          .all(all)
          .filter((d) => core.accept(d, all).ok)
          .map((doc) => ({ doc, score: 1, chunks: [] }));
    // A node's part of a fanned-out search joins and answers only the documents it counts (decision 0091).
    const counted = scope.counted;
    return hits
      .flatMap((h) => {
        const at = only.get(h.doc.primary_table);
        return at === undefined || (counted && !counted(h.doc))
          ? []
          : [{ hit: { ...h, table: h.doc.primary_table }, at }];
      })
      .sort(
        (a, b) =>
          b.hit.score - a.hit.score ||
          a.at - b.at ||
          b.hit.doc.updated_at - a.hit.doc.updated_at ||
          byId(a.hit.doc.id, b.hit.doc.id),
      )
      .map((h) => h.hit);
  };
  if (base === undefined) return inTables(wanted);

  const partners = new Map<string, Partners>();
  const partnersOf = (table: string) => {
    let p = partners.get(table);
    if (!p) {
      p = new Partners(core.all({ ...scope, table, filters: undefined }));
      partners.set(table, p);
    }
    return p;
  };
  const results: Hit[] = [];
  let compared = 0;
  let sinceTurn = 0;
  for (const hit of inTables(new Map([[base, 0]]))) {
    if (sinceTurn >= workPerSlice) {
      sinceTurn = 0;
      await nextTurn(signal);
    }
    sinceTurn += 1;
    const joined: NonNullable<Hit['joined']> = [];
    let ok = true;
    for (const join of joins) {
      const right = partnersOf(join.right_table);
      const left = fieldValue(hit.doc, join.left_field);
      const found: LoadedDocument[] = [];
      const isPartner = (p: LoadedDocument) => p.seq !== hit.doc.seq;
      if (join.operator === 'eq') {
        // The condition reads "left_field eq right_field": any element of a list on the left may match.
        const keys = new Set((Array.isArray(left) ? left : [left]).map(equalityKey));
        const at = [...keys].flatMap((k) => right.equalTo(join.right_field, k));
        if (keys.size > 1) at.sort((x, y) => x - y);
        for (const i of at) {
          const p = right.docs[i]!;
          if (isPartner(p) && !found.includes(p)) found.push(p);
          if (found.length === listedPartners) break;
        }
      } else {
        for (const p of right.docs) {
          compared += 1;
          sinceTurn += 1;
          const matches =
            isPartner(p) &&
            matchesFilter(left, {
              field: join.left_field,
              operator: join.operator,
              value: fieldValue(p, join.right_field),
            });
          if (matches) found.push(p);
          if (found.length === listedPartners) break;
        }
        if (compared > maxJoinComparisons) {
          throw createError(
            'VALIDATION_FAILED',
            {
              detail: `body.join_conditions would compare more than ${maxJoinComparisons} pairs of documents: join with eq, or narrow the left table with a query`,
            },
            { field: 'body.join_conditions' },
          );
        }
      }
      if (found.length === 0) {
        ok = false;
        break;
      }
      for (const m of found) joined.push({ table: join.right_table, document_id: m.id, title: m.title });
    }
    if (ok) results.push({ ...hit, joined });
  }
  return results;
}
