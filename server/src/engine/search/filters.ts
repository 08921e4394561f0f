import { jsonInput } from './json-input.js';
import { createError, filterOperators, inputLimits, maxFilterDepth } from '@godb/contract';
import { haversineKm, pointOf } from './geo.js';
import { fieldValue, topLevelFields, type FilterableDocument } from '../field-indexes/field-values.js';

export { fieldValue, type FilterableDocument };
type Json = Record<string, unknown>;

export type FilterOperator = (typeof filterOperators)[number];

export interface Filter {
  readonly field: string;
  readonly operator: FilterOperator;
  readonly value: unknown;
}

/**
 * A group of conditions: every `must` matches, at least one `should` when there are any, no `must_not`. Groups
 * nest. A flat list of conditions means `must`.
 */
export interface FilterGroup {
  readonly must: readonly FilterNode[];
  readonly should: readonly FilterNode[];
  readonly mustNot: readonly FilterNode[];
}
export type FilterNode = Filter | FilterGroup;

const groupKeys = ['must', 'should', 'must_not'] as const;
/** Whether filters given as an object are a group {must, should, must_not} (not a {field: value} map). */
export const isFilterGroup = (value: object) => groupKeys.some((k) => k in value);

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
export const filterableFields = [
  ...topLevelFields,
  ...inFields,
  'location',
  'metadata.<key>',
  'metadata.<key>.<nested key>',
  'engagement.<key>',
];

function validField(field: string): boolean {
  return (
    (topLevelFields as readonly string[]).includes(field) ||
    (inFields as readonly string[]).includes(field) ||
    field === 'location' ||
    /^metadata\.[^.]+(\.[^.]+)*$/.test(field) ||
    /^engagement\.[^.]+$/.test(field)
  );
}

/**
 * Parses filters: a list of {field, operator, value} (all must match), an object {field: value} (equality), a group
 * {must, should, must_not} of conditions and nested groups, or any of these as a JSON string. Invalid JSON answers
 * 'Invalid JSON in filters: ...'; an unknown field or operator names the entry. Undefined when there are none.
 */
export function parseFilters(raw: unknown, path = 'body.filters'): FilterGroup | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = jsonInput(raw, 'INVALID_FILTERS_JSON', path);
  const budget = { clauses: 0 };
  let group: FilterGroup;
  if (Array.isArray(value)) {
    group = { must: value.map((entry, i) => parseClause(entry, `${path}[${i}]`, budget)), should: [], mustNot: [] };
  } else if (typeof value === 'object' && value !== null) {
    group = isFilterGroup(value)
      ? parseGroup(value as Json, path, 1, budget)
      : {
          must: Object.entries(value).map(([field, v]) =>
            parseClause({ field, operator: Array.isArray(v) ? 'in' : 'eq', value: v }, `${path}.${field}`, budget),
          ),
          should: [],
          mustNot: [],
        };
  } else {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${path} must be a list of {field, operator, value}, a group {must, should, must_not} or an object` },
      { field: path },
    );
  }
  return group.must.length + group.should.length + group.mustNot.length > 0 ? group : undefined;
}

function parseGroup(value: Json, path: string, depth: number, budget: { clauses: number }): FilterGroup {
  if (depth > maxFilterDepth) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${path}: filter groups nest at most ${maxFilterDepth} deep` },
      { field: path },
    );
  }
  for (const key of Object.keys(value)) {
    if (!(groupKeys as readonly string[]).includes(key)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${path}.${key}: a filter group has only must, should and must_not` },
        { field: `${path}.${key}` },
      );
    }
  }
  const nodes = (key: (typeof groupKeys)[number]): FilterNode[] => {
    const list = value[key];
    if (list === undefined) return [];
    if (!Array.isArray(list)) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${path}.${key} must be a list of conditions or groups` },
        { field: `${path}.${key}` },
      );
    }
    return list.map((entry: unknown, i) => {
      const at = `${path}.${key}[${i}]`;
      return entry && typeof entry === 'object' && !Array.isArray(entry) && isFilterGroup(entry)
        ? parseGroup(entry as Json, at, depth + 1, budget)
        : parseClause(entry, at, budget);
    });
  };
  return { must: nodes('must'), should: nodes('should'), mustNot: nodes('must_not') };
}

function parseClause(entry: unknown, at: string, budget: { clauses: number }): Filter {
  budget.clauses += 1;
  if (budget.clauses > inputLimits.filters) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${at}: at most ${inputLimits.filters} conditions in all` },
      { field: at },
    );
  }
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
  if (operator === 'geo_radius') {
    const v = e.value as { lat?: unknown; lon?: unknown; radius?: unknown } | null;
    const ok =
      v !== null &&
      typeof v === 'object' &&
      typeof v.lat === 'number' &&
      Math.abs(v.lat) <= 90 &&
      typeof v.lon === 'number' &&
      Math.abs(v.lon) <= 180 &&
      typeof v.radius === 'number' &&
      v.radius > 0;
    if (!ok) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${at}.value must be {lat, lon, radius} (degrees and kilometres) for geo_radius` },
        { field: `${at}.value` },
      );
    }
  }
  return { field: e.field, operator, value: e.value };
}

const equal = (a: unknown, b: unknown) =>
  a === b || (a !== undefined && a !== null && b !== undefined && b !== null && String(a) === String(b));

/**
 * Whether a value `equal`s an element of an in/nin filter's list, in constant time: the list's non-null elements by
 * their text, null and undefined apart (equal's own rule). Made once per filter: a list of 10,000 ids checked
 * element by element against every candidate cost seconds a search.
 */
const memberships = new WeakMap<Filter, (v: unknown) => boolean>();
function memberOf(filter: Filter): (v: unknown) => boolean {
  let member = memberships.get(filter);
  if (!member) {
    const list = filter.value as unknown[];
    const texts = new Set(list.filter((w) => w !== undefined && w !== null).map(String));
    const hasNull = list.includes(null);
    const hasUndefined = list.includes(undefined);
    member = (v) => (v === null ? hasNull : v === undefined ? hasUndefined : texts.has(String(v)));
    memberships.set(filter, member);
  }
  return member;
}

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
      return values.some(memberOf(filter));
    case 'nin':
      return !values.some(memberOf(filter));
    case 'contains':
      return Array.isArray(value)
        ? value.some((v) => equal(v, filter.value))
        : typeof value === 'string' && value.toLowerCase().includes(String(filter.value).toLowerCase());
    case 'exists':
      return (value !== undefined && value !== null) === (filter.value === undefined ? true : Boolean(filter.value));
    case 'geo_radius': {
      const point = pointOf(value);
      const at = filter.value as { lat: number; lon: number; radius: number };
      return point !== undefined && haversineKm(at.lat, at.lon, point[0], point[1]) <= at.radius;
    }
  }
}

/** Whether a document matches a filter group (see FilterGroup). */
export function matchesFilters(doc: FilterableDocument, group: FilterGroup): boolean {
  const matches = (node: FilterNode): boolean =>
    'field' in node ? matchesFilter(fieldValue(doc, node.field), node) : matchesFilters(doc, node);
  return (
    group.must.every(matches) &&
    (group.should.length === 0 || group.should.some(matches)) &&
    !group.mustNot.some(matches)
  );
}
