import type { GraphLimits } from '../../engine/graph/build-graph.js';
import type { Embedder } from '../../engine/embeddings/embedder.js';
import type { SearchCore } from '../../engine/search/search-core.js';
import type { Collections } from '../../engine/collections/collections.js';

export interface SearchDeps {
  readonly search: SearchCore;
  readonly embedder: Embedder;
  readonly now: () => number;
  readonly graphLimits: GraphLimits;
  readonly collections: Collections;
}
