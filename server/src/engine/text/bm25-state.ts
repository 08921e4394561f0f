// The state of a BM25 index (Bm25Index) as a checkpoint writes it (Bm25State, from Bm25Index.capture) and reads it
// back (Bm25Saved, for Bm25Index.restore); see bm25-file.ts for the file.

/** Per term, by term id. */
export interface Bm25TermStats {
  /** Postings per term. */
  readonly lengths: Int32Array<ArrayBuffer>;
  readonly df: Int32Array<ArrayBuffer>;
  readonly publicDf: Int32Array<ArrayBuffer>;
  readonly maxFreq: Float64Array<ArrayBuffer>;
  readonly minLength: Float64Array<ArrayBuffer>;
}

/** The per-chunk arrays (by local id), the term pool and the counts. */
export interface Bm25ChunkState {
  /** Term by term id. */
  readonly terms: readonly string[];
  readonly stats: Bm25TermStats;
  readonly chunkSeqs: Float64Array<ArrayBuffer>;
  readonly docSeqs: Float64Array<ArrayBuffer>;
  readonly lengths: Int32Array<ArrayBuffer>;
  readonly alive: Uint8Array<ArrayBuffer>;
  readonly isPublic: Uint8Array<ArrayBuffer>;
  readonly termStart: Int32Array<ArrayBuffer>;
  readonly termCount: Int32Array<ArrayBuffer>;
  readonly titleLengths: Int32Array<ArrayBuffer>;
  readonly termPool: Int32Array<ArrayBuffer>;
  readonly dead: number;
  readonly live: number;
  readonly publicLive: number;
  readonly publicLength: number;
  /** The largest chunk seq added. */
  readonly through: number;
}

/**
 * An index captured for a checkpoint (Bm25Index.capture): term t's postings are `stats.lengths[t]` entries of
 * `postingsArray(t, column)` from `postingsOffset(t)` on — read as the checkpoint is written, which the index
 * allows: it only appends to those arrays, or copies them whole into longer ones, until the capture is released.
 */
export interface Bm25State extends Omit<Bm25ChunkState, 'terms'> {
  /** The column weights its frequencies are weighted with. */
  readonly weights: { readonly title: number; readonly content: number };
  /** The first `count` terms, by term id (read when the checkpoint is written). */
  readonly terms: (count: number) => string[];
  readonly postingsArray: (term: number, column: PostingsColumn) => Int32Array | Float32Array;
  readonly postingsOffset: (term: number) => number;
}

/** The postings columns, in file order: chunk ids, frequencies, first positions, occurrences. */
export type PostingsColumn = 0 | 1 | 2 | 3;

/**
 * A checkpoint read back: every term's postings end to end, in term id order, one column each, each term with room
 * to grow in place (`postingsRoom`); the per-chunk arrays and the term pool hold `count` and `poolLength` entries,
 * with room for more (`chunkRoom`, `poolRoom`).
 */
export interface Bm25Saved extends Bm25ChunkState {
  readonly count: number;
  readonly poolLength: number;
  readonly postings: {
    readonly ids: Int32Array<ArrayBuffer>;
    readonly freqs: Float32Array<ArrayBuffer>;
    readonly firstAt: Int32Array<ArrayBuffer>;
    readonly occurrences: Int32Array<ArrayBuffer>;
  };
}

/**
 * Entries a term's postings have room for in a checkpoint: its length, an eighth more, and 4 (none for a term
 * without postings). An index read back appends to them in place until then: exact-size arrays made the first write
 * to each common term after a restart copy its whole list, and 1,000 writes took 8.4 s instead of 0.09 s at a
 * million chunks.
 */
export const postingsRoom = (length: number) => (length === 0 ? 0 : length + (length >> 3) + 4);
/** Room for chunks in a checkpoint's per-chunk arrays: a quarter more than it holds. */
export const chunkRoom = (count: number) => Math.max(1024, Math.ceil(count * 1.25));
/** Room in a checkpoint's term pool: a quarter more than it holds. */
export const poolRoom = (length: number) => Math.max(16_384, Math.ceil(length * 1.25));
