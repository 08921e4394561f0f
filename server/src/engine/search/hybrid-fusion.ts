import type { hybridFusions } from '@godb/contract';

/** How the two sides' scores are put on one scale before alpha weighs them (see sideScores). */
export type Fusion = (typeof hybridFusions)[number];

/** Reciprocal rank fusion constant. */
export const rrfK = 60;

/**
 * One side's scores on the fusion's scale, by key (a document's or a chunk's), items best first:
 * - `dbsf_relative` (the default): `dbsf` with σ taken as at least |mean| / 6, so the window mean ± 3σ is never
 *   narrower than half to one and a half times the mean and a score is never judged more finely than relative to
 *   the side's scores (5 % below the mean is 0.05 below its 0.5). Plain dbsf stretched 14 of 17 text matches
 *   scoring a little below the best three (σ tiny) far down, so at alpha 0.3 the documents found by both sides
 *   ranked 4th and 5th, under three found by the text alone (issue #37, docs/decisions/0002). The floor applies to
 *   sides of three documents or more;
 * - `dbsf` (distribution-based, as Qdrant's): mean − 3σ → 0 and mean + 3σ → 1 (clamped);
 * - `weighted`: min-max, the best 1 and the worst 0 (put near-top scores at 0);
 * - `rrf`: 1 / (60 + rank).
 */
export function sideScores<K>(items: readonly { key: K; score: number }[], fusion: Fusion): Map<K, number> {
  if (fusion === 'rrf') return new Map(items.map((x, i) => [x.key, 1 / (rrfK + i + 1)]));
  if (fusion === 'dbsf' || fusion === 'dbsf_relative') {
    const mean = items.reduce((sum, x) => sum + x.score, 0) / items.length;
    const spread = Math.sqrt(items.reduce((sum, x) => sum + (x.score - mean) ** 2, 0) / items.length);
    // The floor needs a distribution: a side of one or two documents is judged as plain dbsf judges it (one match
    // scores 1), never capped near 0.5 under a side that found many (a rare code only one document holds).
    const floor = fusion === 'dbsf_relative' && items.length >= 3 ? Math.abs(mean) / 6 : 0;
    const sigma = Math.max(spread, floor);
    // dbsf with all scores equal (or one), or every score 0: each is as good as the side gets.
    if (sigma === 0) return new Map(items.map((x) => [x.key, 1]));
    const low = mean - 3 * sigma;
    return new Map(items.map((x) => [x.key, Math.min(1, Math.max(0, (x.score - low) / (6 * sigma)))]));
  }
  const min = Math.min(...items.map((x) => x.score));
  const max = Math.max(...items.map((x) => x.score));
  return new Map(items.map((x) => [x.key, max === min ? 1 : (x.score - min) / (max - min)]));
}

/** A document one side found, best first in its side: its score there and its chunks' (keys of one kind). */
export interface SideEntry<K, T> {
  readonly key: K;
  readonly score: number;
  readonly chunks: readonly { readonly key: K; readonly score: number }[];
  /** The caller's own record of the document (a hit, a rendered result), handed back with the fused entry. */
  readonly item: T;
}

/** A fused document: its score, its chunks' fused scores (best first), each side's score on the fusion's scale. */
export interface FusedEntry<K, T> {
  readonly key: K;
  readonly score: number;
  readonly chunks: readonly { readonly key: K; readonly score: number }[];
  /** The item of the side that listed it first (the text side's when both found it). */
  readonly item: T;
  readonly text: number;
  readonly vector: number;
}

/**
 * Hybrid fusion (hybrid-search.ts): alpha · vector + (1 − alpha) · text, each side on its fusion's scale; a
 * document (or chunk) one side did not find has 0 from it. Generic over the key, so one node fuses by sequence
 * numbers and a partitioned collection's fan-out by document and chunk ids, with the same arithmetic and the same
 * order (ties keep the text side's order, then the vector side's).
 *
 * @example fuseSides(text, vector, 0.5, 'rrf')[0]?.key; // the best document
 */
export function fuseSides<K, T>(
  textSide: readonly SideEntry<K, T>[],
  vectorSide: readonly SideEntry<K, T>[],
  alpha: number,
  fusion: Fusion,
): FusedEntry<K, T>[] {
  const chunksOf = (side: readonly SideEntry<K, T>[]) =>
    side.flatMap((e) => e.chunks).sort((a, b) => b.score - a.score);
  const text = sideScores(textSide, fusion);
  const vector = sideScores(vectorSide, fusion);
  const textChunks = sideScores(chunksOf(textSide), fusion);
  const vectorChunks = sideScores(chunksOf(vectorSide), fusion);
  const merged = new Map<K, { item: T; chunks: Set<K> }>();
  for (const entry of [...textSide, ...vectorSide]) {
    const existing = merged.get(entry.key);
    const chunks = existing?.chunks ?? new Set<K>();
    for (const c of entry.chunks) chunks.add(c.key);
    if (!existing) merged.set(entry.key, { item: entry.item, chunks });
  }
  const fused = [...merged].map(([key, { item, chunks }]) => {
    const t = text.get(key) ?? 0;
    const v = vector.get(key) ?? 0;
    // One entry per chunk, with the chunk's fused score (a chunk found by both sides is shown once).
    const scored = [...chunks]
      .map((c) => ({ key: c, score: alpha * (vectorChunks.get(c) ?? 0) + (1 - alpha) * (textChunks.get(c) ?? 0) }))
      .sort((a, b) => b.score - a.score);
    return { key, item, chunks: scored, score: alpha * v + (1 - alpha) * t, text: t, vector: v };
  });
  return fused.sort((a, b) => b.score - a.score);
}
