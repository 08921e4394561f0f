import { Postings } from './bm25-postings.js';
import { postingsRoom, type Bm25Saved, type Bm25TermStats, type PostingsColumn } from './bm25-state.js';

/** A query term with postings of a live chunk, and how many times the query repeats it. */
export interface QueryTerm {
  readonly termId: number;
  readonly p: Postings;
  readonly n: number;
  readonly term: string;
}

/**
 * The terms of a BM25 index (Bm25Index): term ids by term (ids in insertion order, never reused), each term's
 * postings. Its input is analysed already (terms, see analysedTerms in tokenize.ts). An index read back from a checkpoint keeps the checkpoint's
 * postings columns and makes a term's arrays (views of them) the first time the term is used.
 */
export class TermDictionary {
  readonly #ids = new Map<string, number>();
  #postings: Postings[] = [];
  /** The postings columns of the checkpoint the index was read back from, if it was (see restoring and read). */
  #restored: Bm25Saved['postings'] | undefined;

  /** Terms (the next term id). */
  get size(): number {
    return this.#postings.length;
  }

  /** The buffer of the checkpoint read back, if any: the index's arrays that are views of it are counted once. */
  get file(): ArrayBufferLike | undefined {
    return this.#restored?.ids.buffer;
  }

  /** Memory held by the postings (those that are not views of `file`) and the maps, as Bm25Index.bytes counts it. */
  bytes(file: ArrayBufferLike | undefined): number {
    let bytes = 0;
    for (const p of this.#postings) {
      bytes += 64;
      if (p.ids.buffer !== file)
        bytes += p.ids.byteLength + p.freqs.byteLength + p.firstAt.byteLength + p.occurrences.byteLength;
    }
    return bytes + 64 * this.#ids.size;
  }

  /** The term id of a term, if the index has seen it. */
  find(term: string): number | undefined {
    return this.#ids.get(term);
  }

  /** A term's postings for their counts only: their arrays may still be the checkpoint's, unmade (see read). */
  counts(termId: number): Postings {
    return this.#postings[termId]!;
  }

  /** A term's postings, with their arrays made if they are still the checkpoint's (see restoring). */
  read(termId: number): Postings {
    const p = this.#postings[termId]!;
    if (p.from >= 0) {
      // Its region of the restored columns, room to grow included (a push fills it before copying the list).
      const { ids, freqs, firstAt, occurrences } = this.#restored!;
      const end = p.from + postingsRoom(p.length);
      p.ids = ids.subarray(p.from, end);
      p.freqs = freqs.subarray(p.from, end);
      p.firstAt = firstAt.subarray(p.from, end);
      p.occurrences = occurrences.subarray(p.from, end);
      p.from = -1;
    }
    return p;
  }

  /** A term's postings if it occurs in a live chunk, ready to read. */
  live(term: string): { termId: number; p: Postings } | undefined {
    const termId = this.#ids.get(term);
    if (termId === undefined || this.#postings[termId]!.df === 0) return undefined;
    return { termId, p: this.read(termId) };
  }

  /**
   * A query's terms (each with how many times the query repeats it) that occur in a live chunk, rarest first by the
   * public counts (a stable sort): the order a chunk's terms are summed in never depends on chunks the caller may
   * not read, so neither does the last bit of its score.
   */
  rarestFirst(times: ReadonlyMap<string, number>): QueryTerm[] {
    const terms: QueryTerm[] = [];
    for (const [term, n] of times) {
      const found = this.live(term);
      if (found) terms.push({ ...found, n, term });
    }
    return terms.sort((x, y) => x.p.publicDf - y.p.publicDf);
  }

  /** Live public chunks holding a term: how fuzzy, wildcard and autocomplete candidates are ordered. */
  publicChunks(term: string): number {
    const termId = this.#ids.get(term);
    return termId === undefined ? 0 : this.#postings[termId]!.publicDf;
  }

  /** The term id of a term, made when the term is new. */
  termId(term: string): number {
    let termId = this.#ids.get(term);
    if (termId === undefined) {
      termId = this.#postings.length;
      this.#ids.set(term, termId);
      this.#postings.push(new Postings());
    }
    return termId;
  }

  /** The first `count` terms, by term id. */
  names(count: number): string[] {
    const names: string[] = [];
    // Terms are never taken out of the map, and it iterates in insertion (term id) order.
    for (const term of this.#ids.keys()) {
      if (names.length === count) break;
      names.push(term);
    }
    return names;
  }

  /** Each term's counts as they are now, copied (they change in place), for a checkpoint. */
  stats(): Bm25TermStats {
    const terms = this.#postings.length;
    const stats = {
      lengths: new Int32Array(terms),
      df: new Int32Array(terms),
      publicDf: new Int32Array(terms),
      maxFreq: new Float64Array(terms),
      minLength: new Float64Array(terms),
    };
    for (let t = 0; t < terms; t += 1) {
      const p = this.#postings[t]!;
      stats.lengths[t] = p.length;
      stats.df[t] = p.df;
      stats.publicDf[t] = p.publicDf;
      stats.maxFreq[t] = p.maxFreq;
      stats.minLength[t] = p.minLength;
    }
    return stats;
  }

  /**
   * Where a term's entries are when a checkpoint's write reaches them: the term's arrays (copied whole into longer
   * ones as they grow) or the columns of the checkpoint it was read back from; both hold the captured entries.
   */
  column(termId: number, column: PostingsColumn): Int32Array | Float32Array {
    const p = this.#postings[termId]!;
    const source = p.from >= 0 ? this.#restored! : p;
    return column === 0 ? source.ids : column === 1 ? source.freqs : column === 2 ? source.firstAt : source.occurrences;
  }

  /** Where a term's entries start in `column`'s array. */
  offset(termId: number): number {
    return Math.max(0, this.#postings[termId]!.from);
  }

  /**
   * Takes a checkpoint's terms and postings (into an empty dictionary), yielding every `perStep` terms: a term's
   * arrays are made the first time it is read — making them all costs seconds at a million terms, most of which are
   * never searched.
   */
  *restoring(saved: Bm25Saved, perStep: number): Generator<void, void> {
    const terms = saved.terms.length;
    const { lengths, df, publicDf, maxFreq, minLength } = saved.stats;
    const postings: Postings[] = []; // grown by push: see Bm25Index.capture
    // Each term's entries have room to grow in place in the file's columns (postingsRoom).
    let from = 0;
    for (let t = 0; t < terms; t += 1) {
      this.#ids.set(saved.terms[t]!, t);
      const p = new Postings();
      p.length = lengths[t]!;
      p.from = p.length > 0 ? from : -1;
      p.df = df[t]!;
      p.publicDf = publicDf[t]!;
      p.maxFreq = maxFreq[t]!;
      p.minLength = minLength[t]!;
      from += postingsRoom(p.length);
      postings.push(p);
      if (t % perStep === perStep - 1) yield;
    }
    this.#postings = postings;
    this.#restored = saved.postings;
  }

  /** Renumbers every term's postings after the chunks were (see Postings.compact). */
  compact(newId: Int32Array, lengths: Int32Array): void {
    // Each rewritten in place: its own arrays, if they were a checkpoint's views.
    for (let t = 0; t < this.#postings.length; t += 1) this.read(t).compact(newId, lengths);
  }
}
