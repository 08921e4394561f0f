import { createError } from '@godb/contract';
import { geoSearch } from '../../engine/search/geo-search.js';
import { hybridSearch } from '../../engine/search/hybrid-search.js';
import { chooseRoute } from '../../engine/search/smart-route.js';
import { textSearch } from '../../engine/search/text-search.js';
import { vectorSearch } from '../../engine/search/vector-search.js';
import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, requireQuery, scopeOf, searchResponse } from './scope.js';

/** Smart search: the router picks text, semantic, geo or hybrid, and the answer says which and why. */
export const searchSmartUseCase =
  (deps: SearchDeps): UseCaseOf<'search-smart'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
    const hasPoint = body.lat !== undefined && body.lon !== undefined;
    // Geo fields count only when lat and lon are given (radius defaults to 10 km then).
    const geo = hasPoint
      ? geoOf({ lat: body.lat, lon: body.lon, radius: body.radius ?? 10, field_name: body.field_name })
      : undefined;
    const query = body.query ?? '';
    const { route, reason } = chooseRoute({ query, mode: body.mode, autoRoute: body.auto_route, hasPoint });
    if (route !== 'geo') requireQuery(query);
    const scope = scopeOf(deps, ctx, { table: body.primary_table, geo });
    const limit = clampLimit(body.limit);
    let hits;
    let notes: string[] = [];
    if (route === 'geo') {
      if (!geo)
        throw createError(
          'VALIDATION_FAILED',
          { detail: 'body.lat and body.lon are required for mode geo' },
          { field: 'body.lat' },
        );
      hits = geoSearch(deps.search, { ...scope, geo });
    } else if (route === 'text') {
      const type = /^".+"$/.test(query.trim()) ? 'phrase' : /[*?]/.test(query) ? 'wildcard' : 'match';
      ({ hits, notes } = textSearch(deps.search, scope, query, type, limit));
    } else if (route === 'semantic') {
      ({ hits } = await vectorSearch(deps.search, deps.embedder, scope, {
        text: query,
        method: 'cosine',
        threshold: 0,
        limit,
        signal: ctx.signal,
      }));
    } else {
      ({ hits, notes } = await hybridSearch(deps.search, deps.embedder, scope, {
        text: query,
        alpha: 0.3,
        limit,
        fusion: 'weighted',
        useMlRanking: false,
        signal: ctx.signal,
      }));
    }
    return { ...searchResponse(deps.search, hits, limit, started, { notes }), route, reason };
  };
