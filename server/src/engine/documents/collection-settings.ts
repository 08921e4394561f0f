import type { Collection, CreateCollectionRequest, UpdateCollectionRequest } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import { clientSpaceKey } from '../collections/vector-space.js';
import type { FieldIndexes } from '../field-indexes/field-indexes.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { IndexUpdates } from './index-updates.js';

/**
 * Changes a collection's settings (see Collections.update); the vector indexes whose ef_search changed reload after
 * the commit.
 */
export function updateCollectionSettings(
  deps: CollectionSettingsDeps,
  tenantId: string,
  name: string,
  patch: UpdateCollectionRequest,
  now: number,
): Collection {
  const { collection, reload } = deps.collections.update(tenantId, name, patch, now);
  if (patch.indexes) declareIndexes(deps, tenantId, collection);
  deps.updates.afterCommit(() => {
    for (const vectorName of reload) deps.vectors.reload(tenantId, clientSpaceKey(collection.name, vectorName));
  });
  return collection;
}

/** What a change of a collection's settings updates. */
export interface CollectionSettingsDeps {
  readonly collections: Collections;
  readonly vectors: VectorIndexes;
  readonly updates: IndexUpdates;
  readonly fieldIndexes: FieldIndexes;
}

/** Declares a collection (see Collections.create) with its field indexes, which are ready at once (no documents). */
export function createCollectionWithIndexes(
  deps: CollectionSettingsDeps,
  tenantId: string,
  input: CreateCollectionRequest,
  now: number,
): Collection {
  const collection = deps.collections.create(tenantId, input, now);
  declareIndexes(deps, tenantId, collection);
  return collection;
}

/** The field indexes' builds follow the declaration in this transaction; building starts after the commit. */
function declareIndexes(deps: CollectionSettingsDeps, tenantId: string, collection: Collection): void {
  deps.fieldIndexes.declare(tenantId, collection.name, collection.indexes ?? {});
  deps.updates.afterCommit(() => deps.fieldIndexes.resume());
}
