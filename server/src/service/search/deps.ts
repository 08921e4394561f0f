import type { GraphLimits } from '../../engine/graph/build-graph.js';
import type { Searches } from '../../engine/search/searches.js';
import type { PartitionedSearch } from './partitioned-search.js';

export interface SearchDeps {
  /** The engine's search entry points: each answers the finished result the use case maps to its response. */
  readonly searches: Searches;
  readonly now: () => number;
  readonly graphLimits: GraphLimits;
  /** Cluster mode: the partitioned collections' fan-out (decision 0062); absent or null on an embedded node. */
  readonly partitions?: PartitionedSearch | null;
}
