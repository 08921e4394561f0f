import { clientMessages, formatMessage } from './errors.js';
import { centralityTypes, graphQueryTypes, recommendationStrategies } from './schemas/graph.js';

/**
 * The checks the playground makes before sending (api-spec §5), one per operation family, used by the operations'
 * `playground.check`. Each takes the form's converted values and answers the message to show, or undefined.
 */
type Values = Readonly<Record<string, unknown>>;

const oneOf = (allowed: readonly string[], value: unknown) => value === undefined || allowed.includes(String(value));

/** Graph Search and Graph Query: a known query_type (and centrality_type), a depth of at least 1. */
export function checkGraphQuery(v: Values): string | undefined {
  if (!oneOf(graphQueryTypes, v.query_type)) {
    return formatMessage(clientMessages.invalidQueryType, { allowed: graphQueryTypes.join(', ') });
  }
  if (v.query_type === 'centrality' && !oneOf(centralityTypes, v.centrality_type)) {
    return `Invalid centrality_type. Must be one of: ${centralityTypes.join(', ')}`;
  }
  if (v.depth !== undefined && Number(v.depth) < 1) return clientMessages.depthTooSmall;
  return undefined;
}

/** Recommendations: a known strategy, hybrid weights summing to 1, min_similarity within 0 and 1. */
export function checkRecommendations(v: Values): string | undefined {
  if (!oneOf(recommendationStrategies, v.strategy)) {
    return `Invalid strategy. Must be one of: ${recommendationStrategies.join(', ')}`;
  }
  if (v.strategy === 'hybrid') {
    const sum = Number(v.content_weight ?? 0.4) + Number(v.collab_weight ?? 0.3) + Number(v.graph_weight ?? 0.3);
    if (Math.abs(sum - 1) > 0.001) return clientMessages.weightsMustSumToOne;
  }
  if (v.min_similarity !== undefined && (Number(v.min_similarity) < 0 || Number(v.min_similarity) > 1)) {
    return 'min_similarity must be between 0 and 1';
  }
  return undefined;
}

/** Autocomplete and fuzzy search: 0, 1 or 2 edits. */
export function checkFuzziness(v: Values): string | undefined {
  return v.fuzziness !== undefined && ![0, 1, 2].includes(Number(v.fuzziness))
    ? 'Fuzziness must be 0, 1 or 2'
    : undefined;
}

const isFilterList = (value: unknown) =>
  Array.isArray(value) &&
  value.every((e) => typeof e === 'object' && e !== null && 'field' in e && 'operator' in e && 'value' in e);

/**
 * Vector search: a threshold within 0 and 1, a vector of numbers; filters that are not a list of
 * {field, operator, value} are dropped with a console note (the older variant ignored them).
 */
export function checkVectorSearch(v: Values, ignore: (field: string, note: string) => void): string | undefined {
  if (v.threshold !== undefined && (Number(v.threshold) < 0 || Number(v.threshold) > 1)) {
    return clientMessages.thresholdOutOfRange;
  }
  if (v.vector !== undefined && (!Array.isArray(v.vector) || !v.vector.every((x) => typeof x === 'number'))) {
    return formatMessage(clientMessages.invalidVectorFormat, { reason: 'expected a JSON array of numbers' });
  }
  if (v.filters !== undefined && !isFilterList(v.filters)) {
    ignore('filters', 'Vector search filters must be a list of {field, operator, value}: they are ignored.');
  }
  return undefined;
}
