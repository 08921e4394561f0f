import type { UseCaseOf } from '../context.js';
import type { SearchDeps } from './deps.js';
import type { WildcardGiven } from './partitioned-wildcard.js';
import { clampLimit, geoOf, requireQuery, scopeOf } from './scope.js';

export const searchTextUseCase =
  (deps: SearchDeps): UseCaseOf<'search-text'> =>
  async ({ body }, ctx) => {
    const query = requireQuery(body.query);
    const scope = scopeOf(deps, ctx, {
      table: body.primary_table,
      filters: body.filters,
      geo: geoOf(body),
      requireGeo: body.require_geo,
    });
    if (body.feedback) await deps.searches.textLoaded(scope);
    const q = {
      query,
      type: body.query_type,
      limit: clampLimit(body.limit),
      lang: body.lang,
      highlight: body.highlight,
      explain: body.explain,
      feedback: body.feedback,
    };
    // Cluster mode, a partitioned collection's text search (decision 0076): its statistics round, then its ranking.
    const run = ctx.partitionLocal ? ctx.partition : undefined;
    if (q.type === 'wildcard' && run) {
      // A wildcard's rounds (decision 0093): its patterns' words here, their frequency, which are readable, the
      // chosen groups' statistics, then the ranking of those groups.
      const given = run.given as WildcardGiven | undefined;
      if (run.phase === 'expand') return { patterns: deps.searches.wildcardVocabulary(scope, query) } as never;
      if (run.phase === 'readable') return { readable: deps.searches.readableWords(scope, run.words ?? []) } as never;
      if (run.phase === 'stats' && run.counting && given)
        return deps.searches.groupStats(scope, given.groups, q.lang, run.counting) as never;
      if (run.phase === 'stats' && run.counting)
        return deps.searches.wordStats(scope, run.words ?? [], run.counting) as never;
      if (run.stats && given) return deps.searches.textWithStats(scope, { ...q, expanded: given }, run.stats);
    }
    if (run?.phase === 'stats' && run.counting && q.type !== 'wildcard')
      return deps.searches.textStats(scope, { ...q, type: q.type }, run.counting) as never;
    if (run?.stats) return deps.searches.textWithStats(scope, q, run.stats);
    return deps.searches.text(scope, q);
  };

/** GET /api/v1/search: the search box (any word, BM25). */
export const simpleSearchUseCase =
  (deps: SearchDeps): UseCaseOf<'simple-search'> =>
  async ({ query }, ctx) =>
    deps.searches.text(scopeOf(deps, ctx), {
      query: requireQuery(query.query),
      type: 'match',
      limit: clampLimit(query.limit),
    });
