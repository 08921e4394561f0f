import { clientSpaceKey } from '../../engine/collections/vector-space.js';
import { unixSeconds } from '../../engine/clock.js';
import { principalOf, type UseCaseOf } from '../context.js';
import { viewerOf } from '../documents/viewer.js';
import type { CollectionDeps } from './deps.js';

const seconds = (deps: CollectionDeps) => unixSeconds({ now: deps.now });

export const createCollectionUseCase =
  (deps: CollectionDeps): UseCaseOf<'create-collection'> =>
  async ({ body }, ctx) => {
    const tenantId = viewerOf(ctx).tenantId;
    return (await deps.log.submit({ kind: 'create-collection', tenantId, body })) as Awaited<
      ReturnType<UseCaseOf<'create-collection'>>
    >;
  };

export const listCollectionsUseCase =
  (deps: CollectionDeps): UseCaseOf<'list-collections'> =>
  async (_input, ctx) => ({ collections: deps.collections.list(viewerOf(ctx).tenantId) });

export const getCollectionUseCase =
  (deps: CollectionDeps): UseCaseOf<'get-collection'> =>
  async ({ params }, ctx) => {
    const viewer = viewerOf(ctx);
    const collection = deps.collections.require(viewer.tenantId, params.name);
    const counts = deps.collections.counts(viewer, collection, seconds(deps));
    // Index sizes count every document of the tenant, readable or not: operators' information, for admins.
    const admin = principalOf(ctx).role !== 'user';
    const vectorStats = Object.fromEntries(
      Object.entries(collection.vectors).map(([name, settings]) => {
        const space = settings.model ?? clientSpaceKey(collection.name, name);
        const stats = deps.vectors.stats(viewer.tenantId, space, settings.dimensions);
        const vectors = counts.vectors[name] ?? 0;
        return [
          name,
          {
            vectors,
            indexed: stats.indexed,
            index: stats.state,
            ...(stats.source && { loaded_from: stats.source }),
            bytes_per_vector: Math.round(stats.bytesPerVector * 10) / 10,
            memory_bytes: stats.memoryBytes,
            index_bytes: stats.indexBytes,
            copies_bytes: stats.copiesBytes,
            disk_bytes: stats.fileBytes + vectors * settings.dimensions * 4,
          },
        ];
      }),
    );
    // Index sizes count every document, readable or not: for admins too.
    const fieldIndexes =
      admin && collection.indexes ? deps.fieldIndexes.info(viewer.tenantId, collection.name) : undefined;
    return {
      ...collection,
      documents: counts.documents,
      chunks: counts.chunks,
      ...(fieldIndexes && { field_indexes: fieldIndexes }),
      ...(admin && { vector_stats: vectorStats }),
    };
  };

export const updateCollectionUseCase =
  (deps: CollectionDeps): UseCaseOf<'update-collection'> =>
  async ({ params, body }, ctx) => {
    const tenantId = viewerOf(ctx).tenantId;
    return deps.commands.updateCollection(tenantId, params.name, body);
  };

export const deleteCollectionUseCase =
  (deps: CollectionDeps): UseCaseOf<'delete-collection'> =>
  async ({ params }, ctx) => ({
    success: true as const,
    deleted_documents: await deps.commands.deleteCollection(viewerOf(ctx).tenantId, params.name),
  });
