import { GoDBError } from '@godb/client';
import type { filterOperators } from '@godb/contract';

/** One condition of GoDB's filter grammar (contract/src/schemas/search.ts). */
export interface FilterClause {
  field: string;
  operator: (typeof filterOperators)[number];
  value?: unknown;
}
/** A group of conditions and nested groups (at most three levels deep). */
export interface FilterGroup {
  must?: (FilterClause | FilterGroup)[];
  should?: (FilterClause | FilterGroup)[];
  must_not?: (FilterClause | FilterGroup)[];
}
/** GoDB's filter grammar, as count, scroll, delete and every search take it: conditions that all match, or a group. */
export type GoDBFilter = FilterClause[] | FilterGroup;

type Scalar = string | number | boolean | null;
/** Comparison operators on one metadata key, in the style most LangChain stores accept. */
export interface MetadataOperators {
  $eq?: Scalar;
  $ne?: Scalar;
  $gt?: number | string;
  $gte?: number | string;
  $lt?: number | string;
  $lte?: number | string;
  $in?: Scalar[];
  $nin?: Scalar[];
  /** A list that holds the value, or a string that contains it (case-insensitive). */
  $contains?: Scalar;
  $exists?: boolean;
}

/**
 * A filter over the documents' metadata: `{ key: value }` (a list means any of them), `{ key: { $gte: 2020 } }`,
 * and `$and`, `$or`, `$not` to combine; keys reach nested metadata with dots (`specs.weight`).
 */
export interface MetadataFilter {
  $and?: MetadataFilter[];
  $or?: MetadataFilter[];
  $not?: MetadataFilter;
  [key: string]: Scalar | Scalar[] | MetadataOperators | MetadataFilter | MetadataFilter[] | undefined;
}

/** What `filter` accepts in the vector store: a metadata filter, or GoDB's own grammar as it is. */
export type GoDBVectorStoreFilter = MetadataFilter | GoDBFilter;

const operators: Readonly<Record<keyof MetadataOperators, FilterClause['operator']>> = {
  $eq: 'eq',
  $ne: 'ne',
  $gt: 'gt',
  $gte: 'gte',
  $lt: 'lt',
  $lte: 'lte',
  $in: 'in',
  $nin: 'nin',
  $contains: 'contains',
  $exists: 'exists',
};

const groupKeys = new Set(['must', 'should', 'must_not']);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function invalid(message: string, field: string): GoDBError {
  return new GoDBError({ code: 'VALIDATION_FAILED', message, status: 0, field });
}

function clauses(key: string, value: unknown): FilterClause[] {
  const field = `metadata.${key}`;
  if (Array.isArray(value)) return [{ field, operator: 'in', value }];
  if (!isObject(value)) return [{ field, operator: 'eq', value }];
  return Object.entries(value).map(([op, operand]) => {
    const operator = operators[op as keyof MetadataOperators];
    if (operator === undefined) {
      throw invalid(`Unknown filter operator ${op} on ${key}: use one of ${Object.keys(operators).join(', ')}`, key);
    }
    return { field, operator, value: operand };
  });
}

function group(filter: MetadataFilter): FilterGroup {
  const must: (FilterClause | FilterGroup)[] = [];
  const should: FilterGroup[] = [];
  const mustNot: FilterGroup[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (key === '$and') must.push(...(value as MetadataFilter[]).map(group));
    else if (key === '$or') should.push(...(value as MetadataFilter[]).map(group));
    else if (key === '$not') mustNot.push(group(value as MetadataFilter));
    else must.push(...clauses(key, value));
  }
  return {
    ...(must.length > 0 && { must }),
    ...(should.length > 0 && { should }),
    ...(mustNot.length > 0 && { must_not: mustNot }),
  };
}

/**
 * Maps a vector store filter to GoDB's grammar: a list of conditions or a `{must, should, must_not}` group passes
 * as it is; a metadata filter becomes a group over `metadata.<key>`.
 *
 * @example toGoDBFilter({ colour: 'red', year: { $gte: 2020 } })
 *   // { must: [{ field: 'metadata.colour', operator: 'eq', value: 'red' },
 *   //          { field: 'metadata.year', operator: 'gte', value: 2020 }] }
 */
export function toGoDBFilter(filter: GoDBVectorStoreFilter): GoDBFilter {
  if (Array.isArray(filter)) return filter;
  const keys = Object.keys(filter);
  if (keys.length > 0 && keys.every((k) => groupKeys.has(k))) return filter as GoDBFilter;
  const mapped = group(filter as MetadataFilter);
  if (Object.keys(mapped).length === 0) throw invalid('The filter is empty: give at least one condition', 'filter');
  return mapped;
}
