import { createError } from '@godb/contract';
import { clientVectorSearch, vectorSearch } from '../../engine/search/vector-search.js';
import { vectorTarget } from './vector-target.js';
import { isFilterGroup } from '../../engine/search/filters.js';
import type { UseCaseOf } from '../context.js';
import { requestedModel } from '../embeddings/embed-options.js';
import type { SearchDeps } from './deps.js';
import { clampLimit, geoOf, scopeOf, searchResponse } from './scope.js';

export const searchVectorUseCase =
  (deps: SearchDeps): UseCaseOf<'search-vector'> =>
  async ({ body }, ctx) => {
    const started = performance.now();
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
    const scope = scopeOf(deps, ctx, { table: body.primary_table, filters, geo });
    const target = vectorTarget(deps.collections, scope.viewer.tenantId, body);
    if (target && 'collection' in target) {
      const { hits, exact, cut } = await clientVectorSearch(deps.search, scope, target, {
        vector: body.vector,
        method: target.settings.distance,
        threshold: body.threshold,
        limit: clampLimit(body.limit),
        combineLocation: body.combine_location_score,
        signal: ctx.signal,
      });
      const notes = [
        `vector "${target.name}" of collection ${target.collection} (${target.settings.distance}, ${target.settings.storage})`,
        ...(body.similarity_method !== 'cosine' && body.similarity_method !== target.settings.distance
          ? [
              `similarity_method ${body.similarity_method} ignored: the collection compares this vector by ${target.settings.distance}`,
            ]
          : []),
        ...(exact ? ['the restrictions were selective: scored every allowed vector exactly'] : []),
        ...(cut.dropped > 0
          ? [
              `${cut.dropped} ${cut.dropped === 1 ? 'result' : 'results'} below the threshold ${body.threshold} left out (it applies to the ${target.settings.distance === 'euclidean' ? '1 / (1 + distance)' : target.settings.distance} score); lower it to see more`,
            ]
          : []),
      ];
      return searchResponse(deps.search, hits, body.limit, started, { notes });
    }
    const { hits, model, exact, cut } = await vectorSearch(deps.search, deps.embedder, scope, {
      text: body.query,
      vector: body.vector,
      model: target?.model ?? requestedModel(undefined, body.embedding_options),
      method: body.similarity_method,
      threshold: body.threshold,
      limit: clampLimit(body.limit),
      combineLocation: body.combine_location_score,
      signal: ctx.signal,
    });
    const notes = [
      `model ${model}`,
      ...(exact ? ['the restrictions were selective: scored every allowed vector exactly'] : []),
      // Say when the threshold left results out, and what it means for this model.
      ...(cut.dropped > 0
        ? [
            `${cut.dropped} ${cut.dropped === 1 ? 'result' : 'results'} below the threshold left out: threshold ${body.threshold} is the calibrated relevance of ${model}, a ${body.similarity_method} score of ${cut.score.toFixed(3)}; lower it to see more`,
          ]
        : []),
    ];
    return searchResponse(deps.search, hits, body.limit, started, { notes });
  };
