import { PostingList, SparseLists } from './sparse-lists.js';

/** Postings one slice reads: a few tens of milliseconds, so requests are served between slices. */
export const sliceRows = 16_384;

/** Reads up to sliceRows postings (term, seq, value) after (term, seq), in that order. */
export type SliceReader = (afterTerm: number, afterSeq: number) => [number, number, number][];

/**
 * The in-memory lists of one sparse vector name read from SQLite a slice at a time (decision 0075), in the table's
 * order (term, seq), resuming after the last (term, seq) read — no statement stays open between slices, so writes
 * and other reads go on meanwhile. Only postings at or below `through` (the highest seq posted when the build began)
 * are read: a write during the build has a higher seq, and is applied from the writes noted meanwhile once the build
 * is done (settle), as is a removal — a document removed while its postings were half read is one of `seen`, and
 * becomes a tombstone.
 */
export class SparseListsBuild {
  readonly lists = new SparseLists();
  /** The document versions read. */
  readonly seen = new Set<number>();
  readonly through: number;
  readonly #read: SliceReader;
  #term = -1;
  #seq = -1;
  #list: PostingList | undefined;
  #done = false;

  /** `through`: the highest seq posted when the build begins; `read` reads one slice. */
  constructor(through: number, read: SliceReader) {
    this.through = through;
    this.#read = read;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Reads the next slice; true once every posting is in. */
  step(): boolean {
    if (this.#done) return true;
    const rows = this.#read(this.#term, this.#seq);
    const { lists, seen } = this;
    for (const [term, seq, value] of rows) {
      if (term !== this.#term) {
        this.#list?.trim();
        this.#list = undefined;
        this.#term = term;
      }
      this.#seq = seq;
      // Written during the build: settled at its end.
      if (seq > this.through) continue;
      if (!this.#list) lists.terms.set(term, (this.#list = new PostingList(64)));
      this.#list.push(seq, value);
      lists.postings += 1;
      seen.add(seq);
      if (seq > lists.maxSeq) lists.maxSeq = seq;
      if (seq < lists.minSeq) lists.minSeq = seq;
    }
    if (rows.length < sliceRows) {
      this.#list?.trim();
      lists.docs = seen.size;
      this.#done = true;
    }
    return this.#done;
  }

  /**
   * Applies the writes noted during the build (their seqs, each with its postings as SQLite now holds them): a version
   * posted above `through` is added, one read by the build and gone since is removed.
   */
  settle(written: readonly { seq: number; rows: readonly [number, number][] }[]): void {
    for (const { seq, rows } of [...written].sort((a, b) => a.seq - b.seq)) {
      if (rows.length > 0 && seq > this.through && seq > this.lists.maxSeq)
        this.lists.add(
          seq,
          rows.map((r) => r[0]),
          rows.map((r) => r[1]),
        );
      else if (rows.length === 0 && this.seen.has(seq)) this.lists.remove(seq);
    }
  }
}
