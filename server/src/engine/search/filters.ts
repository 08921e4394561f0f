import { jsonInput } from './json-input.js';
import { createError, filterOperators } from '@godb/contract';

export type FilterOperator = (typeof filterOperators)[number];

export interface Filter {
  readonly field: string;
  readonly operator: FilterOperator;
  readonly value: unknown;
}

/** What a filter can read of a document. */
export interface FilterableDocument {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly primary_table: string;
  readonly visibility: string;
  readonly created_at: number;
  readonly updated_at: number;
  readonly parent_doc_id: string | null;
  readonly cluster: number | null;
  readonly fields: Record<string, unknown> & { metadata?: Record<string, unknown> };
}

const topLevel = [
  'id',
  'title',
  'content',
  'primary_table',
  'visibility',
  'created_at',
  'updated_at',
  'parent_doc_id',
  'cluster',
] as const;
const inFields = [
  'tags',
  'categories',
  'lang_code',
  'external_id',
  'source_url',
  'file_type',
  'content_type',
  'label',
  'access_list',
] as const;
export const filterableFields = [...topLevel, ...inFields, 'metadata.<key>', 'engagement.<key>'];

/** The value of a field of a document: top-level fields, `metadata.<key>` and `engagement.<key>`. */
export function fieldValue(doc: FilterableDocument, field: string): unknown {
  if (field.startsWith('metadata.')) return doc.fields.metadata?.[field.slice('metadata.'.length)];
  if (field.startsWith('engagement.'))
    return (doc.fields.engagement as Record<string, unknown> | undefined)?.[field.slice('engagement.'.length)];
  if ((topLevel as readonly string[]).includes(field)) return doc[field as (typeof topLevel)[number]];
  return doc.fields[field];
}

function validField(field: string): boolean {
  return (
    (topLevel as readonly string[]).includes(field) ||
    (inFields as readonly string[]).includes(field) ||
    /^(metadata|engagement)\.[^.]+$/.test(field)
  );
}

/**
 * Parses filters given as a list of {field, operator, value}, an object {field: value} (equality), or either as a
 * JSON string. Invalid JSON answers 'Invalid JSON in filters: ...'; an unknown field or operator names the entry.
 */
export function parseFilters(raw: unknown, path = 'body.filters'): Filter[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const value = jsonInput(raw, 'INVALID_FILTERS_JSON', path);
  const entries: unknown[] = Array.isArray(value)
    ? value
    : typeof value === 'object' && value !== null
      ? Object.entries(value).map(([field, v]) => ({ field, operator: Array.isArray(v) ? 'in' : 'eq', value: v }))
      : [];
  if (!Array.isArray(value) && (typeof value !== 'object' || value === null)) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${path} must be a list of {field, operator, value} or an object` },
      { field: path },
    );
  }
  return entries.map((entry, i) => {
    const at = `${path}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at} must be an object {field, operator, value}` },
        { field: at },
      );
    }
    const e = entry as { field?: unknown; operator?: unknown; value?: unknown };
    if (typeof e.field !== 'string' || !validField(e.field)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at}.field must be one of: ${filterableFields.join(', ')}` },
        { field: `${at}.field` },
      );
    }
    const operator = (e.operator ?? 'eq') as FilterOperator;
    if (!filterOperators.includes(operator)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at}.operator must be one of: ${filterOperators.join(', ')}` },
        { field: `${at}.operator` },
      );
    }
    if ((operator === 'in' || operator === 'nin') && !Array.isArray(e.value)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at}.value must be a list for ${operator}` },
        { field: `${at}.value` },
      );
    }
    return { field: e.field, operator, value: e.value };
  });
}

const equal = (a: unknown, b: unknown) =>
  a === b || (a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b));

function compare(a: unknown, b: unknown): number | undefined {
  if (a === undefined || a === null || b === undefined || b === null) return undefined;
  const x = Number(a);
  const y = Number(b);
  if (typeof a !== 'string' || typeof b !== 'string') return Number.isNaN(x) || Number.isNaN(y) ? undefined : x - y;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One filter against one value; lists match when any element matches (tags, categories). */
export function matchesFilter(value: unknown, filter: Filter): boolean {
  const values = Array.isArray(value) ? value : [value];
  switch (filter.operator) {
    case 'eq':
      return values.some((v) => equal(v, filter.value));
    case 'ne':
      return !values.some((v) => equal(v, filter.value));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return values.some((v) => {
        const c = compare(v, filter.value);
        if (c === undefined) return false;
        return filter.operator === 'gt'
          ? c > 0
          : filter.operator === 'gte'
            ? c >= 0
            : filter.operator === 'lt'
              ? c < 0
              : c <= 0;
      });
    case 'in':
      return values.some((v) => (filter.value as unknown[]).some((w) => equal(v, w)));
    case 'nin':
      return !values.some((v) => (filter.value as unknown[]).some((w) => equal(v, w)));
    case 'contains':
      return Array.isArray(value)
        ? value.some((v) => equal(v, filter.value))
        : typeof value === 'string' && value.toLowerCase().includes(String(filter.value).toLowerCase());
    case 'exists':
      return (value !== undefined && value !== null) === (filter.value === undefined ? true : Boolean(filter.value));
  }
}

export function matchesAll(doc: FilterableDocument, filters: readonly Filter[]): boolean {
  return filters.every((f) => matchesFilter(fieldValue(doc, f.field), f));
}
