import { createError, maxSearchLimit } from '@godb/contract';
import { parseFilters } from '../../engine/search/filters.js';
import type { GeoFilter, Scope } from '../../engine/search/scope.js';
import type { RequestContext } from '../context.js';
import { viewerOf } from '../documents/viewer.js';
import type { SearchDeps } from './deps.js';

export interface GeoFields {
  readonly lat?: number | undefined;
  readonly lon?: number | undefined;
  readonly radius?: number | undefined;
  readonly field_name?: string | undefined;
}

/** A geo restriction from lat, lon and radius (km), which go together; undefined when none is given. */
export function geoOf(fields: GeoFields, path = 'body'): GeoFilter | undefined {
  const { lat, lon, radius } = fields;
  if (lat === undefined && lon === undefined && radius === undefined) return undefined;
  if (lat === undefined || lon === undefined || radius === undefined) {
    const missing = lat === undefined ? 'lat' : lon === undefined ? 'lon' : 'radius';
    throw createError(
      'VALIDATION_FAILED',
      { detail: `${path}.${missing} is required with the other geo fields (lat, lon and radius in km go together)` },
      { field: `${path}.${missing}` },
    );
  }
  return { lat, lon, radiusKm: radius, field: fields.field_name ?? 'location' };
}

/** The search scope of a request: the caller, the table, filters and geo restriction. */
export function scopeOf(
  deps: SearchDeps,
  ctx: RequestContext,
  options: { table?: string | undefined; filters?: unknown; geo?: GeoFilter | undefined; requireGeo?: boolean } = {},
): Scope {
  return {
    viewer: viewerOf(ctx),
    now: Math.floor(deps.now() / 1000),
    table: options.table,
    filters: parseFilters(options.filters),
    geo: options.geo,
    requireGeo: options.requireGeo ?? false,
    ...(ctx.partitionLocal && ctx.partition && { counted: ctx.partition.keep }),
  };
}

/** Limits are clamped to the documented maximum. */
export const clampLimit = (limit: number) => Math.min(Math.max(1, limit), maxSearchLimit);

export function requireQuery(query: string | undefined): string {
  if (query === undefined || query.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  return query;
}
