import { grown, type ChunkTable } from './bm25-chunks.js';
import type { CorpusStats } from './bm25-score.js';
import { sharedTerms } from './chunk-overlap.js';

/** Where a chunk added again sat in its document (see DocumentTable.placeOf). */
export interface ChunkPlace {
  readonly fresh: number;
  readonly last: boolean;
}

/**
 * The documents of a BM25 index (Bm25Index): a local doc id by document seq, and per local doc id the statistics of
 * its live chunks together — what ranking a document split into chunks as a whole needs (DocumentRanking). Each
 * chunk's link to its document (`docOf`, `fresh`) is a column of the chunk table.
 */
export class DocumentTable {
  readonly #chunks: ChunkTable;
  readonly #ids = new Map<number, number>();
  #count = 0;
  /** Tokens of the document (each of its chunks' own terms: overlap and repeated titles counted once). */
  lengths = new Float64Array(256);
  #chunkCounts = new Int32Array(256);
  #publicChunkCounts = new Int32Array(256);
  /** The local id of the document's last chunk added (the one a next chunk overlaps), -1 if gone. */
  #last = new Int32Array(256);
  /** Live public documents and their tokens: the statistics a document-level score uses. */
  #publicDocs = 0;
  #publicDocTokens = 0;
  /** Live documents of more than one chunk: while there is none, chunks are documents and rank as such. */
  #split = 0;

  constructor(chunks: ChunkTable) {
    this.#chunks = chunks;
  }

  /** Local doc ids the columns have room for. */
  get capacity(): number {
    return this.lengths.length;
  }

  /** Live documents of more than one chunk. */
  get split(): number {
    return this.#split;
  }

  /** The statistics of a document-level score: the live public documents and their tokens (see `lengths`). */
  get stats(): CorpusStats {
    return { chunks: this.#publicDocs, tokens: this.#publicDocTokens };
  }

  /** Memory held by the columns and the map, in bytes. */
  get bytes(): number {
    return (
      this.lengths.byteLength +
      this.#chunkCounts.byteLength +
      this.#publicChunkCounts.byteLength +
      this.#last.byteLength +
      64 * this.#ids.size
    );
  }

  /**
   * Where live chunk `id` sits in its document, if `docSeq` is still its document: a chunk added again (a write
   * replayed) keeps its place — attached after the document's last chunk, it would be compared with a chunk it does
   * not follow (see attach).
   */
  placeOf(id: number, docSeq: number): ChunkPlace | undefined {
    const chunks = this.#chunks;
    if (chunks.docSeqs[id] !== docSeq) return undefined;
    return { fresh: chunks.fresh[id]!, last: this.#last[chunks.docOf[id]!] === id };
  }

  /**
   * Counts a live chunk (its flags and terms set) in its document: where its own terms start (past what it repeats
   * of the chunk before, see ChunkTable.fresh), the document's length and chunks, public or not.
   */
  attach(id: number, replaced?: ChunkPlace): void {
    const chunks = this.#chunks;
    const docSeq = chunks.docSeqs[id]!;
    let d = this.#ids.get(docSeq);
    if (d === undefined) {
      d = this.#count++;
      this.#grow(d + 1);
      this.#ids.set(docSeq, d);
      this.lengths[d] = 0;
      this.#chunkCounts[d] = 0;
      this.#publicChunkCounts[d] = 0;
      this.#last[d] = -1;
    }
    chunks.docOf[id] = d;
    if (replaced) {
      chunks.fresh[id] = Math.min(replaced.fresh, chunks.termCount[id]!);
      if (replaced.last) this.#last[d] = id;
      this.count(id, 1);
      return;
    }
    const previous = this.#chunkCounts[d]! > 0 ? this.#last[d]! : -1;
    let fresh = 0;
    if (previous >= 0 && chunks.alive[previous] === 1)
      fresh = chunks.titleLengths[id]! + 1 + sharedTerms(chunks.contentTerms(previous), chunks.contentTerms(id));
    chunks.fresh[id] = fresh;
    this.#last[d] = id;
    this.count(id, 1);
  }

  /** Adds (`step` 1) or takes away (-1) a live chunk from its document's statistics. */
  count(id: number, step: 1 | -1): void {
    const chunks = this.#chunks;
    const d = chunks.docOf[id]!;
    const before = this.#chunkCounts[d]!;
    this.#chunkCounts[d] = before + step;
    this.lengths[d] = this.lengths[d]! + step * chunks.ownTokens(id);
    if (step > 0 && before === 1) this.#split += 1;
    if (step < 0 && before === 2) this.#split -= 1;
    if (chunks.isPublic[id] === 1) this.countPublic(id, step);
    if (step < 0 && this.#last[d] === id) this.#last[d] = -1;
  }

  /** Adds (`step` 1) or takes away (-1) a live public chunk from its document's public statistics. */
  countPublic(id: number, step: 1 | -1): void {
    const d = this.#chunks.docOf[id]!;
    const before = this.#publicChunkCounts[d]!;
    this.#publicChunkCounts[d] = before + step;
    if (step > 0 && before === 0) this.#publicDocs += 1;
    if (step < 0 && before === 1) this.#publicDocs -= 1;
    this.#publicDocTokens += step * this.#chunks.ownTokens(id);
  }

  #grow(size: number): void {
    if (size <= this.lengths.length) return;
    const capacity = Math.max(size, this.lengths.length * 2);
    this.lengths = grown(this.lengths, capacity, (n) => new Float64Array(n));
    this.#chunkCounts = grown(this.#chunkCounts, capacity, (n) => new Int32Array(n));
    this.#publicChunkCounts = grown(this.#publicChunkCounts, capacity, (n) => new Int32Array(n));
    this.#last = grown(this.#last, capacity, (n) => new Int32Array(n));
  }

  /**
   * Renumbers the documents that still have live chunks, after the chunks were (ChunkTable.compact: `newId` by old
   * local id; the live chunks are the first local ids).
   */
  compact(newId: Int32Array): void {
    const chunks = this.#chunks;
    const newDoc = new Int32Array(this.#count).fill(-1);
    let next = 0;
    for (let d = 0; d < this.#count; d += 1) {
      if (this.#chunkCounts[d] === 0) continue;
      newDoc[d] = next;
      this.lengths[next] = this.lengths[d]!;
      this.#chunkCounts[next] = this.#chunkCounts[d]!;
      this.#publicChunkCounts[next] = this.#publicChunkCounts[d]!;
      const last = this.#last[d]!;
      this.#last[next] = last >= 0 ? newId[last]! : -1;
      next += 1;
    }
    for (const [seq, d] of this.#ids) {
      const renumbered = newDoc[d]!;
      if (renumbered < 0) this.#ids.delete(seq);
      else this.#ids.set(seq, renumbered);
    }
    for (let id = 0; id < chunks.count; id += 1) chunks.docOf[id] = newDoc[chunks.docOf[id]!]!;
    this.#count = next;
  }
}
