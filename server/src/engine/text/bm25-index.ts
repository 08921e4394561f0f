import { createError } from '@godb/contract';
import { ChunkRanking, type Allowed } from './bm25-chunk-ranking.js';
import { ChunkTerms } from './bm25-chunk-terms.js';
import { ChunkTable } from './bm25-chunks.js';
import { DocumentRanking } from './bm25-document-ranking.js';
import { DocumentTable, type ChunkPlace } from './bm25-documents.js';
import { matchPhrase } from './bm25-phrase.js';
import type { RankedChunk } from './bm25-ranked-chunk.js';
import { termStatsOver, type StatsQuery } from './bm25-given-stats.js';
import { givenDf, type Bm25Weights, type CorpusStats, type GivenStats } from './bm25-score.js';
import { SearchScratch } from './bm25-scratch.js';
import type { Bm25Saved, Bm25State } from './bm25-state.js';
import { TermDictionary } from './bm25-terms.js';
import { analysedTerms } from './tokenize.js';

export { chunksPerHit, type RankedChunk } from './bm25-ranked-chunk.js';
export type { Bm25Weights } from './bm25-score.js';

/**
 * An in-memory inverted index of one tenant's chunks, ranked by BM25 exactly as FTS5's `bm25()` computes it
 * (column weights, k1 1.2, b 0.75, idf log((N − n + 0.5) / (n + 0.5)) floored at 1e-6, document length = all
 * columns' tokens), with the statistics of the tenant's public chunks (CorpusStats): every chunk is indexed and
 * scored, but only public ones are counted in N, n and the average length. While no document is split into several
 * chunks, chunks rank as documents (ChunkRanking, with MaxScore pruning); once one is, documents rank as wholes
 * (DocumentRanking, issue #44). FTS5, by contrast, reads and scores every matching row through its virtual-table
 * interface.
 *
 * Its parts: the terms and their postings (TermDictionary), the chunks' columns (ChunkTable), the documents'
 * statistics (DocumentTable) and the searches' scratch space (SearchScratch). Removal marks the chunk dead and
 * updates the statistics at once; dead postings are skipped and compacted away when they outnumber the live ones.
 * This index is derived data: TextIndex builds it from the FTS5 tables and applies committed writes (and visibility
 * changes) to it.
 */
export class Bm25Index {
  readonly #weights: Bm25Weights;
  readonly #terms = new TermDictionary();
  readonly #chunks = new ChunkTable();
  readonly #docs = new DocumentTable(this.#chunks);
  readonly #scratch = new SearchScratch();
  readonly #chunkTerms = new ChunkTerms();
  readonly #chunkRanking = new ChunkRanking(this.#terms, this.#chunks, this.#scratch);
  readonly #documentRanking: DocumentRanking;
  /** Per local id, during a check against the stored rows (beginCheck): confirmed by a stored row. */
  #confirmed = new Uint8Array(0);
  /**
   * Captures being written (see capture) and checks under way (beginCheck): compaction, the only write in place of
   * a capture's arrays and the only renumbering of local ids, waits meanwhile.
   */
  #held = 0;

  constructor(weights: Bm25Weights) {
    this.#weights = weights;
    this.#documentRanking = new DocumentRanking(this.#terms, this.#chunks, this.#docs, weights, this.#scratch);
  }

  /** Live chunks. */
  get size(): number {
    return this.#chunks.live;
  }

  /**
   * Memory held, in bytes, estimated: the typed arrays' capacities (searches' scratch space included), the
   * postings' arrays, and about 64 bytes per entry of the maps (key string, number, hash slot).
   */
  get bytes(): number {
    // A checkpoint read back is held whole as long as the index is (its arrays are views of it): counted once, and
    // the arrays that are views of it not again.
    const file = this.#terms.file;
    return (
      (file?.byteLength ?? 0) +
      this.#chunks.bytes(file) +
      this.#terms.bytes(file) +
      this.#docs.bytes +
      this.#scratch.bytes +
      this.#chunkTerms.bytes
    );
  }

