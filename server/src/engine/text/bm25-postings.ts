const noIds = new Int32Array(0);
const noFreqs = new Float32Array(0);

/**
 * One term's postings, column by column: local chunk ids (ascending: chunks are added in id order, and compaction
 * keeps the order), weighted term frequencies, where the term first occurs in the chunk's term sequence and how many
 * times it occurs (for phrases); with the term's counts and score bounds.
 */
export class Postings {
  // Empty until the first push (no allocation per term: an index read back from a checkpoint makes a million).
  ids: Int32Array = noIds;
  freqs: Float32Array = noFreqs;
  firstAt: Int32Array = noIds;
  occurrences: Int32Array = noIds;
  length = 0;
  /**
   * Read back from a checkpoint and not used since: where its entries start in the checkpoint's columns (its arrays
   * are made on first use, see TermDictionary.read); -1 otherwise.
   */
  from = -1;
  /** Live chunks containing the term. */
  df = 0;
  /** Live public chunks containing the term: its idf (see CorpusStats). */
  publicDf = 0;
  /**
   * Live public documents containing the term (a document-level idf, see DocumentRanking), or -1 until counted:
   * every write to a chunk holding the term sets it back to -1, so a query counts it only after writes.
   */
  publicDocs = -1;
  /** Bounds over the postings (never tightened on removal, so always safe): for the term's score bound. */
  maxFreq = 0;
  minLength = Number.MAX_SAFE_INTEGER;

  /** Appends chunk `id` (its local id, above every id here) with the term's counts in it. */
  push(id: number, freq: number, chunkLength: number, firstAt: number, occurrences: number): void {
    if (this.length === this.ids.length) {
      const grow = <A extends Int32Array | Float32Array>(old: A, next: A): A => {
        next.set(old);
        return next;
      };
      const capacity = Math.max(4, this.length * 2);
      this.ids = grow(this.ids, new Int32Array(capacity));
      this.freqs = grow(this.freqs, new Float32Array(capacity));
      this.firstAt = grow(this.firstAt, new Int32Array(capacity));
      this.occurrences = grow(this.occurrences, new Int32Array(capacity));
    }
    this.ids[this.length] = id;
    this.freqs[this.length] = freq;
    this.firstAt[this.length] = firstAt;
    this.occurrences[this.length] = occurrences;
    this.length += 1;
    this.df += 1;
    if (freq > this.maxFreq) this.maxFreq = freq;
    if (chunkLength < this.minLength) this.minLength = chunkLength;
  }

  /**
   * Keeps the entries of the chunks `newId` renumbers (dead ones map to -1), renumbered, in place, and recomputes the
   * bounds from the chunks' `lengths` (by new id).
   */
  compact(newId: Int32Array, lengths: Int32Array): void {
    let w = 0;
    this.maxFreq = 0;
    this.minLength = Number.MAX_SAFE_INTEGER;
    for (let i = 0; i < this.length; i += 1) {
      const id = newId[this.ids[i]!]!;
      if (id < 0) continue;
      this.ids[w] = id;
      this.freqs[w] = this.freqs[i]!;
      this.firstAt[w] = this.firstAt[i]!;
      this.occurrences[w] = this.occurrences[i]!;
      this.maxFreq = Math.max(this.maxFreq, this.freqs[w]!);
      this.minLength = Math.min(this.minLength, lengths[id]!);
      w += 1;
    }
    this.length = w;
  }
}

/**
 * The first position at or after `from` of `ids` (ascending, `length` of them) whose id is at least `id`, or
 * `length`: doubling steps from `from`, then a binary search within the last step.
 *
 * @example gallop(Int32Array.of(1, 4, 9, 16), 4, 0, 5) // 2
 */
export function gallop(ids: Int32Array, length: number, from: number, id: number): number {
  if (from >= length || ids[from]! >= id) return from;
  let low = from; // ids[low] < id
  let step = 1;
  while (low + step < length && ids[low + step]! < id) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, length); // ids[high] >= id, or high = length
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! < id) low = mid;
    else high = mid;
  }
  return high;
}
