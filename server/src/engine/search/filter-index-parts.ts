import type { FieldIndexKind } from '@godb/contract';
import type { FieldIndexReader, ReadyIndex } from '../field-indexes/field-indexes.js';
import type { ValueRange } from '../field-indexes/field-index-rows.js';
import type { Filter, FilterNode } from './filters.js';
import { boundingBox, haversineKm, pointOf } from './geo.js';

// What the filter planner (indexed-filters.ts) and its estimates (filter-estimates.ts) share: which conditions the
// field indexes answer, and how they read them.

/** The key an index of `kind` holds for the values a filter's value equals (see filters.ts `equal`), or none. */
export const noMatch = Symbol('no match');
export function equalKey(kind: FieldIndexKind, value: unknown): string | number | typeof noMatch {
  const text = String(value);
  switch (kind) {
    case 'keyword':
    case 'datetime':
      return text;
    case 'integer':
    case 'float': {
      // A number equals a value whose text is its text: 5 and "5", not "5.0".
      const n = Number(text);
      return Number.isFinite(n) && String(n) === text ? n : noMatch;
    }
    case 'bool':
      return text === 'true' ? 1 : text === 'false' ? 0 : noMatch;
    case 'geo':
      return noMatch; // only geo_radius is answered by a geo index (see condition)
  }
}

/**
 * The bound a range condition (gt, gte, lt, lte) compares an index of `kind` with, as filters.ts `compare` does:
 * nothing compares with null, two strings compare as text (an ISO date is not a number), anything else as numbers;
 * `noMatch` when no value can pass. A keyword index is not planned: its text order is JavaScript's, not SQLite's.
 */
export function rangeBound(kind: FieldIndexKind, value: unknown): string | number | typeof noMatch {
  if (value === undefined || value === null) return noMatch;
  if (kind === 'keyword') throw new Unplannable();
  if (kind === 'datetime') return typeof value === 'string' ? value : noMatch;
  const bound = Number(value);
  return Number.isNaN(bound) ? noMatch : bound;
}

/** A geo_radius condition's value (validated by filters.ts). */
export interface Radius {
  readonly lat: number;
  readonly lon: number;
  readonly radius: number;
}

/**
 * The box the R*Tree is asked for around a radius: boundingBox, widened by about 10 m so that a point on the circle
 * is never lost to rounding (its exact distance decides).
 */
export function boxAround(r: Radius) {
  const box = boundingBox(r.lat, r.lon, r.radius);
  const margin = 1e-4;
  return {
    minLat: box.minLat - margin,
    maxLat: box.maxLat + margin,
    minLon: box.minLon - margin,
    maxLon: box.maxLon + margin,
  };
}

/** A condition the indexes cannot answer exactly as the filter evaluates it: the filter reads the documents. */
export class Unplannable extends Error {}

export interface Target {
  readonly reader: FieldIndexReader;
  readonly tenant: string;
  readonly collection: string;
  readonly ready: ReadonlyMap<string, ReadyIndex>;
}

export const rangeOperators = ['gt', 'gte', 'lt', 'lte'] as const;
export type RangeOperator = (typeof rangeOperators)[number];

export const isRange = (n: FilterNode): n is Filter & { operator: RangeOperator } =>
  'field' in n && (rangeOperators as readonly string[]).includes(n.operator);

/**
 * The range conditions of a `must` on one indexed number field whose documents hold one value each, read as one range (`price >= 10` and `price < 20`
 * read the postings between, not half the collection twice); the rest of the conditions, as they are.
 */
export function mergedRanges(
  t: Target,
  must: readonly FilterNode[],
): { planned: { field: string; range: ValueRange; nodes: Filter[] }[]; rest: FilterNode[] } {
  const byField = new Map<string, Map<RangeOperator, number>>();
  const nodes = new Map<string, Filter[]>();
  const rest: FilterNode[] = [];
  for (const n of must) {
    // A list [1, 50] matches `>= 2` and `< 10` (each by another element) but holds nothing in [2, 10).
    const index = isRange(n) ? t.ready.get(n.field) : undefined;
    const kind = index && !index.multi ? index.kind : undefined;
    const bound = isRange(n) && n.value !== undefined && n.value !== null ? Number(n.value) : NaN;
    const numeric = kind === 'integer' || kind === 'float' || kind === 'bool';
    const ops = isRange(n) ? byField.get(n.field) : undefined;
    if (!isRange(n) || !numeric || Number.isNaN(bound) || ops?.has(n.operator)) {
      rest.push(n);
      continue;
    }
    byField.set(n.field, (ops ?? new Map<RangeOperator, number>()).set(n.operator, bound));
    nodes.set(n.field, [...(nodes.get(n.field) ?? []), n]);
  }
  const planned = [...byField].map(([field, ops]) => ({
    field,
    range: Object.fromEntries(ops) as ValueRange,
    nodes: nodes.get(field)!,
  }));
  return { planned, rest };
}

/** The located documents within the radius, measured as filters.ts measures them (pointOf, haversineKm). */
export function withinRadius(t: Target, r: Radius): number[] {
  const out: number[] = [];
  for (const p of t.reader.pointsInBox(t.tenant, t.collection, boxAround(r), Number.MAX_SAFE_INTEGER)) {
    const point = pointOf([p.lat, p.lon]);
    if (point && haversineKm(r.lat, r.lon, point[0], point[1]) <= r.radius) out.push(p.seq);
  }
  return out;
}
