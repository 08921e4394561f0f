import { createError } from '@godb/contract';
import type { Collections } from '../collections/collections.js';
import { checkSparse, type SparseVectorValue } from './sparse-input.js';

/** A sparse stage checked: the collection's sparse vector it ranks and the query's sparse vector. */
export interface SparseStagePlan {
  readonly kind: 'sparse';
  readonly target: { readonly collection: string; readonly name: string };
  readonly sparse: SparseVectorValue;
}

const invalid = (field: string, detail: string) => createError('VALIDATION_FAILED', { detail }, { field });

/**
 * Checks a pipeline's `sparse` stage (decision 0058): it needs primary_table (the collection whose sparse vectors it
 * ranks), a `sparse_vector` well formed, and a `vector_name` the collection declares (optional when it declares one).
 */
export function planSparse(
  collections: Collections,
  tenantId: string,
  table: string | undefined,
  stage: { readonly vector_name?: string | undefined; readonly sparse_vector?: SparseVectorValue | undefined },
  path: string,
): SparseStagePlan {
  if (table === undefined)
    throw invalid(
      'body.primary_table',
      `${path} is a sparse stage: it needs body.primary_table, the collection whose sparse vectors it ranks.`,
    );
  if (!stage.sparse_vector)
    throw invalid(`${path}.sparse_vector`, `${path}.sparse_vector is required by a sparse stage: {indices, values}.`);
  const sparse = checkSparse(stage.sparse_vector, `${path}.sparse_vector`);
  const collection = collections.require(tenantId, table, 'body.primary_table');
  const names = Object.keys(collection.sparse_vectors ?? {});
  const name = stage.vector_name ?? (names.length === 1 ? names[0] : undefined);
  if (name === undefined || !names.includes(name))
    throw invalid(
      `${path}.vector_name`,
      `${path}.vector_name: collection ${table} ${name === undefined ? `declares ${names.length} sparse vectors, so name one` : `declares no sparse vector "${name}"`}; expected one of: ${names.join(', ') || '(none)'}.`,
    );
  return { kind: 'sparse', target: { collection: table, name }, sparse };
}
