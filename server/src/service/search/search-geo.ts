import { createError } from '@godb/contract';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf } from './scope.js';

export const searchGeoUseCase =
  (deps: SearchDeps): UseCaseOf<'search-geo'> =>
  async ({ body }, ctx) => {
    const geo = geoOf(body);
    if (!geo) throw createError('VALIDATION_FAILED', { detail: 'body.radius is required' }, { field: 'body.radius' });
    const scope = { ...scopeOf(deps, ctx, { table: body.primary_table, geo }), geo };
    return deps.searches.geo(scope, { limit: clampLimit(body.limit) });
  };
