import { columnBreak } from './bm25-chunk-terms.js';
import type { CorpusStats } from './bm25-score.js';
import type { Bm25ChunkState, Bm25Saved } from './bm25-state.js';

type TypedColumn = Float64Array | Int32Array | Uint8Array;

/** A column of `capacity` entries made by `make`, holding `old`'s entries first. */
export function grown<A extends TypedColumn>(old: A, capacity: number, make: (n: number) => A): A {
  const next = make(capacity);
  next.set(old);
  return next;
}

/** What a checkpoint holds of the chunks (Bm25Index.capture): the columns up to the captured count. */
export type CapturedChunks = Omit<Bm25ChunkState, 'terms' | 'stats'>;

/**
 * The chunks of a BM25 index (Bm25Index) by local id, column by column (few large typed arrays keep garbage
 * collection cheap), with the counts of the live and the live public chunks. Local ids are given in order of
 * addition and renumbered only by `compact`. The columns are read in place by the rest of the index (rankers,
 * document table); they are replaced by longer ones as the table grows, so a reader takes them at the start of each
 * operation, never across operations.
 */
export class ChunkTable {
  /** Per local id: chunk seq, document seq, length in tokens, alive and public flags. */
  chunkSeqs = new Float64Array(1024);
  docSeqs = new Float64Array(1024);
  lengths = new Int32Array(1024);
  alive = new Uint8Array(1024);
  isPublic = new Uint8Array(1024);
  /**
   * Each chunk's term ids in order — title, then `columnBreak`, then content — end to end in one array: phrases are
   * matched against it. Per local id: where its terms start, how many, and how many are the title's.
   */
  termPool = new Int32Array(16_384);
  poolLength = 0;
  termStart = new Int32Array(1024);
  termCount = new Int32Array(1024);
  titleLengths = new Int32Array(1024);
  /**
   * Per local id: its document's local id (see DocumentTable), and where the chunk's own terms start in its term
   * sequence — 0 for a document's first chunk; for a later one, past its title (counted with the first chunk) and
   * the terms it shares with the chunk before (the chunking overlap), so that each of the document's words counts
   * once.
   */
  docOf = new Int32Array(1024);
  fresh = new Int32Array(1024);
  /** Local ids given (live and dead), dead ones among them, and live ones. */
  count = 0;
  dead = 0;
  live = 0;
  /** Live public chunks and their tokens: the statistics scores use. */
  publicLive = 0;
  publicLength = 0;
  /** The largest chunk seq ever added: a checkpoint of the index holds every chunk up to it. */
  maxSeq = 0;
  /** Local id by chunk seq, of the live chunks. */
  readonly localIds = new Map<number, number>();

  /** Local ids the columns have room for. */
  get capacity(): number {
    return this.alive.length;
  }

  /** The statistics every chunk-level score uses: the live public chunks and their tokens. */
  get stats(): CorpusStats {
    return { chunks: this.publicLive, tokens: this.publicLength };
  }

  /** Memory held by the columns that are not views of `file` (a checkpoint read back) and the map, in bytes. */
  bytes(file: ArrayBufferLike | undefined): number {
    let bytes = 64 * this.localIds.size;
    for (const a of [
      this.chunkSeqs,
      this.docSeqs,
      this.lengths,
      this.alive,
      this.isPublic,
      this.termPool,
      this.termStart,
      this.termCount,
      this.titleLengths,
      this.docOf,
      this.fresh,
    ])
      if (a.buffer !== file) bytes += a.byteLength;
    return bytes;
  }

