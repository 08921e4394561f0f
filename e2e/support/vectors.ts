import { seededRandom } from '../../server/src/engine/vectors/kmeans.js';

/**
 * A deterministic vector of `dims` numbers in [-0.5, 0.5) for document number `n` (the engine's mulberry32, seeded
 * from `n`), so a test can write it in one process and search for it again in the next.
 *
 * @example const doc = { id: 'd7', primary_table: 'vecs', vector: vectorOf(7, 128) };
 */
export function vectorOf(n: number, dims: number): number[] {
  const next = seededRandom(n * 2654435761);
  return Array.from({ length: dims }, () => next() - 0.5);
}
