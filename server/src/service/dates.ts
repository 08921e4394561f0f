import { isFilterGroup } from '../engine/search/filters.js';
import { createError, inputLimits, isoDatePattern } from '@godb/contract';

type Json = Record<string, unknown>;

interface SchemaLike {
  pattern?: string;
  properties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  anyOf?: SchemaLike[];
  allOf?: SchemaLike[];
}

/** Fields that filters may compare with a date (the top-level dates a filter can read, see engine filters). */
const filterDateFields = new Set(['created_at', 'updated_at']);

const isoDate = new RegExp(isoDatePattern);

/**
 * Unix seconds of an ISO 8601 date or date-time (UTC when it has no offset), or undefined when it is not a real
 * date (2024-02-30) or falls outside what a date field accepts (before 1970, after 9999).
 *
 * @example isoToUnixSeconds('2024-05-01T12:00:00Z') // 1714564800
 */
export function isoToUnixSeconds(text: string): number | undefined {
  if (!isoDate.test(text)) return undefined;
  // Fractions of a second are dropped: the fields hold whole seconds.
  const [, y, mo, d, h = '0', mi = '0', s = '0', sign, oh = '0', om = '0'] =
    /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|([+-])(\d{2}):?(\d{2}))?)?$/.exec(text) ??
    [];
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const ms = Date.UTC(year, month - 1, day, Number(h), Number(mi), Number(s));
  const check = new Date(ms);
  // Date.UTC rolls 30 February over into March: a date that does not come back unchanged does not exist.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    return undefined;
  }
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60) : 0;
  const seconds = Math.floor(ms / 1000) - offset;
  return seconds >= 0 && seconds <= inputLimits.unixSeconds ? seconds : undefined;
}

function toSeconds(value: string, field: string): number {
  const seconds = isoToUnixSeconds(value);
  if (seconds === undefined) {
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `${field} is not a calendar date from 1970 to 9999: give Unix seconds or an ISO 8601 date such as 2024-05-01`,
      },
      { field },
    );
  }
  return seconds;
}

const isDateSchema = (schema: SchemaLike | undefined) => schema?.pattern === isoDatePattern;

function convertFilterValue(value: unknown, field: string): unknown {
  if (typeof value === 'string' && isoDate.test(value)) return toSeconds(value, field);
  if (Array.isArray(value)) return value.map((v, i) => convertFilterValue(v, `${field}[${i}]`));
  return value;
}

/**
 * Dates in filters on created_at or updated_at: a list of {field, operator, value}, an object {field: value}, or
 * either as JSON text (parsed here only when it holds a date; other text is left for the search to judge).
 */

function convertFilters(filters: unknown, path: string): unknown {
  if (typeof filters === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(filters);
    } catch {
      return filters;
    }
    const converted = convertFilters(parsed, path);
    return JSON.stringify(converted) === JSON.stringify(parsed) ? filters : converted;
  }
  if (Array.isArray(filters)) {
    return filters.map((entry: unknown, i) => {
      if (!entry || typeof entry !== 'object') return entry;
      if (isFilterGroup(entry)) return convertFilters(entry, `${path}[${i}]`);
      const clause = entry as Json;
      return typeof clause.field === 'string' && filterDateFields.has(clause.field) && 'value' in clause
        ? { ...clause, value: convertFilterValue(clause.value, `${path}[${i}].value`) }
        : entry;
    });
  }
  if (filters && typeof filters === 'object' && isFilterGroup(filters)) {
    return Object.fromEntries(
      Object.entries(filters).map(([key, list]) => [key, convertFilters(list, `${path}.${key}`)]),
    );
  }
  if (filters && typeof filters === 'object') {
    return Object.fromEntries(
      Object.entries(filters).map(([key, v]) => [
        key,
        filterDateFields.has(key) ? convertFilterValue(v, `${path}.${key}`) : v,
      ]),
    );
  }
  return filters;
}

const holdsDates = new WeakMap<SchemaLike, boolean>();

/** Whether a value of this schema can carry a date or filters: most bodies cannot, and are passed on untouched. */
function mayHoldDates(schema: SchemaLike): boolean {
  let known = holdsDates.get(schema);
  if (known === undefined) {
    const children = [
      ...Object.values(schema.properties ?? {}),
      ...(schema.items ? [schema.items] : []),
      ...(schema.anyOf ?? []),
      ...(schema.allOf ?? []),
    ];
    known =
      isDateSchema(schema) ||
      'filters' in (schema.properties ?? {}) ||
      'filter' in (schema.properties ?? {}) ||
      children.some(mayHoldDates);
    holdsDates.set(schema, known);
  }
  return known;
}

function convert(schema: SchemaLike | undefined, value: unknown, path: string): unknown {
  if (!schema || value === undefined || value === null || !mayHoldDates(schema)) return value;
  if (isDateSchema(schema)) return typeof value === 'string' ? toSeconds(value, path) : value;
  for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? [])]) value = convert(part, value, path);
  if (Array.isArray(value)) {
    const items = schema.items;
    return items ? value.map((v: unknown, i) => convert(items, v, `${path}[${i}]`)) : value;
  }
  if (typeof value !== 'object') return value;
  const out: Json = { ...(value as Json) };
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!(name in out)) continue;
    out[name] =
      name === 'filters' || name === 'filter'
        ? convertFilters(out[name], `${path}.${name}`)
        : convert(property, out[name], `${path}.${name}`);
  }
  return out;
}

/**
 * Converts the date-like fields of a validated request body to Unix seconds (api-spec §5: date-like fields are
 * converted to Unix seconds), for every transport: the fields' schema is the contract's DateInput, and dates in
 * filters on created_at and updated_at are converted too. A date that does not exist answers 400 naming the field.
 *
 * @example datesToUnixSeconds(DocumentInput, { created_at: '2024-05-01' }) // { created_at: 1714521600 }
 */
export function datesToUnixSeconds(schema: object | undefined, body: unknown): unknown {
  return convert(schema as SchemaLike | undefined, body, 'body');
}