  /** Makes room for `size` local ids. */
  #grow(size: number): void {
    if (size <= this.alive.length) return;
    const capacity = Math.max(size, this.alive.length * 2);
    this.chunkSeqs = grown(this.chunkSeqs, capacity, (n) => new Float64Array(n));
    this.docSeqs = grown(this.docSeqs, capacity, (n) => new Float64Array(n));
    this.lengths = grown(this.lengths, capacity, (n) => new Int32Array(n));
    this.alive = grown(this.alive, capacity, (n) => new Uint8Array(n));
    this.isPublic = grown(this.isPublic, capacity, (n) => new Uint8Array(n));
    this.termStart = grown(this.termStart, capacity, (n) => new Int32Array(n));
    this.termCount = grown(this.termCount, capacity, (n) => new Int32Array(n));
    this.titleLengths = grown(this.titleLengths, capacity, (n) => new Int32Array(n));
    this.docOf = grown(this.docOf, capacity, (n) => new Int32Array(n));
    this.fresh = grown(this.fresh, capacity, (n) => new Int32Array(n));
  }

  /**
   * Appends a live chunk (`terms`: its term sequence, see columnBreak), counted in the statistics when `isPublic`;
   * answers its local id.
   */
  append(
    chunkSeq: number,
    docSeq: number,
    titleLength: number,
    contentLength: number,
    terms: readonly number[],
    isPublic: boolean,
  ): number {
    const id = this.count;
    this.#grow(id + 1);
    this.chunkSeqs[id] = chunkSeq;
    this.docSeqs[id] = docSeq;
    this.lengths[id] = titleLength + contentLength;
    this.titleLengths[id] = titleLength;
    this.alive[id] = 1;
    this.#storeTerms(id, terms);
    this.localIds.set(chunkSeq, id);
    if (chunkSeq > this.maxSeq) this.maxSeq = chunkSeq;
    this.count += 1;
    this.live += 1;
    const publicStep = isPublic ? 1 : 0;
    this.isPublic[id] = publicStep;
    this.publicLive += publicStep;
    this.publicLength += publicStep * this.lengths[id]!;
    return id;
  }

  /** Appends chunk `id`'s term sequence to the pool. */
  #storeTerms(id: number, terms: readonly number[]): void {
    const count = terms.length;
    if (this.poolLength + count > this.termPool.length) {
      const pool = new Int32Array(Math.max(this.termPool.length * 2, this.poolLength + count));
      pool.set(this.termPool.subarray(0, this.poolLength));
      this.termPool = pool;
    }
    this.termStart[id] = this.poolLength;
    this.termCount[id] = count;
    for (const term of terms) this.termPool[this.poolLength++] = term;
  }

  /** The distinct term ids of a chunk. */
  distinctTerms(id: number): Set<number> {
    const start = this.termStart[id]!;
    const distinct = new Set(this.termPool.subarray(start, start + this.termCount[id]!));
    distinct.delete(columnBreak);
    return distinct;
  }

  /** A chunk's content term ids (past its title and the column break), a view of the pool. */
  contentTerms(id: number): Int32Array {
    return this.termPool.subarray(
      this.termStart[id]! + this.titleLengths[id]! + 1,
      this.termStart[id]! + this.termCount[id]!,
    );
  }

  /** The chunk's own tokens (see `fresh`): what it adds to its document's length. */
  ownTokens(id: number): number {
    const fresh = this.fresh[id]!;
    return fresh === 0 ? this.lengths[id]! : this.termCount[id]! - fresh;
  }

  /** The columns up to the count now, for a checkpoint: views, except the flags that change in place (copied). */
  captured(): CapturedChunks {
    const count = this.count;
    return {
      chunkSeqs: this.chunkSeqs.subarray(0, count),
      docSeqs: this.docSeqs.subarray(0, count),
      lengths: this.lengths.subarray(0, count),
      alive: this.alive.slice(0, count),
      isPublic: this.isPublic.slice(0, count),
      termStart: this.termStart.subarray(0, count),
      termCount: this.termCount.subarray(0, count),
      titleLengths: this.titleLengths.subarray(0, count),
      termPool: this.termPool.subarray(0, this.poolLength),
      dead: this.dead,
      live: this.live,
      publicLive: this.publicLive,
      publicLength: this.publicLength,
      through: this.maxSeq,
    };
  }

  /**
   * Takes a checkpoint's columns and term pool as its own (they have room for more) and its counts, into an empty
   * table; the live chunks' local ids are the caller's to map, as it links them to their documents.
   */
  restore(saved: Bm25Saved): void {
    this.chunkSeqs = saved.chunkSeqs;
    this.docSeqs = saved.docSeqs;
    this.lengths = saved.lengths;
    this.alive = saved.alive;
    this.isPublic = saved.isPublic;
    this.termStart = saved.termStart;
    this.termCount = saved.termCount;
    this.titleLengths = saved.titleLengths;
    this.termPool = saved.termPool;
    this.poolLength = saved.poolLength;
    // The documents' links are not in the file: they follow from the chunks (see DocumentTable.attach).
    this.docOf = new Int32Array(saved.chunkSeqs.length);
    this.fresh = new Int32Array(saved.chunkSeqs.length);
    this.count = saved.count;
    this.dead = saved.dead;
    this.live = saved.live;
    this.publicLive = saved.publicLive;
    this.publicLength = saved.publicLength;
    this.maxSeq = saved.through;
  }

  /**
   * Drops the dead chunks: the live ones are renumbered from 0 in order, their columns and terms moved down.
   * Answers the new local id by old one, -1 for a dead chunk (for the postings and the documents to follow).
   */
  compact(): Int32Array {
    const newId = new Int32Array(this.count).fill(-1);
    let next = 0;
    for (let id = 0; id < this.count; id += 1) {
      if (this.alive[id] === 0) continue;
      newId[id] = next;
      this.chunkSeqs[next] = this.chunkSeqs[id]!;
      this.docSeqs[next] = this.docSeqs[id]!;
      this.lengths[next] = this.lengths[id]!;
      this.alive[next] = 1;
      this.isPublic[next] = this.isPublic[id]!;
      this.termStart[next] = this.termStart[id]!;
      this.termCount[next] = this.termCount[id]!;
      this.titleLengths[next] = this.titleLengths[id]!;
      this.docOf[next] = this.docOf[id]!;
      this.fresh[next] = this.fresh[id]!;
      this.localIds.set(this.chunkSeqs[next]!, next);
      next += 1;
    }
    this.alive.fill(0, next);
    this.isPublic.fill(0, next);
    const pool = new Int32Array(Math.max(16_384, this.poolLength));
    let used = 0;
    for (let id = 0; id < next; id += 1) {
      const start = this.termStart[id]!;
      const count = this.termCount[id]!;
      pool.set(this.termPool.subarray(start, start + count), used);
      this.termStart[id] = used;
      used += count;
    }
    this.termPool = pool;
    this.poolLength = used;
    this.count = next;
    this.dead = 0;
    return newId;
  }
}
