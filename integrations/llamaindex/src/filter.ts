import { GoDBError } from '@godb/client';
import type { filterOperators } from '@godb/contract';
import type { MetadataFilter, MetadataFilters } from '@llamaindex/core/vector-store';

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

/**
 * LlamaIndex's metadata filters; an entry may itself be a `MetadataFilters` group, as LlamaIndex Python allows
 * (GoDB nests groups at most three levels deep).
 */
export interface NestedMetadataFilters {
  filters: (MetadataFilter | NestedMetadataFilters)[];
  condition?: MetadataFilters['condition'];
}

type Primitive = string | number | boolean;

function invalid(message: string, field = 'filters'): GoDBError {
  return new GoDBError({ code: 'VALIDATION_FAILED', message, status: 0, field });
}

function primitive(filter: MetadataFilter): Primitive {
  const { value } = filter;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  throw invalid(
    `The ${filter.operator} filter on ${filter.key} needs a string or a number, not ${JSON.stringify(value)}`,
    filter.key,
  );
}

function list(filter: MetadataFilter): Primitive[] {
  const { value } = filter;
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => ['string', 'number', 'boolean'].includes(typeof v))
  ) {
    return value;
  }
  throw invalid(
    `The ${filter.operator} filter on ${filter.key} needs a non-empty list of strings or numbers`,
    filter.key,
  );
}

/**
 * One LlamaIndex condition as GoDB conditions. A node without the key matches no operator but is_empty, as in
 * LlamaIndex's own SimpleVectorStore: `!=` and `nin` therefore also require the key (GoDB's alone would let it pass).
 */
function condition(filter: MetadataFilter): FilterClause | FilterGroup {
  if (typeof filter.key !== 'string' || filter.key === '') throw invalid('Every metadata filter needs a key');
  const field = `metadata.${filter.key}`;
  const exists: FilterClause = { field, operator: 'exists', value: true };
  switch (filter.operator) {
    case '==':
      return { field, operator: 'eq', value: primitive(filter) };
    case '!=':
      return { must: [exists, { field, operator: 'ne', value: primitive(filter) }] };
    case '>':
      return { field, operator: 'gt', value: primitive(filter) };
    case '>=':
      return { field, operator: 'gte', value: primitive(filter) };
    case '<':
      return { field, operator: 'lt', value: primitive(filter) };
    case '<=':
      return { field, operator: 'lte', value: primitive(filter) };
    case 'in':
      return { field, operator: 'in', value: list(filter) };
    case 'nin':
      return { must: [exists, { field, operator: 'nin', value: list(filter) }] };
    // GoDB compares a list element by element: `in` holds when any element is listed, `eq` when one equals.
    case 'any':
      return { field, operator: 'in', value: list(filter) };
    case 'all':
      return { must: list(filter).map((value) => ({ field, operator: 'eq' as const, value })) };
    case 'contains':
      return { field, operator: 'contains', value: primitive(filter) };
    // GoDB's contains on a string is a case-insensitive substring match.
    case 'text_match':
      return { field, operator: 'contains', value: String(primitive(filter)) };
    // A missing key, null or the empty string; GoDB's filters cannot tell an empty list from a missing key.
    case 'is_empty':
      return {
        should: [
          { field, operator: 'exists', value: false },
          { field, operator: 'eq', value: '' },
        ],
      };
    default: {
      const operator: string = (filter as { operator: string }).operator;
      throw invalid(
        `GoDB cannot map the metadata filter operator ${JSON.stringify(operator)} on ${filter.key}: use one of ==, !=, >, >=, <, <=, in, nin, any, all, contains, text_match, is_empty`,
        filter.key,
      );
    }
  }
}

function group(filters: NestedMetadataFilters): FilterGroup {
  if (!Array.isArray(filters.filters) || filters.filters.length === 0) {
    throw invalid('The metadata filters are empty: give at least one filter');
  }
  const entries = filters.filters.map((f) => ('filters' in f ? group(f) : condition(f)));
  const how = filters.condition ?? 'and';
  if (how === 'and') return { must: entries };
  if (how === 'or') return { should: entries };
  throw invalid(`GoDB cannot map the filter condition ${JSON.stringify(how)}: use and or or`, 'condition');
}

/**
 * Maps LlamaIndex metadata filters to GoDB's filter grammar over `metadata.<key>` (keys with dots reach nested
 * metadata). Throws a VALIDATION_FAILED GoDBError naming what it cannot map.
 *
 * @example toGoDBFilter({ filters: [{ key: 'year', operator: '>=', value: 2024 }], condition: 'and' })
 *   // { must: [{ field: 'metadata.year', operator: 'gte', value: 2024 }] }
 */
export function toGoDBFilter(filters: MetadataFilters | NestedMetadataFilters): FilterGroup {
  return group(filters);
}
