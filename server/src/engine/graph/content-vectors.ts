import type { SearchCore } from '../search/search-core.js';

/**
 * Each document's chunk vectors summed per model, and how many chunk vectors each model has among the documents:
 * contentVectors before it picks the model and normalises, in a form that adds up over the nodes holding the
 * documents (a document's chunks are all on each of its holders).
 */
export interface ContentVectorSums {
  readonly counts: ReadonlyMap<string, number>;
  readonly sums: ReadonlyMap<string, ReadonlyMap<string, Float32Array>>;
}

/** The chunk vectors of `ids` here, summed per document and model (see ContentVectorSums). */
export function contentVectorSums(core: SearchCore, tenantId: string, ids: readonly string[]): ContentVectorSums {
  const counts = new Map<string, number>();
  const sums = new Map<string, Map<string, Float32Array>>();
  for (const r of core.rows.liveChunkVectorsOf(tenantId, ids)) {
    counts.set(r.model, (counts.get(r.model) ?? 0) + 1);
    const v = new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4);
    let byDoc = sums.get(r.model);
    if (!byDoc) sums.set(r.model, (byDoc = new Map()));
    const sum = byDoc.get(r.id) ?? new Float32Array(v.length);
    for (let d = 0; d < v.length; d += 1) sum[d]! += v[d]!;
    byDoc.set(r.id, sum);
  }
  return { counts, sums };
}

/**
 * Content embeddings from the sums of one or more parts: the normalised mean of each document's chunk vectors in
 * `main` (mainModel: the model with most chunk vectors, ties by name). Documents without one are absent.
 */
export function contentVectorsOf(
  parts: readonly ContentVectorSums[],
  main: string | undefined,
): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  if (main === undefined) return vectors;
  for (const part of parts) {
    for (const [id, sum] of part.sums.get(main) ?? []) {
      const v = Float32Array.from(sum);
      const n = Math.hypot(...v) || 1;
      for (let d = 0; d < v.length; d += 1) v[d]! /= n;
      vectors.set(id, v);
    }
  }
  return vectors;
}

/** The model with most chunk vectors over the parts' counts (ties by name): the one content embeddings are in. */
export function mainModel(counts: readonly ReadonlyMap<string, number>[]): string | undefined {
  const summed = new Map<string, number>();
  for (const part of counts) for (const [model, n] of part) summed.set(model, (summed.get(model) ?? 0) + n);
  return [...summed].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
}

/**
 * Each document's content embedding: the normalised mean of its chunk vectors in the tenant's main model (the one
 * with most vectors among these documents). Documents without vectors are absent.
 */
export function contentVectors(core: SearchCore, tenantId: string, ids: readonly string[]): Map<string, Float32Array> {
  const sums = contentVectorSums(core, tenantId, ids);
  return contentVectorsOf([sums], mainModel([sums.counts]));
}

/**
 * Each document's vector of a collection's own vector name (given by clients), unit length (cosine). Documents
 * without one are absent.
 */
export function clientContentVectors(
  core: SearchCore,
  tenantId: string,
  space: { readonly collection: string; readonly name: string },
  ids: readonly string[],
): Map<string, Float32Array> {
  const rows = core.rows.liveClientVectorsOf(tenantId, space, ids);
  return new Map(
    rows.map((r) => {
      const v = new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength));
      const n = Math.hypot(...v) || 1;
      return [r.id, v.map((x) => x / n)];
    }),
  );
}
