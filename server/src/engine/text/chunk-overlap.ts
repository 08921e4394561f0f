/**
 * How many terms a chunk's content shares with the end of the previous chunk of its document: document chunking
 * slides windows that overlap (chunk_overlap characters, breaking between words), so the next window begins with
 * the last words of the one before. The overlap is found on the term sequences themselves — the longest suffix of
 * `previous` that `next` begins with — so it needs no offsets, and a checkpoint read back finds the same overlap.
 * Candidates are the places `next`'s first term occurs in `previous`, earliest (longest overlap) first.
 *
 * @example sharedTerms(Int32Array.of(1, 2, 3, 4), Int32Array.of(3, 4, 5)) // 2
 */
export function sharedTerms(previous: Int32Array, next: Int32Array): number {
  const n = previous.length;
  const m = next.length;
  if (n === 0 || m === 0) return 0;
  const first = next[0]!;
  for (let from = Math.max(0, n - m); from < n; from += 1) {
    if (previous[from] !== first) continue;
    let k = 1;
    while (from + k < n && previous[from + k] === next[k]) k += 1;
    if (from + k === n) return n - from;
  }
  return 0;
}
