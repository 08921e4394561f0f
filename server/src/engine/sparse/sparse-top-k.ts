import type { SparseVectorValue } from './sparse-input.js';
import { accumulatedTopK, accumulates } from './sparse-accumulate.js';
import { Best, type SparseScored } from './sparse-best.js';
import type { PostingList, SparseLists } from './sparse-lists.js';

export type { SparseScored } from './sparse-best.js';

interface Cursor {
  readonly list: PostingList;
  readonly weight: number;
  /** The most this term adds to any document's score (0 when every product is ≤ 0: not having it adds 0). */
  readonly bound: number;
  /** The term's position in the query: scores are summed in query order, as the exhaustive scoring sums them. */
  readonly at: number;
  pos: number;
}

/** The first position ≥ `from` whose seq is ≥ `target` (galloping, then a binary search). */
function seek(docs: Uint32Array, length: number, from: number, target: number): number {
  if (from >= length || docs[from]! >= target) return from;
  let lo = from;
  let hi = from + 1;
  for (let step = 1; hi < length && docs[hi]! < target; hi = from + step) {
    lo = hi;
    step *= 2;
  }
  if (hi > length) hi = length;
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (docs[mid]! < target) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The exact dot-product top `k` (best first, ties by seq) of the documents sharing a term with the query, skipping
 * removed documents and those not in `allowed` (decisions 0070, 0075): term at a time into an array of scores indexed
 * by seq when the lists' seqs are dense enough for one (sparse-accumulate.ts), else MaxScore. Both sum each document's
 * products in query order, as exhaustive scoring does, so they answer the same.
 *
 * @example sparseTopK(lists, { indices: [3, 17], values: [0.8, 0.2] }, 10);
 */
export function sparseTopK(
  lists: SparseLists,
  query: SparseVectorValue,
  k: number,
  allowed?: ReadonlySet<number>,
): SparseScored[] {
  return accumulates(lists) ? accumulatedTopK(lists, query, k, allowed) : maxScoreTopK(lists, query, k, allowed);
}

/**
 * The same top-k by MaxScore, document at a time (decision 0070). The terms are ordered
 * by their bound (weight × the list's largest or smallest value); once k documents are held, the terms whose bounds
 * sum below the k-th score are non-essential: a document found only in them cannot enter, so only the essential lists
 * are walked, and the others are looked into (by a galloping seek) for each candidate only while its score plus
 * what they could still add reaches the k-th. Scores are summed in query order — the same float sums exhaustive
 * scoring makes — and a candidate is pruned only below the threshold less a relative 1e-9, so no rounding of the
 * partial sums can drop a document that belongs.
 */
export function maxScoreTopK(
  lists: SparseLists,
  query: SparseVectorValue,
  k: number,
  allowed?: ReadonlySet<number>,
): SparseScored[] {
  const cursors: Cursor[] = [];
  query.indices.forEach((term, at) => {
    const list = lists.terms.get(term);
    if (!list || list.length === 0) return;
    const weight = query.values[at]!;
    const bound = Math.max(0, weight >= 0 ? weight * list.max : weight * list.min);
    cursors.push({ list, weight, bound, at, pos: 0 });
  });
  if (k <= 0 || cursors.length === 0) return [];
  cursors.sort((a, b) => a.bound - b.bound);
  const m = cursors.length;
  /** upTo[i]: the bounds of cursors 0…i−1 summed. */
  const upTo = new Float64Array(m + 1);
  for (let i = 0; i < m; i += 1) upTo[i + 1] = upTo[i]! + cursors[i]!.bound;
  const best = new Best(k);
  const removed = lists.removed;
  const parts = new Float64Array(query.indices.length);
  const found: number[] = [];
  let floor = -Infinity;
  /** Cursors below it are non-essential. */
  let essential = 0;
  for (;;) {
    let doc = Infinity;
    for (let i = essential; i < m; i += 1) {
      const c = cursors[i]!;
      if (c.pos < c.list.length && c.list.docs[c.pos]! < doc) doc = c.list.docs[c.pos]!;
    }
    if (doc === Infinity) break;
    found.length = 0;
    let partial = 0;
    for (let i = essential; i < m; i += 1) {
      const c = cursors[i]!;
      if (c.pos < c.list.length && c.list.docs[c.pos] === doc) {
        const part = c.weight * c.list.values[c.pos]!;
        parts[c.at] = part;
        found.push(c.at);
        partial += part;
        c.pos += 1;
      }
    }
    if (removed.has(doc) || (allowed !== undefined && !allowed.has(doc))) continue;
    let pruned = false;
    for (let i = essential - 1; i >= 0; i -= 1) {
      if (partial + upTo[i + 1]! < floor) {
        pruned = true;
        break;
      }
      const c = cursors[i]!;
      c.pos = seek(c.list.docs, c.list.length, c.pos, doc);
      if (c.pos < c.list.length && c.list.docs[c.pos] === doc) {
        const part = c.weight * c.list.values[c.pos]!;
        parts[c.at] = part;
        found.push(c.at);
        partial += part;
      }
    }
    if (pruned) continue;
    found.sort((a, b) => a - b);
    let score = 0;
    for (const at of found) score += parts[at]!;
    if (!best.offer(doc, score) || !best.full) continue;
    const threshold = best.threshold;
    floor = threshold - 1e-9 * (Math.abs(threshold) + 1);
    while (essential < m && upTo[essential + 1]! < floor) essential += 1;
  }
  return best.sorted();
}
