/**
 * Chunks a hit shows (result-view.ts): a document ranked as a whole answers at most this many of its chunks, so
 * that a long document matching in thousands of chunks does not fill a search's window of chunks alone.
 */
export const chunksPerHit = 3;

/** One chunk a BM25 search answers (Bm25Index). */
export interface RankedChunk {
  /** Chunk seq. */
  readonly chunk: number;
  /** Document seq. */
  readonly doc: number;
  readonly score: number;
  /**
   * Its document's score, when the document is ranked as a whole (a document split into several chunks, see
   * Bm25Index): the document ranks by it, and `score` orders the document's chunks.
   */
  readonly docScore?: number;
}
