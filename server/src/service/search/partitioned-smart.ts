import { createError, hybridDefaults, operationById, type OperationId } from '@godb/contract';
import { chooseRoute } from '../../engine/search/smart-route.js';
import { validateJson } from '../validation.js';

/** A fanned-out search of a partitioned collection (partitionedAnswer), for the kind smart search routes to. */
type Ask = (operationId: OperationId, body: object) => Promise<unknown>;

interface Answer {
  readonly results: readonly unknown[];
  readonly total_hits: number;
  readonly time_taken: number;
  readonly notes?: readonly string[];
  readonly missing_shards?: readonly number[];
}

/**
 * A smart search of a partitioned collection, or of the whole tenant holding some (issue #41): the route is chosen here as on one node (smart-route.ts:
 * it depends on the request only), then the search it routes to is fanned out as that kind is (text, vector,
 * hybrid or geo, each merged exactly), with the smart search's own settings (its hybrid's defaults, a semantic
 * search's threshold 0), and answered with the route and why.
 *
 * @example const answer = await partitionedSmart(body, (id, sub) => partitionedAnswer(partitions, id, sub, ctx));
 */
export async function partitionedSmart(body: unknown, ask: Ask): Promise<object> {
  const given = body as {
    query?: string;
    mode?: 'auto' | 'text' | 'semantic' | 'geo';
    auto_route?: boolean;
    lat?: number;
    lon?: number;
    radius?: number;
    field_name?: string;
    /** Absent: a search of the whole tenant, each route fanned out as that kind's is. */
    primary_table?: string;
    limit?: number;
    allow_partial?: boolean;
  };
  const query = given.query ?? '';
  const hasPoint = given.lat !== undefined && given.lon !== undefined;
  const { route, reason } = chooseRoute({
    query,
    mode: given.mode ?? 'auto',
    autoRoute: given.auto_route ?? true,
    hasPoint,
  });
  if (route !== 'geo' && query.trim() === '') throw createError('QUERY_REQUIRED', {}, { field: 'body.query' });
  // A point restricts every route to its radius (10 km unless given), as the smart search's scope does on one node.
  const point = hasPoint
    ? {
        lat: given.lat,
        lon: given.lon,
        radius: given.radius ?? 10,
        ...(given.field_name !== undefined && { field_name: given.field_name }),
      }
    : {};
  const common = {
    ...(given.primary_table !== undefined && { primary_table: given.primary_table }),
    ...point,
    ...(given.limit !== undefined && { limit: given.limit }),
    ...(given.allow_partial !== undefined && { allow_partial: given.allow_partial }),
  };
  const run = async (operationId: OperationId, sub: object) => {
    // The body the routed kind's use case expects: its defaults filled in, as its own endpoint would.
    validateJson(operationById(operationId).body as never, sub, 'body');
    return (await ask(operationId, sub)) as Answer;
  };
  let answer: Answer;
  let notes: readonly string[] = [];
  if (route === 'geo') {
    if (!hasPoint)
      throw createError(
        'VALIDATION_FAILED',
        { detail: 'body.lat and body.lon are required for mode geo' },
        { field: 'body.lat' },
      );
    answer = await run('search-geo', common);
  } else if (route === 'text') {
    const type = /^".+"$/.test(query.trim()) ? 'phrase' : /[*?]/.test(query) ? 'wildcard' : 'match';
    answer = await run('search-text', { ...common, query, query_type: type });
    notes = answer.notes ?? [];
  } else if (route === 'semantic') {
    answer = await run('search-vector', { ...common, query, similarity_method: 'cosine', threshold: 0 });
  } else {
    // Smart search's hybrid answers no notes of its own (no learned ranking).
    answer = await run('search-hybrid', { ...common, query, ...hybridDefaults, use_ml_ranking: false });
  }
  return {
    results: answer.results,
    total_hits: answer.total_hits,
    time_taken: answer.time_taken,
    ...(notes.length > 0 && { notes }),
    ...(answer.missing_shards && { missing_shards: answer.missing_shards }),
    route,
    reason,
  };
}
