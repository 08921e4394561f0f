import { createError } from '@godb/contract';
import { isFilterGroup } from '../../engine/search/filters.js';
import type { UseCaseOf } from '../context.js';
import { requestedModel } from '../embeddings/embed-options.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf } from './scope.js';

export const searchVectorUseCase =
  (deps: SearchDeps): UseCaseOf<'search-vector'> =>
  async ({ body }, ctx) => {
    if (body.threshold < 0 || body.threshold > 1)
      throw createError('THRESHOLD_OUT_OF_RANGE', {}, { field: 'body.threshold' });
    const geo = geoOf({
      lat: body.center?.lat ?? body.lat,
      lon: body.center?.lon ?? body.lon,
      radius: body.radius,
      field_name: body.field_name,
    });
    // The playground's rule: vector filters that are not a list of {field, operator, value} are ignored; a group
    // {must, should, must_not} (issue #15's grammar) applies, as everywhere.
    const filters =
      Array.isArray(body.filters) ||
      (typeof body.filters === 'object' && body.filters !== null && isFilterGroup(body.filters))
        ? body.filters
        : undefined;
    return deps.searches.vector(scopeOf(deps, ctx, { table: body.primary_table, filters, geo }), {
      query: body.query,
      vector: body.vector,
      vectorName: body.vector_name,
      model: requestedModel(undefined, body.embedding_options),
      method: body.similarity_method,
      threshold: body.threshold,
      limit: clampLimit(body.limit),
      combineLocation: body.combine_location_score,
      explain: body.explain,
      signal: ctx.signal,
    });
  };
