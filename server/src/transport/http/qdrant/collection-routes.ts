import { isGoDBError } from '@godb/contract';
import { createBodyOf, indexKindOf, qdrantInfoOf } from './collection-config.js';
import { badRequest, unsupported } from './envelope.js';
import { collectionOf } from './point-reads.js';
import { completed, type QdrantRoute } from './route.js';

/** Collections: create, get, list, exists, delete, update, and payload indexes (GoDB field indexes). */
export const collectionRoutes: QdrantRoute[] = [
  {
    method: 'GET',
    url: '/collections',
    handler: async ({ call }) => {
      const { collections } = await call<{ collections: { name: string }[] }>('list-collections');
      return { collections: collections.map(({ name }) => ({ name })) };
    },
  },
  {
    method: 'PUT',
    url: '/collections/:name',
    handler: async ({ call, params, body }) => {
      await call('create-collection', { body: createBodyOf(params.name, body) });
      return true;
    },
  },
  {
    method: 'GET',
    url: '/collections/:name',
    handler: async ({ call, params }) => qdrantInfoOf((await collectionOf(call, params.name)) as never),
  },
  {
    method: 'GET',
    url: '/collections/:name/exists',
    handler: async ({ call, params }) => {
      try {
        await collectionOf(call, params.name);
        return { exists: true };
      } catch (error) {
        if (isGoDBError(error) && error.status === 404) return { exists: false };
        throw error;
      }
    },
  },
  {
    method: 'DELETE',
    url: '/collections/:name',
    handler: async ({ call, params }) => {
      try {
        await call('delete-collection', { params: { name: params.name } });
        return true;
      } catch (error) {
        // Qdrant answers false for a collection that was not there.
        if (isGoDBError(error) && error.status === 404) return false;
        throw error;
      }
    },
  },
  {
    method: 'PATCH',
    url: '/collections/:name',
    handler: async ({ call, params, body }) => {
      await collectionOf(call, params.name);
      // Only settings that tune speed or memory change here in Qdrant; GoDB keeps its own (listed as ignored).
      for (const key of Object.keys(body)) {
        if (
          [
            'optimizers_config',
            'params',
            'hnsw_config',
            'vectors',
            'quantization_config',
            'strict_mode_config',
            'metadata',
          ].includes(key)
        )
          continue;
        if (key === 'sparse_vectors') throw unsupported('sparse_vectors (sparse vectors)');
        throw badRequest(`unknown collection field \`${key}\``);
      }
      const hnsw = body.hnsw_config as Record<string, unknown> | undefined;
      if (hnsw && (hnsw.m !== undefined || hnsw.ef_construct !== undefined)) {
        throw unsupported('changing hnsw_config m or ef_construct of an existing collection');
      }
      return true;
    },
  },
  {
    method: 'PUT',
    url: '/collections/:name/index',
    handler: async ({ call, params, body }) => {
      const { field_name: field, field_schema: schema } = body as { field_name?: unknown; field_schema?: unknown };
      if (typeof field !== 'string' || field === '') throw badRequest('field_name is required');
      const kind = indexKindOf(schema);
      const collection = await collectionOf(call, params.name);
      const indexes = { ...collection.indexes, [`metadata.${field.replace(/\[\]/g, '')}`]: kind };
      await call('update-collection', { params: { name: params.name }, body: { indexes } });
      return completed();
    },
  },
  {
    method: 'DELETE',
    url: '/collections/:name/index/:field',
    handler: async ({ call, params }) => {
      const collection = await collectionOf(call, params.name);
      const dropped = `metadata.${params.field}`;
      const indexes = Object.fromEntries(
        Object.entries(collection.indexes ?? {}).filter(([field]) => field !== dropped),
      );
      await call('update-collection', { params: { name: params.name }, body: { indexes } });
      return completed();
    },
  },
  {
    method: 'GET',
    url: '/aliases',
    handler: async () => ({ aliases: [] }),
  },
  {
    method: 'GET',
    url: '/collections/:name/aliases',
    handler: async ({ call, params }) => {
      await collectionOf(call, params.name);
      return { aliases: [] };
    },
  },
  {
    method: 'POST',
    url: '/collections/aliases',
    handler: async () => {
      throw unsupported('collection aliases');
    },
  },
];
