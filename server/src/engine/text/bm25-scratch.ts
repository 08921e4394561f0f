/** Chunks found by a search so far: local ids ascending, and their partial scores, side by side. */
export class Found {
  ids = new Int32Array(1024);
  scores = new Float64Array(1024);

  reserve(size: number): void {
    if (size <= this.ids.length) return;
    const capacity = Math.max(size, this.ids.length * 2);
    this.ids = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }
}

/**
 * The scratch space of a BM25 index's searches (ChunkRanking, DocumentRanking), kept between searches so that a
 * search allocates little: per local chunk id and per local doc id (sized with the chunk and document tables, see
 * fitChunks and fitDocs), and buffers grown as searches need. Stamps say which query or term last touched an entry,
 * so nothing needs clearing between queries.
 */
export class SearchScratch {
  /** Per chunk: a score being summed (all 0 between searches), and the stamp of the query that last touched it. */
  scores = new Float64Array(1024);
  chunkSeen = new Int32Array(1024);
  /** Per document: its score and a term's frequency in it (or its rank), and the stamps that last touched them. */
  docScore = new Float64Array(256);
  docTf = new Float64Array(256);
  docSeen = new Int32Array(256);
  docTermSeen = new Int32Array(256);
  #stamp = 0;
  /** Two buffers of chunks found by a search, merged from one into the other list by list. */
  readonly merged = [new Found(), new Found()] as const;
  /** Per chunk found by a phrase, the phrase's frequency in the chunk's own terms (see matchPhrase). */
  ownFound = new Float64Array(1024);
  /** Per chunk, for a wildcard query's chunks: the last group that matched the chunk, and how many groups did. */
  groupSeen = new Int32Array(0);
  groupsMatched = new Int32Array(0);
  /** Scores copied for kthLargest, which reorders what it is given. */
  #kth = new Float64Array(1024);

  /** Memory held, in bytes (the phrase buffer left out, as it always was). */
  get bytes(): number {
    let bytes = 0;
    for (const a of [
      this.#kth,
      this.scores,
      this.groupSeen,
      this.groupsMatched,
      this.docScore,
      this.docTf,
      this.docSeen,
      this.docTermSeen,
      this.chunkSeen,
    ])
      bytes += a.byteLength;
    for (const found of this.merged) bytes += found.ids.byteLength + found.scores.byteLength;
    return bytes;
  }

  /** Sizes the per-chunk scratch for `capacity` local ids (the chunk table's), cleared, when it is not already. */
  fitChunks(capacity: number): void {
    if (capacity === this.scores.length) return;
    this.chunkSeen = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }

  /** Sizes the per-document scratch for `capacity` local doc ids (the document table's), when it is not already. */
  fitDocs(capacity: number): void {
    if (capacity === this.docScore.length) return;
    this.docScore = new Float64Array(capacity);
    this.docTf = new Float64Array(capacity);
    this.docSeen = new Int32Array(capacity);
    this.docTermSeen = new Int32Array(capacity);
  }

  /** Forgets which documents queries touched (the documents were renumbered). */
  forgetDocs(): void {
    this.docSeen.fill(0);
    this.docTermSeen.fill(0);
  }

  /**
   * Makes room for the `count` stamps a query is about to take (nextStamp): the stamped arrays are cleared and the
   * counter restarted before a query rather than during one, which would forget what the query had marked.
   */
  reserveStamps(count: number): void {
    if (this.#stamp + count < 0x3fffffff) return;
    this.#stamp = 0;
    for (const a of [this.docSeen, this.docTermSeen, this.chunkSeen]) a.fill(0);
  }

  /** A stamp no scratch array holds yet (reserved by the query, see reserveStamps). */
  nextStamp(): number {
    return ++this.#stamp;
  }

  /** The first `count` of `scores` copied into scratch space (for kthLargest, which reorders what it is given). */
  copyScores(scores: Float64Array, count: number): Float64Array {
    if (this.#kth.length < count) this.#kth = new Float64Array(count * 2);
    this.#kth.set(scores.subarray(0, count));
    return this.#kth;
  }

  /** Room for `count` entries in ownFound. */
  reserveOwnFound(count: number): void {
    if (this.ownFound.length < count) this.ownFound = new Float64Array(Math.max(count, this.ownFound.length * 2));
  }

  /** Room in groupSeen (-1: none) and groupsMatched for the `count` local ids given, sized for `capacity`. */
  reserveGroups(count: number, capacity: number): void {
    if (this.groupSeen.length >= count) return;
    this.groupSeen = new Int32Array(capacity).fill(-1);
    this.groupsMatched = new Int32Array(capacity);
  }
}
