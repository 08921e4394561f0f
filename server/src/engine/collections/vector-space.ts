import type { HnswSettings, VectorDistance, VectorStorage } from '@godb/contract';

/**
 * A vector space: what one HNSW index holds. Model spaces hold the chunk vectors an embedding model computed
 * (one per tenant and model, named by the model, across collections, as before collections existed); client
 * spaces hold the vectors clients give with documents (one per tenant, collection and vector name).
 */
export interface SpaceSettings {
  readonly distance: VectorDistance;
  readonly storage: VectorStorage;
  readonly hnsw: HnswSettings;
  /** Where the vectors live: `chunks` (model vectors) or `document_vectors` (given by clients). */
  readonly source: { readonly kind: 'chunks'; readonly model: string } | ClientSource;
}

export interface ClientSource {
  readonly kind: 'documents';
  readonly collection: string;
  readonly name: string;
}

export const defaultHnsw: HnswSettings = { m: 16, ef_construction: 200, ef_search: 100 };

/** Model spaces: cosine over unit vectors, f16, default HNSW parameters. */
export const modelSpace = (model: string): SpaceSettings => ({
  distance: 'cosine',
  storage: 'f16',
  hnsw: defaultHnsw,
  source: { kind: 'chunks', model },
});

const clientMark = '\u0001';

/** The key of a client space, in the vector indexes and their generation counters (model names never start with U+0001). */
export const clientSpaceKey = (collection: string, name: string): string =>
  `${clientMark}${JSON.stringify([collection, name])}`;

export function parseSpaceKey(space: string): ClientSource | { kind: 'chunks'; model: string } {
  if (!space.startsWith(clientMark)) return { kind: 'chunks', model: space };
  const [collection, name] = JSON.parse(space.slice(1)) as [string, string];
  return { kind: 'documents', collection, name };
}

/** Bytes one number takes in the index for a storage kind. */
export const bytesPerNumber: Record<VectorStorage, number> = { f32: 4, f16: 2, i8: 1, b1: 0.125 };

/** What the allocator adds to each node of a usearch index in memory (not on disk), measured by bench:memory. */
const allocatorBytesPerVector = 112;

/**
 * Index memory per vector, estimated the way usearch lays it out: the quantised vector, its level-0 neighbour
 * list (2·m slots of 4 bytes), upper levels (on average 1/m of a node with m slots), the key and node header —
 * which is the saved file's size per vector — plus the allocator's overhead per node.
 */
export function indexBytesPerVector(dims: number, storage: VectorStorage, m: number): number {
  const vector = Math.ceil(dims * bytesPerNumber[storage]);
  const links = 2 * m * 4 + 4 + (m * 4 + 4) / m;
  return vector + links + 8 + 8 + allocatorBytesPerVector;
}
