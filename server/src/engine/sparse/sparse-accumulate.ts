import type { SparseVectorValue } from './sparse-input.js';
import { Best, type SparseScored } from './sparse-best.js';
import type { SparseLists } from './sparse-lists.js';

/**
 * Per lists, the arrays a query accumulates into, reused by the next (queries run one at a time on the thread):
 * scores by seq − base, and the query number that last touched each seq (so nothing is cleared between queries).
 */
interface Scratch {
  base: number;
  scores: Float64Array;
  stamps: Uint32Array;
  touched: Uint32Array;
  query: number;
}

const scratches = new WeakMap<SparseLists, Scratch>();

/** Seqs an array of scores may span however few documents the lists hold (8 MB of scores, 4 MB of stamps). */
const smallRange = 1 << 20;

/**
 * Whether the lists' seqs are dense enough to score into an array indexed by seq: their range within a million, or
 * within eight times the documents posted (a collection written among others has gaps; one spread thinly over a
 * large store's seqs is ranked by MaxScore instead).
 */
export function accumulates(lists: SparseLists): boolean {
  if (lists.postings === 0) return false;
  const range = lists.maxSeq - lists.minSeq + 1;
  return range <= smallRange || range <= 8 * (lists.docs + lists.removed.size);
}

function scratchOf(lists: SparseLists): Scratch {
  const range = lists.maxSeq - lists.minSeq + 1;
  let s = scratches.get(lists);
  if (!s || lists.minSeq < s.base || range > s.scores.length - (lists.minSeq - s.base)) {
    // Grown with room, as writes add seqs above the highest.
    const size = Math.ceil(range * 1.25) + 1024;
    s = {
      base: lists.minSeq,
      scores: new Float64Array(size),
      stamps: new Uint32Array(size),
      touched: new Uint32Array(size),
      query: 0,
    };
    scratches.set(lists, s);
  }
  s.query += 1;
  if (s.query === 0xffffffff) {
    s.stamps.fill(0);
    s.query = 1;
  }
  return s;
}

/**
 * The exact dot-product top `k` term at a time (decision 0075): every posting of every query term is added into its
 * document's score, the terms taken in query order — so each score is the same float sum exhaustive scoring makes —
 * then the documents touched are offered to a heap in seq order (ties by seq), skipping removed ones and those not
 * in `allowed`. Every posting is read, but at a few nanoseconds each: cheaper than MaxScore's document-at-a-time
 * walk when common terms keep their long lists essential (bench/pipeline.md).
 */
export function accumulatedTopK(
  lists: SparseLists,
  query: SparseVectorValue,
  k: number,
  allowed?: ReadonlySet<number>,
): SparseScored[] {
  if (k <= 0) return [];
  const s = scratchOf(lists);
  const { scores, stamps, touched, base } = s;
  const stamp = s.query;
  let count = 0;
  for (let at = 0; at < query.indices.length; at += 1) {
    const list = lists.terms.get(query.indices[at]!);
    if (!list) continue;
    const weight = query.values[at]!;
    const { docs, values, length } = list;
    for (let i = 0; i < length; i += 1) {
      const d = docs[i]! - base;
      const part = weight * values[i]!;
      if (stamps[d] === stamp) scores[d] = scores[d]! + part;
      else {
        stamps[d] = stamp;
        scores[d] = 0 + part; // as the exhaustive sum starts: a −0 product scores 0
        touched[count] = d;
        count += 1;
      }
    }
  }
  if (count === 0) return [];
  const best = new Best(k);
  const removed = lists.removed.size > 0 ? lists.removed : undefined;
  const offer = (d: number) => {
    const seq = d + base;
    if (removed?.has(seq) || (allowed !== undefined && !allowed.has(seq))) return;
    best.offer(seq, scores[d]!);
  };
  const range = lists.maxSeq - base + 1;
  if (count * 16 < range) {
    // Few touched: sorted, rather than the whole range scanned for their stamps.
    const order = touched.subarray(0, count).sort();
    for (let i = 0; i < count; i += 1) offer(order[i]!);
  } else for (let d = 0; d < range; d += 1) if (stamps[d] === stamp) offer(d);
  return best.sorted();
}
