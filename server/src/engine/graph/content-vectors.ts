import type { SearchCore } from '../search/search-core.js';

/**
 * Each document's content embedding: the normalised mean of its chunk vectors in the tenant's main model (the one
 * with most vectors among these documents). Documents without vectors are absent.
 */
export function contentVectors(core: SearchCore, tenantId: string, ids: readonly string[]): Map<string, Float32Array> {
  const rows = core.rows.liveChunkVectorsOf(tenantId, ids);
  const byModel = new Map<string, number>();
  for (const r of rows) byModel.set(r.model, (byModel.get(r.model) ?? 0) + 1);
  const main = [...byModel].sort((a, b) => b[1] - a[1])[0]?.[0];
  const sums = new Map<string, Float32Array>();
  for (const r of rows) {
    if (r.model !== main) continue;
    const v = new Float32Array(r.vector.buffer, r.vector.byteOffset, r.vector.byteLength / 4);
    const sum = sums.get(r.id) ?? new Float32Array(v.length);
    for (let d = 0; d < v.length; d += 1) sum[d]! += v[d]!;
    sums.set(r.id, sum);
  }
  for (const v of sums.values()) {
    const n = Math.hypot(...v) || 1;
    for (let d = 0; d < v.length; d += 1) v[d]! /= n;
  }
  return sums;
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
