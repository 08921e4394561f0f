import type { VectorIndexes } from '../vectors/vector-index.js';

/**
 * What searches ask of the vector indexes: the main thread's VectorIndexes, or a search worker's mapped views of
 * them (search-pool/viewed-indexes.ts).
 */
export type VectorReader = Pick<VectorIndexes, 'ready' | 'size' | 'search' | 'exactVectors' | 'settings'>;
