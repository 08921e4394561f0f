import type { GraphLimits } from '../../engine/graph/build-graph.js';
import type { Searches } from '../../engine/search/searches.js';

export interface SearchDeps {
  /** The engine's search entry points: each answers the finished result the use case maps to its response. */
  readonly searches: Searches;
  readonly now: () => number;
  readonly graphLimits: GraphLimits;
}
