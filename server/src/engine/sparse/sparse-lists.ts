/**
 * One term's postings in memory: document seqs ascending (Uint32Array) with their float32 values, grown by doubling.
 * `max` and `min` bound every value the list has held (a removed document's value may still count: bounds only need
 * to be safe, and a compaction makes them tight again).
 */
export class PostingList {
  docs: Uint32Array;
  values: Float32Array;
  length = 0;
  max = -Infinity;
  min = Infinity;

  constructor(capacity = 4) {
    this.docs = new Uint32Array(capacity);
    this.values = new Float32Array(capacity);
  }

  /** Appends a posting; `seq` must be greater than every seq the list holds (seqs only grow). */
  push(seq: number, value: number): void {
    if (this.length === this.docs.length) {
      const docs = new Uint32Array(Math.max(4, this.length * 2));
      docs.set(this.docs);
      const values = new Float32Array(docs.length);
      values.set(this.values);
      this.docs = docs;
      this.values = values;
    }
    this.docs[this.length] = seq;
    this.values[this.length] = value;
    // The bounds of the float32 value as stored, which is what queries multiply.
    const v = this.values[this.length]!;
    this.length += 1;
    if (v > this.max) this.max = v;
    if (v < this.min) this.min = v;
  }

  /** Lets go of the room past the last posting (a list built by doubling, once complete). */
  trim(): void {
    if (this.docs.length - this.length < 64) return;
    this.docs = this.docs.slice(0, this.length);
    this.values = this.values.slice(0, this.length);
  }
}

/**
 * The in-memory inverted index of one sparse vector name of one collection (decision 0070): a posting list per term,
 * the removed documents (tombstones, skipped by every query until a compaction drops their postings), and the highest
 * seq posted, below which no document is posted again (seqs are AUTOINCREMENT; a restore, which does post older seqs,
 * drops the index instead).
 */
export class SparseLists {
  readonly terms = new Map<number, PostingList>();
  readonly removed = new Set<number>();
  maxSeq = 0;
  /** The lowest seq posted (Infinity while none is): with maxSeq, the range an array of scores by seq spans. */
  minSeq = Infinity;
  postings = 0;
  /** Documents posted and not removed. */
  docs = 0;

  /** Posts one document version's vector (its seq above every one posted). */
  add(seq: number, indices: readonly number[], values: readonly number[]): void {
    indices.forEach((term, i) => {
      let list = this.terms.get(term);
      if (!list) this.terms.set(term, (list = new PostingList()));
      list.push(seq, values[i]!);
    });
    this.postings += indices.length;
    this.docs += 1;
    if (seq > this.maxSeq) this.maxSeq = seq;
    if (seq < this.minSeq) this.minSeq = seq;
  }

  /** A posted document left the index: skipped from now on; its postings go at the next compaction. */
  remove(seq: number): void {
    if (this.removed.has(seq)) return;
    this.removed.add(seq);
    this.docs -= 1;
    // Queries skip tombstones one by one: past a fifth of the documents, the lists are rewritten without them.
    if (this.removed.size > 64 && this.removed.size * 5 > this.docs) this.compact();
  }

  /** Rewrites every list without the removed documents, with tight bounds. */
  compact(): void {
    const removed = this.removed;
    let postings = 0;
    for (const [term, list] of this.terms) {
      const kept = new PostingList(Math.max(4, list.length));
      for (let i = 0; i < list.length; i += 1)
        if (!removed.has(list.docs[i]!)) kept.push(list.docs[i]!, list.values[i]!);
      if (kept.length === 0) this.terms.delete(term);
      else this.terms.set(term, kept);
      postings += kept.length;
    }
    this.postings = postings;
    removed.clear();
  }

  /** Memory the lists hold, in bytes (the typed arrays' capacity). */
  bytes(): number {
    let total = 0;
    for (const list of this.terms.values()) total += list.docs.byteLength + list.values.byteLength;
    return total;
  }
}
