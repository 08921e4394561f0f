import { createError } from '@godb/contract';
import { defaultCollection, type Collections } from '../collections/collections.js';
import type { ClientVectorSpace } from './vector-query.js';

/**
 * What a vector search compares with: a collection's own vector (named, or its default one when the request
 * gives a vector), a collection's model vector, or (undefined) the model of the request, as before collections.
 */
export function vectorTarget(
  collections: Collections,
  tenantId: string,
  body: {
    primary_table?: string | undefined;
    vector_name?: string | undefined;
    vector?: unknown;
    query?: string | undefined;
  },
): ClientVectorSpace | { model: string } | undefined {
  if (body.vector_name === undefined) {
    const given = body.vector !== undefined && body.vector !== null && body.vector !== '';
    if (body.primary_table === undefined || (!given && body.query === undefined)) return undefined;
    // A search in a collection that does not exist answers 404 naming it, whether it gives a vector (it used to be
    // checked against the default model's size, a misleading INVALID_VECTOR_FORMAT) or text to embed (it used to
    // answer nothing). The default collection, where documents without primary_table go, exists for every tenant:
    // a new tenant's search there finds nothing.
    const collection =
      body.primary_table === defaultCollection
        ? collections.get(tenantId, body.primary_table)
        : collections.require(tenantId, body.primary_table, 'body.primary_table');
    if (!collection || !given) return undefined;
    const name = collection.default_vector;
    const settings = name !== undefined ? collection.vectors[name] : undefined;
    return settings && settings.model === undefined && name !== undefined
      ? { collection: body.primary_table, name, settings }
      : undefined;
  }
  if (body.primary_table === undefined) {
    throw createError(
      'VALIDATION_FAILED',
      { detail: 'body.vector_name needs body.primary_table: the collection whose vector it names' },
      { field: 'body.primary_table' },
    );
  }
  const collection = collections.require(tenantId, body.primary_table, 'body.primary_table');
  const settings = collection.vectors[body.vector_name];
  if (!settings) {
    const names = Object.keys(collection.vectors);
    throw createError(
      'VALIDATION_FAILED',
      {
        detail: `body.vector_name: collection ${collection.name} has no vector "${body.vector_name}"${names.length > 0 ? ` (it has: ${names.join(', ')})` : ''}`,
      },
      { field: 'body.vector_name' },
    );
  }
  return settings.model !== undefined
    ? { model: settings.model }
    : { collection: collection.name, name: body.vector_name, settings };
}
