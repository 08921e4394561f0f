import { createError } from '@godb/contract';
import { geoSearch } from '../../engine/search/geo-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { geoOf, scopeOf, searchResponse } from './scope.js';

export const searchGeoUseCase =
  (deps: SearchDeps): UseCaseOf<'search-geo'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const geo = geoOf(body);
    if (!geo) throw createError('VALIDATION_FAILED', { detail: 'body.radius is required' }, { field: 'body.radius' });
    const hits = geoSearch(deps.search, { ...scopeOf(deps, ctx, { table: body.primary_table, geo }), geo });
    return searchResponse(deps.search, hits, body.limit, started);
  };
