import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf } from './scope.js';

/** Smart search: the engine's router picks text, semantic, geo or hybrid, and the answer says which and why. */
export const searchSmartUseCase =
  (deps: SearchDeps): UseCaseOf<'search-smart'> =>
  async ({ body }, ctx) => {
    const hasPoint = body.lat !== undefined && body.lon !== undefined;
    // Geo fields count only when lat and lon are given (radius defaults to 10 km then).
    const geo = hasPoint
      ? geoOf({ lat: body.lat, lon: body.lon, radius: body.radius ?? 10, field_name: body.field_name })
      : undefined;
    return deps.searches.smart(scopeOf(deps, ctx, { table: body.primary_table, geo }), {
      query: body.query ?? '',
      mode: body.mode,
      autoRoute: body.auto_route,
      hasPoint,
      limit: clampLimit(body.limit),
      signal: ctx.signal,
    });
  };
