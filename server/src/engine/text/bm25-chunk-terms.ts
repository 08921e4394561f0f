import type { Bm25Weights } from './bm25-score.js';
import type { TermDictionary } from './bm25-terms.js';

/** Separates the title's terms from the content's in a chunk's term sequence (a phrase never spans it). */
export const columnBreak = -1;

/**
 * The terms of the chunk being added (Bm25Index.add): its term sequence — title, `columnBreak`, content — and per
 * distinct term its weighted frequency, first position and occurrences. They go to scratch arrays indexed by term id
 * (no object or map per chunk): building a tenant's index adds every chunk, and allocation made it cost ~2 µs per
 * word.
 */
export class ChunkTerms {
  #freq = new Float64Array(1024);
  #firstAt = new Int32Array(1024);
  #occurrences = new Int32Array(1024);
  /** The distinct term ids of the chunk counted last, in order of first occurrence. */
  readonly touched: number[] = [];
  /** The term ids of the chunk counted last, in order (see columnBreak). */
  readonly sequence: number[] = [];

  /** Memory held by the scratch arrays, in bytes. */
  get bytes(): number {
    return this.#freq.byteLength + this.#firstAt.byteLength + this.#occurrences.byteLength;
  }

  /** Makes room for `terms` term ids and more (an index read back: without it, they would grow a doubling at a time). */
  reserve(terms: number): void {
    const size = Math.max(1024, Math.ceil(terms * 1.25));
    this.#freq = new Float64Array(size);
    this.#firstAt = new Int32Array(size);
    this.#occurrences = new Int32Array(size);
  }

  /** Counts a chunk's title and content terms, weighted by column, creating the terms new to `terms`. */
  count(titleWords: readonly string[], contentWords: readonly string[], weights: Bm25Weights, terms: TermDictionary) {
    const sequence = this.sequence;
    sequence.length = 0;
    this.touched.length = 0;
    this.#visit(titleWords, weights.title, terms);
    sequence.push(columnBreak);
    this.#visit(contentWords, weights.content, terms);
  }

  #visit(words: readonly string[], weight: number, terms: TermDictionary): void {
    const { sequence, touched } = this;
    for (const word of words) {
      const termId = terms.termId(word);
      if (termId >= this.#freq.length) this.#grow();
      if (this.#occurrences[termId] === 0) {
        touched.push(termId);
        this.#freq[termId] = weight;
        this.#firstAt[termId] = sequence.length;
      } else this.#freq[termId] = this.#freq[termId]! + weight;
      this.#occurrences[termId] = this.#occurrences[termId]! + 1;
      sequence.push(termId);
    }
  }

  #grow(): void {
    const grow = <A extends Float64Array | Int32Array>(old: A, next: A): A => {
      next.set(old);
      return next;
    };
    this.#freq = grow(this.#freq, new Float64Array(this.#freq.length * 2));
    this.#firstAt = grow(this.#firstAt, new Int32Array(this.#firstAt.length * 2));
    this.#occurrences = grow(this.#occurrences, new Int32Array(this.#occurrences.length * 2));
  }

  /**
   * Appends the chunk counted last (local id `id`, `length` tokens, public when `publicStep` is 1) to its terms'
   * postings, and clears the scratch for the next chunk.
   */
  post(terms: TermDictionary, id: number, length: number, publicStep: 0 | 1): void {
    for (const termId of this.touched) {
      const postings = terms.read(termId);
      postings.push(id, this.#freq[termId]!, length, this.#firstAt[termId]!, this.#occurrences[termId]!);
      postings.publicDf += publicStep;
      postings.publicDocs = -1;
      this.#occurrences[termId] = 0;
    }
  }
}
