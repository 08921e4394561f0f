import type { Collection, UpdateCollectionRequest } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import { clientSpaceKey } from '../collections/vector-space.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { IndexUpdates } from './index-updates.js';

/**
 * Changes a collection's settings (see Collections.update); the vector indexes whose ef_search changed reload after
 * the commit.
 */
export function updateCollectionSettings(
  deps: { collections: Collections; vectors: VectorIndexes; updates: IndexUpdates },
  tenantId: string,
  name: string,
  patch: UpdateCollectionRequest,
  now: number,
): Collection {
  const { collection, reload } = deps.collections.update(tenantId, name, patch, now);
  deps.updates.afterCommit(() => {
    for (const vectorName of reload) deps.vectors.reload(tenantId, clientSpaceKey(collection.name, vectorName));
  });
  return collection;
}