  /** The statistics every score uses: the live public chunks and their tokens. */
  get stats(): CorpusStats {
    return this.#chunks.stats;
  }

  /** True once a document is split into several chunks: documents then rank as wholes (DocumentRanking). */
  get split(): boolean {
    return this.#docs.split > 0;
  }

  /** The statistics of the live public chunks of the documents `keep` accepts, for a dfs phase (termStatsOver). */
  termStats(keep: (docSeq: number) => boolean, query: StatsQuery): GivenStats {
    return termStatsOver(this.#terms, this.#chunks, this.#weights, this.#scratch, keep, query);
  }

  /** The statistics of a document-level score: the live public documents and their tokens (see DocumentTable). */
  get documentStats(): CorpusStats {
    return this.#docs.stats;
  }

  /**
   * The index's state as it is now, for a checkpoint (bm25-file.ts), without copying its large arrays: the state
   * refers to them, and the index only ever appends to them — past the captured lengths, or into new arrays when it
   * grows — except when it compacts, which waits until `release` (a removal after it compacts). What changes in
   * place (alive and public flags, per-term counts) is copied.
   */
  capture(): { state: Bm25State; release: () => void } {
    this.#held += 1;
    let held = true;
    const terms = this.#terms;
    const state: Bm25State = {
      weights: { title: this.#weights.title, content: this.#weights.content },
      terms: (n) => terms.names(n),
      stats: terms.stats(),
      postingsArray: (t, column) => terms.column(t, column),
      postingsOffset: (t) => terms.offset(t),
      ...this.#chunks.captured(),
    };
    const release = () => {
      if (!held) return;
      held = false;
      this.#held -= 1;
    };
    return { state, release };
  }

  /**
   * An index holding a checkpoint read back (bm25-file.ts): its arrays become the index's own, and a term's postings
   * arrays are made the first time it is used (views of the checkpoint's columns) — making them all costs seconds at
   * a million terms, most of which are never searched.
   */
  static restore(weights: Bm25Weights, saved: Bm25Saved): Bm25Index {
    const steps = Bm25Index.restoring(weights, saved);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `restore` one step at a time, a step being about `perStep` terms or chunks (~10–30 ms here per 25,000: maps
   * of a million terms and chunks take over a second in all), so a caller can serve requests between steps.
   */
  static *restoring(weights: Bm25Weights, saved: Bm25Saved, perStep = 25_000): Generator<void, Bm25Index> {
    const index = new Bm25Index(weights);
    yield* index.#terms.restoring(saved, perStep);
    const chunks = index.#chunks;
    chunks.restore(saved);
    index.#scratch.fitChunks(chunks.capacity);
    // add()'s scratch is indexed by term id: room for every term (it grows one doubling at a time).
    index.#chunkTerms.reserve(saved.terms.length);
    for (let id = 0; id < saved.count; id += 1) {
      // The documents' statistics are not in the file: they follow from the chunks (their overlap from their terms).
      if (saved.alive[id] === 1) {
        chunks.localIds.set(saved.chunkSeqs[id]!, id);
        index.#docs.attach(id);
      }
      if (id % perStep === perStep - 1) yield;
    }
    index.#scratch.fitDocs(index.#docs.capacity);
    return index;
  }

  /**
   * Starts checking the index against the stored rows (a checkpoint read back): `confirm` each stored chunk, then
   * `removeUnconfirmed` removes the chunks no stored row confirmed. Chunks added meanwhile are not concerned.
   */
  beginCheck(): void {
    this.#held += 1; // local ids stay as they are until the check ends
    this.#confirmed = new Uint8Array(this.#chunks.count);
  }

  /**
   * A stored chunk, public or not: `missing` when the index does not hold it; otherwise it is marked confirmed and
   * counted as public or not as stored (`moved` when it was counted the other way).
   */
  confirm(chunkSeq: number, isPublic: boolean): 'missing' | 'same' | 'moved' {
    const id = this.#chunks.localIds.get(chunkSeq);
    if (id === undefined) return 'missing';
    if (id < this.#confirmed.length) this.#confirmed[id] = 1;
    if ((this.#chunks.isPublic[id] === 1) === isPublic) return 'same';
    this.#setPublic(id, isPublic);
    return 'moved';
  }

  /** Ends a check (see beginCheck): removes the live chunks no stored row confirmed; answers how many. */
  removeUnconfirmed(): number {
    const confirmed = this.#confirmed;
    this.#confirmed = new Uint8Array(0);
    const { alive, chunkSeqs } = this.#chunks;
    const gone: number[] = [];
    for (let id = 0; id < confirmed.length; id += 1)
      if (confirmed[id] === 0 && alive[id] === 1) gone.push(chunkSeqs[id]!);
    this.#held -= 1;
    for (const seq of gone) this.remove(seq);
    return gone.length;
  }

  /** Live public chunks holding a term: how fuzzy, wildcard and autocomplete candidates are ordered. */
  publicChunks(term: string): number {
    return this.#terms.publicChunks(term);
  }

  /**
   * Adds (or replaces) a chunk, its title and content analysed already (as the FTS5 tables store them, see
   * `analysed` in tokenize.ts); `isPublic`: its document is public, so it counts in the statistics.
   */
  add(chunkSeq: number, docSeq: number, title: string, content: string, isPublic: boolean): void {
    const chunks = this.#chunks;
    // A chunk added again (a write replayed) keeps its place in its document (see DocumentTable.placeOf).
    let replaced: ChunkPlace | undefined;
    const old = chunks.localIds.get(chunkSeq);
    if (old !== undefined) {
      replaced = this.#docs.placeOf(old, docSeq);
      this.remove(chunkSeq);
    }
    const titleWords = analysedTerms(title);
    const contentWords = analysedTerms(content);
    const counted = this.#chunkTerms;
    counted.count(titleWords, contentWords, this.#weights, this.#terms);
    const id = chunks.append(chunkSeq, docSeq, titleWords.length, contentWords.length, counted.sequence, isPublic);
    this.#scratch.fitChunks(chunks.capacity);
    counted.post(this.#terms, id, chunks.lengths[id]!, isPublic ? 1 : 0);
    this.#docs.attach(id, replaced);
    this.#scratch.fitDocs(this.#docs.capacity);
  }

  remove(chunkSeq: number): void {
    const chunks = this.#chunks;
    const id = chunks.localIds.get(chunkSeq);
    if (id === undefined) return;
    this.#setPublic(id, false);
    this.#docs.count(id, -1);
    chunks.localIds.delete(chunkSeq);
    chunks.alive[id] = 0;
    for (const term of chunks.distinctTerms(id)) {
      const p = this.#terms.counts(term);
      p.df -= 1;
      p.publicDocs = -1;
    }
    chunks.live -= 1;
    chunks.dead += 1;
    if (chunks.dead > 1000 && chunks.dead > chunks.live && this.#held === 0) this.#compact();
  }

  /**
   * A chunk's document became public (it now counts in the statistics) or stopped being public (it no longer
   * does); its postings stay. Unknown chunks are ignored.
   */
  setPublic(chunkSeq: number, isPublic: boolean): void {
    const id = this.#chunks.localIds.get(chunkSeq);
    if (id !== undefined) this.#setPublic(id, isPublic);
  }

  #setPublic(id: number, isPublic: boolean): void {
    const chunks = this.#chunks;
    if ((chunks.isPublic[id] === 1) === isPublic) return;
    const step = isPublic ? 1 : -1;
    if (!isPublic) this.#docs.countPublic(id, -1);
    chunks.isPublic[id] = isPublic ? 1 : 0;
    if (isPublic) this.#docs.countPublic(id, 1);
    for (const term of chunks.distinctTerms(id)) {
      const p = this.#terms.counts(term);
      p.publicDf += step;
      p.publicDocs = -1;
    }
    chunks.publicLive += step;
    chunks.publicLength += step * chunks.lengths[id]!;
  }

  /**
   * The best `depth` chunks containing any of `terms` (index terms, see indexTerms; a repeated term counts each
   * time, as in FTS5's OR queries), best first; with `allowed`, only chunks of those documents (a filter's set,
   * checked as postings are read, so a selective filter costs no candidate it rejects); `given`: scored with those
   * statistics (chunk-level: refused once a document is split, see `split`).
   */
  search(terms: readonly string[], depth: number, allowed?: Allowed, given?: GivenStats): RankedChunk[] {
    if (this.#chunks.live === 0 || depth <= 0) return [];
    // A repeated term is read once, its weight multiplied (a query of one word repeated a thousand times costs one
    // list, not a thousand).
    const times = new Map<string, number>();
    for (const term of terms) times.set(term, (times.get(term) ?? 0) + 1);
    return this.weighted(times, depth, allowed, given);
  }

  /**
   * As search, each term's part multiplied by its weight (positive; a count is a weight): a weighted query, such as
   * RM3 feedback's expanded one (rm3-feedback.ts).
   */
  weighted(times: ReadonlyMap<string, number>, depth: number, allowed?: Allowed, given?: GivenStats): RankedChunk[] {
    if (this.#chunks.live === 0 || depth <= 0) return [];
    if (given) return this.#chunkRanking.search(times, depth, allowed, this.#chunkLevel(given));
    return this.#docs.split > 0
      ? this.#documentRanking.search(times, depth, allowed)
      : this.#chunkRanking.search(times, depth, allowed);
  }

  /**
   * The best `depth` chunks holding at least one term of every group (a wildcard query: each pattern's expansions
   * form a group, a plain word a group of one), scored over every term of every group as FTS5 scores the
   * expression `(a OR b) AND c`; `allowed` and `given` as for search.
   */
  groups(groups: readonly (readonly string[])[], depth: number, allowed?: Allowed, given?: GivenStats): RankedChunk[] {
    if (this.#chunks.live === 0 || depth <= 0 || groups.length === 0) return [];
    if (given) return this.#chunkRanking.groups(groups, depth, allowed, this.#chunkLevel(given));
    return this.#docs.split > 0
      ? this.#documentRanking.groups(groups, depth, allowed)
      : this.#chunkRanking.groups(groups, depth, allowed);
  }

  /**
   * The best `depth` chunks containing `terms` in this order (a phrase, in the title or in the content), ranked as
   * FTS5's `bm25()` ranks a phrase: its frequency is the number of occurrences per column, and its idf comes from
   * the number of public chunks containing it (see matchPhrase); `allowed` and `given` as for search.
   */
  phrase(terms: readonly string[], depth: number, allowed?: Allowed, given?: GivenStats): RankedChunk[] {
    if (this.#chunks.live === 0 || depth <= 0 || terms.length === 0) return [];
    const match = matchPhrase(terms, this.#terms, this.#chunks, this.#weights, this.#scratch);
    if (!match) return [];
    if (given) {
      const stats = this.#chunkLevel(given);
      return this.#chunkRanking.phrase(match, depth, allowed, { stats, df: givenDf(stats, terms.join(' ')) });
    }
    return this.#docs.split > 0
      ? this.#documentRanking.phrase(match, depth, allowed)
      : this.#chunkRanking.phrase(match, depth, allowed);
  }

  /** Given statistics are chunk-level (termStats): a document split into chunks would rank by other numbers. */
  #chunkLevel(given: GivenStats): GivenStats {
    if (this.#docs.split > 0) {
      throw createError('NOT_IMPLEMENTED', {
        operation: 'text search with given statistics over documents split into several chunks',
        issue: 41,
      });
    }
    return given;
  }

  /** Drops dead chunks from the postings and renumbers the live ones (and the documents that still have some). */
  #compact(): void {
    const newId = this.#chunks.compact();
    this.#docs.compact(newId);
    this.#scratch.forgetDocs();
    this.#terms.compact(newId, this.#chunks.lengths);
  }
}
