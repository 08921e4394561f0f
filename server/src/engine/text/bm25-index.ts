import { idf, lengthNorm, termScore, type Bm25Weights, type CorpusStats } from './bm25-score.js';
import { postingsRoom, type Bm25Saved, type Bm25State } from './bm25-state.js';
import { sharedTerms } from './chunk-overlap.js';
import { foldedWords, stem } from './tokenize.js';

/** Distinct folded words whose term ids an index remembers (beyond it, later new words are stemmed each time). */
const maxRememberedWords = 1_000_000;

/** Separates the title's terms from the content's in a chunk's term sequence (a phrase never spans it). */
const columnBreak = -1;

export type { Bm25Weights } from './bm25-score.js';

/**
 * Chunks a hit shows (result-view.ts): a document ranked as a whole answers at most this many of its chunks, so
 * that a long document matching in thousands of chunks does not fill a search's window of chunks alone.
 */
export const chunksPerHit = 3;

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

const noIds = new Int32Array(0);
const noFreqs = new Float32Array(0);

/** One term's postings: local chunk ids and weighted term frequencies, in insertion order. */
class Postings {
  // Empty until the first push (no allocation per term: an index read back from a checkpoint makes a million).
  ids: Int32Array = noIds;
  freqs: Float32Array = noFreqs;
  /** Where the term first occurs in the chunk's term sequence, and how many times it occurs (for phrases). */
  firstAt: Int32Array = noIds;
  occurrences: Int32Array = noIds;
  length = 0;
  /**
   * Read back from a checkpoint and not used since: where its entries start in the checkpoint's columns (its arrays
   * are made on first use, see Bm25Index.#list); -1 otherwise.
   */
  from = -1;
  /** Live chunks containing the term. */
  df = 0;
  /** Live public chunks containing the term: its idf (see CorpusStats). */
  publicDf = 0;
  /**
   * Live public documents containing the term (a document-level idf, see Bm25Index.#publicDocuments), or -1 until
   * counted: every write to a chunk holding the term sets it back to -1, so a query counts it only after writes.
   */
  publicDocs = -1;
  /** Bounds over the postings (never tightened on removal, so always safe): for the term's score bound. */
  maxFreq = 0;
  minLength = Number.MAX_SAFE_INTEGER;

  push(id: number, freq: number, chunkLength: number, firstAt: number, occurrences: number): void {
    if (this.length === this.ids.length) {
      const grow = <A extends Int32Array | Float32Array>(old: A, next: A): A => {
        next.set(old);
        return next;
      };
      const capacity = Math.max(4, this.length * 2);
      this.ids = grow(this.ids, new Int32Array(capacity));
      this.freqs = grow(this.freqs, new Float32Array(capacity));
      this.firstAt = grow(this.firstAt, new Int32Array(capacity));
      this.occurrences = grow(this.occurrences, new Int32Array(capacity));
    }
    this.ids[this.length] = id;
    this.freqs[this.length] = freq;
    this.firstAt[this.length] = firstAt;
    this.occurrences[this.length] = occurrences;
    this.length += 1;
    this.df += 1;
    if (freq > this.maxFreq) this.maxFreq = freq;
    if (chunkLength < this.minLength) this.minLength = chunkLength;
  }
}

/** Chunks found by a search so far: local ids ascending, and their partial scores, side by side. */
class Found {
  ids = new Int32Array(1024);
  scores = new Float64Array(1024);

  reserve(size: number): void {
    if (size <= this.ids.length) return;
    const capacity = Math.max(size, this.ids.length * 2);
    this.ids = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
  }
}

type TypedColumn = Float64Array | Int32Array | Uint8Array;

/** A column of `capacity` entries made by `make`, holding `old`'s entries first. */
function grown<A extends TypedColumn>(old: A, capacity: number, make: (n: number) => A): A {
  const next = make(capacity);
  next.set(old);
  return next;
}

/**
 * An in-memory inverted index of one tenant's chunks, ranked by BM25 exactly as FTS5's `bm25()` computes it
 * (column weights, k1 1.2, b 0.75, idf log((N − n + 0.5) / (n + 0.5)) floored at 1e-6, document length = all
 * columns' tokens), with the statistics of the tenant's public chunks (CorpusStats): every chunk is indexed and
 * scored, but only public ones are counted in N, n and the average length. Queries of any of several words are
 * scored term at a time, rarest term first, each term's postings merged into the chunks found so far (ids ascending,
 * so memory is read in order), then the best `depth` chunks are kept with a bounded heap. MaxScore pruning: once the
 * chunks found so far fill `depth` and the remaining terms' score bounds together cannot reach the `depth`-th best
 * score, a chunk matching only those terms cannot enter the result, and neither can a chunk found so far whose score
 * plus those bounds stays below it: the remaining postings — the longest — are only searched for the others. FTS5,
 * by contrast, reads and scores every matching row through its virtual-table interface.
 *
 * Removal marks the chunk dead and updates the statistics at once; dead postings are skipped and compacted away
 * when they outnumber the live ones. This index is derived data: TextIndex builds it from the FTS5 tables and
 * applies committed writes (and visibility changes) to it.
 */
export class Bm25Index {
  readonly #weights: Bm25Weights;
  readonly #termIds = new Map<string, number>();
  #postings: Postings[] = [];
  /** Per local id: chunk seq, document seq, length in tokens, alive and public flags and distinct term ids. */
  #chunkSeqs = new Float64Array(1024);
  #docSeqs = new Float64Array(1024);
  #lengths = new Int32Array(1024);
  #alive = new Uint8Array(1024);
  #public = new Uint8Array(1024);
  /**
   * Each chunk's term ids in order — title, then `columnBreak`, then content — end to end in one array (few large
   * arrays keep garbage collection cheap): phrases are matched against it.
   */
  #termPool = new Int32Array(16_384);
  #poolLength = 0;
  #termStart = new Int32Array(1024);
  #termCount = new Int32Array(1024);
  #titleLengths = new Int32Array(1024);
  /**
   * Per local id: its document's local id (see #docIds), and where the chunk's own terms start in its term sequence
   * — 0 for a document's first chunk; for a later one, past its title (counted with the first chunk) and the terms
   * it shares with the chunk before (the chunking overlap), so that each of the document's words counts once.
   */
  #docOf = new Int32Array(1024);
  #fresh = new Int32Array(1024);
  /** Documents: local doc id by document seq, and per local doc id the statistics of its live chunks together. */
  #docIds = new Map<number, number>();
  #docCount = 0;
  /** Tokens of the document (each of its chunks' own terms: overlap and repeated titles counted once). */
  #docLength = new Float64Array(256);
  #docChunks = new Int32Array(256);
  #docPublicChunks = new Int32Array(256);
  /** The local id of the document's last chunk added (the one a next chunk overlaps), -1 if gone. */
  #docLast = new Int32Array(256);
  /** Live public documents and their tokens: the statistics a document-level score uses. */
  #publicDocs = 0;
  #publicDocTokens = 0;
  /** Live documents of more than one chunk: while there is none, chunks are documents and rank as such. */
  #split = 0;
  /** Document-level search scratch, per local doc id (stamps say which query or term last touched it). */
  #docScore = new Float64Array(256);
  #docTf = new Float64Array(256);
  #docSeen = new Int32Array(256);
  #docTermSeen = new Int32Array(256);
  #chunkSeen = new Int32Array(1024);
  #stamp = 0;
  /** Scratch for phrase(): per chunk found, the phrase's frequency in the chunk's own terms. */
  #ownFound = new Float64Array(1024);
  /** Scratch space for kthLargest. */
  #scratch = new Float64Array(1024);
  #count = 0;
  #dead = 0;
  readonly #localIds = new Map<number, number>();
  #live = 0;
  /** Live public chunks and their tokens: the statistics scores use. */
  #publicLive = 0;
  #publicLength = 0;
  #scores = new Float64Array(1024);
  /** Two buffers of chunks found by a search, merged from one into the other list by list. */
  readonly #merged = [new Found(), new Found()] as const;
  /** Scratch for groups(), per local id: the last group that matched the chunk, and how many groups did. */
  #groupSeen = new Int32Array(0);
  #groupsMatched = new Int32Array(0);
  /** Folded word → term id (its stem's), so adding a chunk looks each word up once. */
  readonly #wordTerms = new Map<string, number>();
  /** Scratch for add(), per term id: weighted frequency, first position and occurrences in the chunk being added. */
  #freq = new Float64Array(1024);
  #firstAt = new Int32Array(1024);
  #occurrences = new Int32Array(1024);
  readonly #touched: number[] = [];
  readonly #sequence: number[] = [];
  /** The largest chunk seq ever added: a checkpoint of the index holds every chunk up to it. */
  #maxSeq = 0;
  /** Per local id, during a check against the stored rows (beginCheck): confirmed by a stored row. */
  #confirmed = new Uint8Array(0);
  /** The postings columns of the checkpoint the index was read back from, if it was (see restore and #list). */
  #restored: Bm25Saved['postings'] | undefined;
  /**
   * Captures being written (see capture) and checks under way (beginCheck): compaction, the only write in place of
   * a capture's arrays and the only renumbering of local ids, waits meanwhile.
   */
  #held = 0;

  constructor(weights: Bm25Weights) {
    this.#weights = weights;
  }

  /** Live chunks. */
  get size(): number {
    return this.#live;
  }

  /**
   * Memory held, in bytes, estimated: the typed arrays' capacities (searches' scratch space included), the
   * postings' arrays, and about 64 bytes per entry of the maps (key string, number, hash slot).
   */
  get bytes(): number {
    let bytes = 0;
    // A checkpoint read back is held whole as long as the index is (its arrays are views of it): counted once, and
    // the arrays that are views of it not again.
    const file = this.#restored?.ids.buffer;
    if (file) bytes += file.byteLength;
    for (const a of [
      this.#chunkSeqs,
      this.#docSeqs,
      this.#lengths,
      this.#alive,
      this.#public,
      this.#termPool,
      this.#termStart,
      this.#termCount,
      this.#titleLengths,
      this.#scratch,
      this.#scores,
      this.#groupSeen,
      this.#groupsMatched,
      this.#freq,
      this.#firstAt,
      this.#occurrences,
      this.#docOf,
      this.#fresh,
      this.#docLength,
      this.#docChunks,
      this.#docPublicChunks,
      this.#docLast,
      this.#docScore,
      this.#docTf,
      this.#docSeen,
      this.#docTermSeen,
      this.#chunkSeen,
    ])
      if (a.buffer !== file) bytes += a.byteLength;
    for (const p of this.#postings) {
      bytes += 64;
      if (p.ids.buffer !== file)
        bytes += p.ids.byteLength + p.freqs.byteLength + p.firstAt.byteLength + p.occurrences.byteLength;
    }
    for (const found of this.#merged) bytes += found.ids.byteLength + found.scores.byteLength;
    return bytes + 64 * (this.#termIds.size + this.#wordTerms.size + this.#localIds.size + this.#docIds.size);
  }

  /** The statistics every score uses: the live public chunks and their tokens. */
  get stats(): CorpusStats {
    return { chunks: this.#publicLive, tokens: this.#publicLength };
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
    const count = this.#count;
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
    const state: Bm25State = {
      weights: { title: this.#weights.title, content: this.#weights.content },
      // Terms are never taken out of the map, and it iterates in insertion (term id) order.
      terms: (n) => {
        const names: string[] = [];
        for (const term of this.#termIds.keys()) {
          if (names.length === n) break;
          names.push(term);
        }
        return names;
      },
      stats,
      // A term's entries are read where they are when the write reaches them: the index's arrays (copied whole into
      // longer ones as they grow) or the checkpoint's columns it was restored from; both hold the captured entries.
      postingsArray: (t, column) => {
        const p = this.#postings[t]!;
        const source = p.from >= 0 ? this.#restored! : p;
        return column === 0
          ? source.ids
          : column === 1
            ? source.freqs
            : column === 2
              ? source.firstAt
              : source.occurrences;
      },
      postingsOffset: (t) => Math.max(0, this.#postings[t]!.from),
      chunkSeqs: this.#chunkSeqs.subarray(0, count),
      docSeqs: this.#docSeqs.subarray(0, count),
      lengths: this.#lengths.subarray(0, count),
      alive: this.#alive.slice(0, count),
      isPublic: this.#public.slice(0, count),
      termStart: this.#termStart.subarray(0, count),
      termCount: this.#termCount.subarray(0, count),
      titleLengths: this.#titleLengths.subarray(0, count),
      termPool: this.#termPool.subarray(0, this.#poolLength),
      dead: this.#dead,
      live: this.#live,
      publicLive: this.#publicLive,
      publicLength: this.#publicLength,
      through: this.#maxSeq,
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
    const count = saved.count;
    const terms = saved.terms.length;
    const { lengths, df, publicDf, maxFreq, minLength } = saved.stats;
    const postings: Postings[] = []; // grown by push: see capture
    // Each term's entries have room to grow in place in the file's columns (postingsRoom).
    let from = 0;
    for (let t = 0; t < terms; t += 1) {
      index.#termIds.set(saved.terms[t]!, t);
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
    index.#postings = postings;
    index.#restored = saved.postings;
    // The per-chunk arrays and the term pool are the file's too, with room for more.
    index.#chunkSeqs = saved.chunkSeqs;
    index.#docSeqs = saved.docSeqs;
    index.#lengths = saved.lengths;
    index.#alive = saved.alive;
    index.#public = saved.isPublic;
    index.#termStart = saved.termStart;
    index.#termCount = saved.termCount;
    index.#titleLengths = saved.titleLengths;
    index.#termPool = saved.termPool;
    index.#poolLength = saved.poolLength;
    index.#scores = new Float64Array(saved.chunkSeqs.length);
    // add()'s scratch is indexed by term id: room for every term (#termId grows it one doubling at a time).
    const scratch = Math.max(1024, Math.ceil(terms * 1.25));
    index.#freq = new Float64Array(scratch);
    index.#firstAt = new Int32Array(scratch);
    index.#occurrences = new Int32Array(scratch);
    index.#docOf = new Int32Array(saved.chunkSeqs.length);
    index.#fresh = new Int32Array(saved.chunkSeqs.length);
    index.#chunkSeen = new Int32Array(saved.chunkSeqs.length);
    for (let id = 0; id < count; id += 1) {
      // The documents' statistics are not in the file: they follow from the chunks (their overlap from their terms).
      if (saved.alive[id] === 1) {
        index.#localIds.set(saved.chunkSeqs[id]!, id);
        index.#attach(id);
      }
      if (id % perStep === perStep - 1) yield;
    }
    index.#count = count;
    index.#dead = saved.dead;
    index.#live = saved.live;
    index.#publicLive = saved.publicLive;
    index.#publicLength = saved.publicLength;
    index.#maxSeq = saved.through;
    return index;
  }

  /** A term's postings, with their arrays made if they are still the checkpoint's (see restore). */
  #list(termId: number): Postings {
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

  /**
   * Starts checking the index against the stored rows (a checkpoint read back): `confirm` each stored chunk, then
   * `removeUnconfirmed` removes the chunks no stored row confirmed. Chunks added meanwhile are not concerned.
   */
  beginCheck(): void {
    this.#held += 1; // local ids stay as they are until the check ends
    this.#confirmed = new Uint8Array(this.#count);
  }

  /**
   * A stored chunk, public or not: `missing` when the index does not hold it; otherwise it is marked confirmed and
   * counted as public or not as stored (`moved` when it was counted the other way).
   */
  confirm(chunkSeq: number, isPublic: boolean): 'missing' | 'same' | 'moved' {
    const id = this.#localIds.get(chunkSeq);
    if (id === undefined) return 'missing';
    if (id < this.#confirmed.length) this.#confirmed[id] = 1;
    if ((this.#public[id] === 1) === isPublic) return 'same';
    this.#setPublic(id, isPublic);
    return 'moved';
  }

  /** Ends a check (see beginCheck): removes the live chunks no stored row confirmed; answers how many. */
  removeUnconfirmed(): number {
    const confirmed = this.#confirmed;
    this.#confirmed = new Uint8Array(0);
    const gone: number[] = [];
    for (let id = 0; id < confirmed.length; id += 1)
      if (confirmed[id] === 0 && this.#alive[id] === 1) gone.push(this.#chunkSeqs[id]!);
    this.#held -= 1;
    for (const seq of gone) this.remove(seq);
    return gone.length;
  }

  /**
   * Live public chunks holding a folded word's stem: how fuzzy, wildcard and autocomplete candidates are ordered.
   * A word the index has seen is found without stemming it.
   */
  publicChunks(word: string): number {
    const termId = this.#wordTerms.get(word) ?? this.#termIds.get(stem(word));
    return termId === undefined ? 0 : this.#postings[termId]!.publicDf;
  }

  /** Adds (or replaces) a chunk; `isPublic`: its document is public, so it counts in the statistics. */
  add(chunkSeq: number, docSeq: number, title: string, content: string, isPublic: boolean): void {
    // A chunk added again (a write replayed) keeps its place in its document: attached after the document's last
    // chunk, it would be compared with a chunk it does not follow (see #attach).
    let replaced: { fresh: number; last: boolean } | undefined;
    const old = this.#localIds.get(chunkSeq);
    if (old !== undefined) {
      const d = this.#docOf[old]!;
      if (this.#docSeqs[old] === docSeq) replaced = { fresh: this.#fresh[old]!, last: this.#docLast[d] === old };
      this.remove(chunkSeq);
    }
    // Per-term statistics of this chunk go to scratch arrays indexed by term id (no object or map per chunk):
    // building a tenant's index adds every chunk, and allocation made it cost ~2 µs per word.
    const sequence = this.#sequence;
    sequence.length = 0;
    const touched = this.#touched;
    touched.length = 0;
    const visit = (words: readonly string[], weight: number) => {
      for (const word of words) {
        const termId = this.#wordTermId(word);
        if (this.#occurrences[termId] === 0) {
          touched.push(termId);
          this.#freq[termId] = weight;
          this.#firstAt[termId] = sequence.length;
        } else this.#freq[termId] = this.#freq[termId]! + weight;
        this.#occurrences[termId] = this.#occurrences[termId]! + 1;
        sequence.push(termId);
      }
    };
    const titleWords = foldedWords(title);
    const contentWords = foldedWords(content);
    visit(titleWords, this.#weights.title);
    sequence.push(columnBreak);
    visit(contentWords, this.#weights.content);
    const id = this.#count;
    this.#grow(id + 1);
    this.#chunkSeqs[id] = chunkSeq;
    this.#docSeqs[id] = docSeq;
    this.#lengths[id] = titleWords.length + contentWords.length;
    this.#titleLengths[id] = titleWords.length;
    this.#alive[id] = 1;
    this.#public[id] = 0;
    this.#storeTerms(id, sequence);
    const publicStep = isPublic ? 1 : 0;
    for (const termId of touched) {
      const postings = this.#list(termId);
      postings.push(id, this.#freq[termId]!, this.#lengths[id]!, this.#firstAt[termId]!, this.#occurrences[termId]!);
      postings.publicDf += publicStep;
      postings.publicDocs = -1;
      this.#occurrences[termId] = 0;
    }
    this.#localIds.set(chunkSeq, id);
    if (chunkSeq > this.#maxSeq) this.#maxSeq = chunkSeq;
    this.#count += 1;
    this.#live += 1;
    // As #setPublic counts a chunk, with the distinct terms at hand (building a tenant's index adds every chunk).
    this.#public[id] = publicStep;
    this.#publicLive += publicStep;
    this.#publicLength += publicStep * this.#lengths[id]!;
    this.#attach(id, replaced);
  }

  /**
   * Counts a live chunk (its flags and terms set) in its document: where its own terms start (past what it repeats
   * of the chunk before, see #fresh), the document's length and chunks, public or not.
   */
  #attach(id: number, replaced?: { fresh: number; last: boolean }): void {
    const docSeq = this.#docSeqs[id]!;
    let d = this.#docIds.get(docSeq);
    if (d === undefined) {
      d = this.#docCount++;
      this.#growDocs(d + 1);
      this.#docIds.set(docSeq, d);
      this.#docLength[d] = 0;
      this.#docChunks[d] = 0;
      this.#docPublicChunks[d] = 0;
      this.#docLast[d] = -1;
    }
    this.#docOf[id] = d;
    if (replaced) {
      this.#fresh[id] = Math.min(replaced.fresh, this.#termCount[id]!);
      if (replaced.last) this.#docLast[d] = id;
      this.#countInDoc(id, 1);
      return;
    }
    const previous = this.#docChunks[d]! > 0 ? this.#docLast[d]! : -1;
    let fresh = 0;
    if (previous >= 0 && this.#alive[previous] === 1) {
      const content = (c: number) =>
        this.#termPool.subarray(
          this.#termStart[c]! + this.#titleLengths[c]! + 1,
          this.#termStart[c]! + this.#termCount[c]!,
        );
      fresh = this.#titleLengths[id]! + 1 + sharedTerms(content(previous), content(id));
    }
    this.#fresh[id] = fresh;
    this.#docLast[d] = id;
    this.#countInDoc(id, 1);
  }

  /** The chunk's own tokens (see #fresh): what it adds to its document's length. */
  #ownTokens(id: number): number {
    const fresh = this.#fresh[id]!;
    return fresh === 0 ? this.#lengths[id]! : this.#termCount[id]! - fresh;
  }

  /** Adds (`step` 1) or takes away (-1) a live chunk from its document's statistics. */
  #countInDoc(id: number, step: 1 | -1): void {
    const d = this.#docOf[id]!;
    const before = this.#docChunks[d]!;
    this.#docChunks[d] = before + step;
    this.#docLength[d] = this.#docLength[d]! + step * this.#ownTokens(id);
    if (step > 0 && before === 1) this.#split += 1;
    if (step < 0 && before === 2) this.#split -= 1;
    if (this.#public[id] === 1) this.#countPublicInDoc(id, step);
    if (step < 0 && this.#docLast[d] === id) this.#docLast[d] = -1;
  }

  #countPublicInDoc(id: number, step: 1 | -1): void {
    const d = this.#docOf[id]!;
    const before = this.#docPublicChunks[d]!;
    this.#docPublicChunks[d] = before + step;
    if (step > 0 && before === 0) this.#publicDocs += 1;
    if (step < 0 && before === 1) this.#publicDocs -= 1;
    this.#publicDocTokens += step * this.#ownTokens(id);
  }

  #growDocs(size: number): void {
    if (size <= this.#docLength.length) return;
    const capacity = Math.max(size, this.#docLength.length * 2);
    this.#docLength = grown(this.#docLength, capacity, (n) => new Float64Array(n));
    this.#docChunks = grown(this.#docChunks, capacity, (n) => new Int32Array(n));
    this.#docPublicChunks = grown(this.#docPublicChunks, capacity, (n) => new Int32Array(n));
    this.#docLast = grown(this.#docLast, capacity, (n) => new Int32Array(n));
    this.#docScore = new Float64Array(capacity);
    this.#docTf = new Float64Array(capacity);
    this.#docSeen = new Int32Array(capacity);
    this.#docTermSeen = new Int32Array(capacity);
  }

  /** The term id of a folded word: one lookup per word once seen, instead of a stem lookup then a term lookup. */
  #wordTermId(word: string): number {
    let termId = this.#wordTerms.get(word);
    if (termId === undefined) {
      termId = this.#termId(stem(word));
      // Distinct spellings are bounded only by the text indexed; past the bound, words are stemmed each time.
      if (this.#wordTerms.size < maxRememberedWords) this.#wordTerms.set(word, termId);
    }
    return termId;
  }

  remove(chunkSeq: number): void {
    const id = this.#localIds.get(chunkSeq);
    if (id === undefined) return;
    this.#setPublic(id, false);
    this.#countInDoc(id, -1);
    this.#localIds.delete(chunkSeq);
    this.#alive[id] = 0;
    for (const term of this.#distinctTerms(id)) {
      const p = this.#postings[term]!;
      p.df -= 1;
      p.publicDocs = -1;
    }
    this.#live -= 1;
    this.#dead += 1;
    if (this.#dead > 1000 && this.#dead > this.#live && this.#held === 0) this.#compact();
  }

  /**
   * A chunk's document became public (it now counts in the statistics) or stopped being public (it no longer
   * does); its postings stay. Unknown chunks are ignored.
   */
  setPublic(chunkSeq: number, isPublic: boolean): void {
    const id = this.#localIds.get(chunkSeq);
    if (id !== undefined) this.#setPublic(id, isPublic);
  }

  #setPublic(id: number, isPublic: boolean): void {
    if ((this.#public[id] === 1) === isPublic) return;
    const step = isPublic ? 1 : -1;
    if (!isPublic) this.#countPublicInDoc(id, -1);
    this.#public[id] = isPublic ? 1 : 0;
    if (isPublic) this.#countPublicInDoc(id, 1);
    for (const term of this.#distinctTerms(id)) {
      const p = this.#postings[term]!;
      p.publicDf += step;
      p.publicDocs = -1;
    }
    this.#publicLive += step;
    this.#publicLength += step * this.#lengths[id]!;
  }

  /** The distinct term ids of a chunk. */
  #distinctTerms(id: number): Set<number> {
    const start = this.#termStart[id]!;
    const distinct = new Set(this.#termPool.subarray(start, start + this.#termCount[id]!));
    distinct.delete(columnBreak);
    return distinct;
  }

  /**
   * The best `depth` chunks containing any of `terms` (index terms, see indexTerms; a repeated term counts each
   * time, as in FTS5's OR queries), best first.
   */
  search(terms: readonly string[], depth: number): RankedChunk[] {
    if (this.#live === 0 || depth <= 0) return [];
    // A repeated term is read once, its weight multiplied (a query of one word repeated a thousand times costs one
    // list, not a thousand).
    const times = new Map<string, number>();
    for (const term of terms) times.set(term, (times.get(term) ?? 0) + 1);
    if (this.#split > 0) return this.#searchDocuments(times, depth);
    const stats = this.stats;
    const lists = [...times]
      .flatMap(([term, n]) => {
        const termId = this.#termIds.get(term);
        const p = termId === undefined ? undefined : this.#list(termId);
        if (!p || p.df === 0) return [];
        const weight = n * idf(stats, p.publicDf);
        return [{ p, idf: weight, bound: termScore(weight, p.maxFreq, lengthNorm(stats, p.minLength)) }];
      })
      // Rarest first by the public counts (a stable sort): the order a chunk's terms are summed in never depends on
      // chunks the caller may not read, so neither does the last bit of its score.
      .sort((x, y) => x.p.publicDf - y.p.publicDf);
    let remainingBound = lists.reduce((sum, l) => sum + l.bound, 0);
    // The chunks found so far, ids ascending, with their partial scores: each list is merged in (postings are in
    // id order), so memory is read in order rather than a score per chunk id at random.
    let found = this.#merged[0];
    let count = 0;
    for (let l = 0; l < lists.length; l += 1) {
      if (count >= depth) {
        const kth = kthLargest(this.#copyScores(found.scores, count), count, depth);
        if (remainingBound < kth) return this.#probeRest(lists.slice(l), remainingBound, kth, found, count, depth);
      }
      const { p, idf: weight, bound } = lists[l]!;
      remainingBound -= bound;
      const into = this.#merged[found === this.#merged[0] ? 1 : 0];
      count = this.#mergeList(found, count, p, weight, into);
      found = into;
    }
    return this.#bestOf(found.ids, found.scores, count, depth);
  }

  /** The statistics of a document-level score: the live public documents and their tokens (see #docLength). */
  get documentStats(): CorpusStats {
    return { chunks: this.#publicDocs, tokens: this.#publicDocTokens };
  }

  /**
   * A term's document frequency: the live public documents holding it in any of their chunks (a document counts
   * once however many of its chunks hold it). Counted over the postings once, then kept until a write touches the
   * term (see Postings.publicDocs): counting it on every query read a common word's postings twice per query.
   */
  #publicDocuments(p: Postings): number {
    if (p.publicDocs >= 0) return p.publicDocs;
    const stamp = this.#nextStamp();
    const seen = this.#docTermSeen;
    const { ids, length } = p;
    let n = 0;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      if (this.#alive[id] === 0 || this.#public[id] === 0) continue;
      const d = this.#docOf[id]!;
      if (seen[d] === stamp) continue;
      seen[d] = stamp;
      n += 1;
    }
    p.publicDocs = n;
    return n;
  }

  /**
   * The weighted frequency of posting `i` of term `termId` counted in its chunk's own terms (see #fresh): its
   * occurrences in the repeated title and the overlap with the chunk before are its document's already.
   */
  #ownFrequency(p: Postings, i: number, termId: number, id: number): number {
    const fresh = this.#fresh[id]!;
    const freq = p.freqs[i]!;
    const firstAt = p.firstAt[i]!;
    if (fresh === 0 || firstAt >= fresh) return freq;
    const start = this.#termStart[id]!;
    const title = this.#titleLengths[id]!;
    let repeated = 0;
    for (let at = firstAt; at < fresh; at += 1)
      if (this.#termPool[start + at] === termId) repeated += at < title ? this.#weights.title : this.#weights.content;
    return Math.max(0, freq - repeated);
  }

  /**
   * Ranks documents split into several chunks as wholes (BM25 over the document: its length and each term's
   * frequency counted over its chunks' own terms, so the chunking overlap and the title repeated in every chunk
   * count once; N, the average length and the document frequencies those of the live public documents), so that
   * evidence spread over chunks adds up and a document scores as it would unsplit. Its chunks that matched follow
   * it, best first, each scored as its own terms would score the document (at most the document's score): the best
   * `depth` chunks so ordered. Every list is read (no MaxScore bound holds for sums over chunks).
   */
  #searchDocuments(times: ReadonlyMap<string, number>, depth: number): RankedChunk[] {
    const stats = this.documentStats;
    this.#reserveStamps(2 * times.size + 2); // the query's, each term's two and the rows'
    const stamp = this.#nextStamp();
    const { docSeen, docScore, docTf, chunkSeen, chunkScore } = {
      docSeen: this.#docSeen,
      docScore: this.#docScore,
      docTf: this.#docTf,
      chunkSeen: this.#chunkSeen,
      chunkScore: this.#scores,
    };
    const docs: number[] = [];
    const chunks: number[] = [];
    const lists = [...times].flatMap(([term, n]) => {
      const termId = this.#termIds.get(term);
      const p = termId === undefined ? undefined : this.#list(termId);
      return p && p.df > 0 ? [{ termId: termId!, p, n }] : [];
    });
    // Summed in the order the chunk path sums (rarest first by the public counts), so a document of one chunk scores
    // the same to the bit whichever path ranks it: the path taken depends on documents a caller may not read.
    lists.sort((x, y) => x.p.publicDf - y.p.publicDf);
    for (const { termId, p, n } of lists) {
      const weight = n * idf(stats, this.#publicDocuments(p));
      const termStamp = this.#nextStamp();
      const termSeen = this.#docTermSeen;
      const termDocs: number[] = [];
      const { ids, freqs, length } = p;
      for (let i = 0; i < length; i += 1) {
        const id = ids[i]!;
        if (this.#alive[id] === 0) continue;
        const d = this.#docOf[id]!;
        if (docSeen[d] !== stamp) {
          docSeen[d] = stamp;
          docScore[d] = 0;
          docs.push(d);
        }
        if (chunkSeen[id] !== stamp) {
          chunkSeen[id] = stamp;
          chunkScore[id] = 0;
          chunks.push(id);
        }
        const norm = lengthNorm(stats, this.#docLength[d]!);
        chunkScore[id] = chunkScore[id]! + termScore(weight, freqs[i]!, norm);
        if (termSeen[d] !== termStamp) {
          termSeen[d] = termStamp;
          docTf[d] = 0;
          termDocs.push(d);
        }
        docTf[d] = docTf[d]! + this.#ownFrequency(p, i, termId, id);
      }
      for (const d of termDocs)
        if (docTf[d]! > 0)
          docScore[d] = docScore[d]! + termScore(weight, docTf[d]!, lengthNorm(stats, this.#docLength[d]!));
    }
    return this.#documentRows(docs, chunks, depth);
  }

  /**
   * The best documents of `docs` (scores in #docScore) with their best chunks of `chunks` (scores in #scores,
   * cleared here; at most chunksPerHit of each), best first, until `depth` chunks; ties in document order, then
   * chunk order.
   */
  #documentRows(docs: readonly number[], chunks: readonly number[], depth: number): RankedChunk[] {
    const docIds = Int32Array.from(docs);
    const scores = Float64Array.from(docs, (d) => this.#docScore[d]!);
    const best = topByPosition(scores, docs.length, Math.min(depth, docs.length), docIds);
    // Each best document's rank, in scratch per local doc id (a map lookup per matching chunk cost more than scoring).
    const stamp = this.#nextStamp();
    const seen = this.#docTermSeen;
    const rank = this.#docTf;
    best.forEach((position, r) => {
      const d = docIds[position]!;
      seen[d] = stamp;
      rank[d] = r;
    });
    const byDoc: number[][] = best.map(() => []);
    for (const id of chunks) {
      const d = this.#docOf[id]!;
      if (seen[d] === stamp) byDoc[rank[d]!]!.push(id);
    }
    const rows: RankedChunk[] = [];
    for (let r = 0; r < best.length && rows.length < depth; r += 1) {
      const d = docIds[best[r]!]!;
      const docScore = this.#docScore[d]!;
      const own = byDoc[r]!.sort((x, y) => this.#scores[y]! - this.#scores[x]! || x - y);
      for (const id of own.slice(0, chunksPerHit)) {
        if (rows.length === depth) break;
        rows.push({ chunk: this.#chunkSeqs[id]!, doc: this.#docSeqs[id]!, score: this.#scores[id]!, docScore });
      }
    }
    for (const id of chunks) this.#scores[id] = 0;
    return rows;
  }

  /**
   * Merges postings `p` (its score `weight` × the saturated frequency) into the `count` chunks of `from` (ids
   * ascending, partial scores), into `into`; answers how many chunks `into` holds. Dead chunks are skipped.
   */
  #mergeList(from: Found, count: number, p: Postings, weight: number, into: Found): number {
    const stats = this.stats;
    const alive = this.#alive;
    const lengths = this.#lengths;
    const { ids, freqs, length } = p;
    into.reserve(count + length);
    const outIds = into.ids;
    const outScores = into.scores;
    const inIds = from.ids;
    const inScores = from.scores;
    let a = 0;
    let out = 0;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      while (a < count && inIds[a]! < id) {
        outIds[out] = inIds[a]!;
        outScores[out++] = inScores[a++]!;
      }
      if (alive[id] === 0) continue;
      const before = a < count && inIds[a] === id ? inScores[a++]! : 0;
      outIds[out] = id;
      outScores[out++] = before + termScore(weight, freqs[i]!, lengthNorm(stats, lengths[id]!));
    }
    while (a < count) {
      outIds[out] = inIds[a]!;
      outScores[out++] = inScores[a++]!;
    }
    return out;
  }

  /** The first `count` of `scores` copied into scratch space (kthLargest reorders what it is given). */
  #copyScores(scores: Float64Array, count: number): Float64Array {
    if (this.#scratch.length < count) this.#scratch = new Float64Array(count * 2);
    this.#scratch.set(scores.subarray(0, count));
    return this.#scratch;
  }

  /**
   * The end of a search once the terms left (`rest`, whose bounds sum to `restBound`) cannot bring a chunk that
   * holds none of the terms read so far into the result (MaxScore): the `depth`-th best partial score `kth` can only
   * rise, so a chunk found so far whose partial score plus `restBound` stays below it cannot enter either. Only the
   * others are looked up in the rest's postings — usually the longest (a common word's, at a million chunks,
   * hundreds of thousands): a galloping search from the last position, ids ascending on both sides. Scores are
   * summed in the same order as a full read, so they are the same to the bit.
   */
  #probeRest(
    rest: readonly { p: Postings; idf: number; bound: number }[],
    restBound: number,
    kth: number,
    found: Found,
    count: number,
    depth: number,
  ): RankedChunk[] {
    const stats = this.stats;
    const lengths = this.#lengths;
    const { ids: foundIds, scores: foundScores } = found;
    let kept = 0;
    for (let i = 0; i < count; i += 1) {
      if (foundScores[i]! + restBound < kth) continue;
      foundIds[kept] = foundIds[i]!;
      foundScores[kept++] = foundScores[i]!;
    }
    for (const { p, idf: weight } of rest) {
      const { ids, freqs, length } = p;
      let at = 0;
      for (let c = 0; c < kept; c += 1) {
        const id = foundIds[c]!;
        at = gallop(ids, length, at, id);
        if (at === length) break;
        if (ids[at] === id)
          foundScores[c] = foundScores[c]! + termScore(weight, freqs[at]!, lengthNorm(stats, lengths[id]!));
      }
    }
    return this.#bestOf(foundIds, foundScores, kept, depth);
  }

  /** The best `depth` of `count` chunks (ids and their scores, side by side), as results, best first. */
  #bestOf(ids: Int32Array, scores: Float64Array, count: number, depth: number): RankedChunk[] {
    const best = topByPosition(scores, count, depth, ids);
    return best.map((i) => ({ chunk: this.#chunkSeqs[ids[i]!]!, doc: this.#docSeqs[ids[i]!]!, score: scores[i]! }));
  }

  /**
   * The best `depth` chunks holding at least one term of every group (a wildcard query: each pattern's expansions
   * form a group, a plain word a group of one), scored over every term of every group as FTS5 scores the
   * expression `(a OR b) AND c`.
   */
  groups(groups: readonly (readonly string[])[], depth: number): RankedChunk[] {
    if (this.#live === 0 || depth <= 0 || groups.length === 0) return [];
    if (this.#split > 0) return this.#groupsDocuments(groups, depth);
    const stats = this.stats;
    if (this.#groupSeen.length < this.#count) {
      this.#groupSeen = new Int32Array(this.#alive.length).fill(-1);
      this.#groupsMatched = new Int32Array(this.#alive.length);
    }
    const seen = this.#groupSeen;
    const matched = this.#groupsMatched;
    const scores = this.#scores;
    const alive = this.#alive;
    const lengths = this.#lengths;
    const touched: number[] = [];
    groups.forEach((group, g) => {
      for (const term of group) {
        const termId = this.#termIds.get(term);
        const p = termId === undefined ? undefined : this.#list(termId);
        if (!p || p.df === 0) continue;
        const weight = idf(stats, p.publicDf);
        const { ids, freqs, length } = p;
        for (let i = 0; i < length; i += 1) {
          const id = ids[i]!;
          if (alive[id] === 0) continue;
          if (seen[id] === -1) touched.push(id);
          if (seen[id] !== g) {
            seen[id] = g;
            matched[id] = matched[id]! + 1;
          }
          scores[id] = scores[id]! + termScore(weight, freqs[i]!, lengthNorm(stats, lengths[id]!));
        }
      }
    });
    const all = groups.length;
    const found = touched.filter((id) => matched[id] === all);
    for (const id of touched) {
      seen[id] = -1;
      matched[id] = 0;
    }
    const chunks = this.#best(found, depth);
    for (const id of touched) scores[id] = 0;
    return chunks;
  }

  /**
   * A wildcard query's documents ranked as wholes (as #searchDocuments ranks words): those holding a term of every
   * group somewhere in their chunks, scored over every term of every group.
   */
  #groupsDocuments(groups: readonly (readonly string[])[], depth: number): RankedChunk[] {
    const stats = this.documentStats;
    this.#reserveStamps(2 * groups.reduce((n, g) => n + g.length, 0) + 2);
    const stamp = this.#nextStamp();
    const docs: number[] = [];
    const chunks: number[] = [];
    // Per document touched: the last group that matched it, and how many groups did.
    const lastGroup = new Map<number, number>();
    const matched = new Map<number, number>();
    const lists = groups.flatMap((group, g) =>
      group.flatMap((term) => {
        const termId = this.#termIds.get(term);
        const p = termId === undefined ? undefined : this.#list(termId);
        return p && p.df > 0 ? [{ termId: termId!, p, g }] : [];
      }),
    );
    for (const { termId, p, g } of lists) {
      const weight = idf(stats, this.#publicDocuments(p));
      const termStamp = this.#nextStamp();
      const termDocs: number[] = [];
      const { ids, freqs, length } = p;
      for (let i = 0; i < length; i += 1) {
        const id = ids[i]!;
        if (this.#alive[id] === 0) continue;
        const d = this.#docOf[id]!;
        if (this.#docSeen[d] !== stamp) {
          this.#docSeen[d] = stamp;
          this.#docScore[d] = 0;
          docs.push(d);
        }
        if (this.#chunkSeen[id] !== stamp) {
          this.#chunkSeen[id] = stamp;
          this.#scores[id] = 0;
          chunks.push(id);
        }
        if (lastGroup.get(d) !== g) {
          lastGroup.set(d, g);
          matched.set(d, (matched.get(d) ?? 0) + 1);
        }
        const norm = lengthNorm(stats, this.#docLength[d]!);
        this.#scores[id] = this.#scores[id]! + termScore(weight, freqs[i]!, norm);
        if (this.#docTermSeen[d] !== termStamp) {
          this.#docTermSeen[d] = termStamp;
          this.#docTf[d] = 0;
          termDocs.push(d);
        }
        this.#docTf[d] = this.#docTf[d]! + this.#ownFrequency(p, i, termId, id);
      }
      for (const d of termDocs)
        this.#docScore[d] =
          this.#docScore[d]! + termScore(weight, this.#docTf[d]!, lengthNorm(stats, this.#docLength[d]!));
    }
    const all = groups.length;
    return this.#documentRows(
      docs.filter((d) => matched.get(d) === all),
      chunks,
      depth,
    );
  }

  /**
   * The best `depth` chunks containing `terms` in this order (a phrase, in the title or in the content), ranked as
   * FTS5's `bm25()` ranks a phrase: its frequency is the number of occurrences per column, and its idf comes from
   * the number of public chunks containing it. Candidates are the chunks holding the phrase's rarest word; each is
   * checked at that word's occurrences only (its posting records the first and how many there are).
   */
  phrase(terms: readonly string[], depth: number): RankedChunk[] {
    if (this.#live === 0 || depth <= 0 || terms.length === 0) return [];
    const termIds = terms.map((term) => this.#termIds.get(term));
    if (termIds.some((id) => id === undefined || this.#postings[id]!.df === 0)) return [];
    const phrase = termIds as number[];
    let rarest = phrase[0]!;
    for (const id of phrase) if (this.#postings[id]!.df < this.#postings[rarest]!.df) rarest = id;
    const p = this.#list(rarest);
    const offset = phrase.indexOf(rarest); // where the rarest word sits in the phrase
    const pool = this.#termPool;
    const alive = this.#alive;
    const termStart = this.#termStart;
    const termCount = this.#termCount;
    const titleLengths = this.#titleLengths;
    const { title: titleWeight, content: contentWeight } = this.#weights;
    // The chunks holding the phrase, ids ascending, and the phrase's weighted frequency in each (then its score):
    // typed scratch space, as a common phrase is in hundreds of thousands of chunks at a million.
    const found = this.#merged[0];
    found.reserve(p.length);
    const foundIds = found.ids;
    const foundScores = found.scores;
    if (this.#ownFound.length < p.length)
      this.#ownFound = new Float64Array(Math.max(p.length, this.#ownFound.length * 2));
    let count = 0;
    let publicFound = 0;
    const { ids, firstAt, occurrences, length } = p;
    const size = phrase.length;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      if (alive[id] === 0) continue;
      const start = termStart[id]!;
      const end = start + termCount[id]!;
      let weight = 0;
      let own = 0;
      const fresh = start + this.#fresh[id]!;
      // Each occurrence of the rarest word, from its first, is a place the phrase may sit.
      let left = occurrences[i]!;
      for (let at = start + firstAt[i]!; left > 0 && at < end; at += 1) {
        if (pool[at] !== rarest) continue;
        left -= 1;
        const from = at - offset;
        if (from < start || from + size > end) continue;
        let k = 0;
        while (k < size && pool[from + k] === phrase[k]) k += 1;
        if (k !== size) continue;
        const w = from - start < titleLengths[id]! ? titleWeight : contentWeight;
        weight += w;
        // Its document's own occurrence when it ends past what the chunk repeats of the one before (see #fresh).
        if (from + size > fresh) own += w;
      }
      if (weight > 0) {
        foundIds[count] = id;
        foundScores[count++] = weight;
        publicFound += this.#public[id]!;
        this.#ownFound[count - 1] = own;
      }
    }
    if (this.#split > 0) return this.#phraseDocuments(foundIds, foundScores, count, depth);
    const stats = this.stats;
    const weight = idf(stats, publicFound);
    const lengths = this.#lengths;
    for (let i = 0; i < count; i += 1)
      foundScores[i] = termScore(weight, foundScores[i]!, lengthNorm(stats, lengths[foundIds[i]!]!));
    return this.#bestOf(foundIds, foundScores, count, depth);
  }

  /**
   * A phrase's documents ranked as wholes (as #searchDocuments ranks words): `count` chunks holding it (`ids`, with
   * its weighted frequency in each, and in #ownFound its frequency in the chunk's own terms).
   */
  #phraseDocuments(ids: Int32Array, weights: Float64Array, count: number, depth: number): RankedChunk[] {
    const stats = this.documentStats;
    this.#reserveStamps(2);
    const stamp = this.#nextStamp();
    const docs: number[] = [];
    const chunks: number[] = [];
    let publicDocs = 0;
    for (let i = 0; i < count; i += 1) {
      const id = ids[i]!;
      const d = this.#docOf[id]!;
      if (this.#docSeen[d] !== stamp) {
        this.#docSeen[d] = stamp;
        this.#docTf[d] = 0;
        docs.push(d);
      }
      // A public document counts once, at its first public chunk holding the phrase.
      if (this.#public[id] === 1 && this.#docTermSeen[d] !== stamp) {
        this.#docTermSeen[d] = stamp;
        publicDocs += 1;
      }
      this.#docTf[d] = this.#docTf[d]! + this.#ownFound[i]!;
      chunks.push(id);
    }
    const weight = idf(stats, publicDocs);
    for (let i = 0; i < count; i += 1) {
      const id = ids[i]!;
      this.#scores[id] = termScore(weight, weights[i]!, lengthNorm(stats, this.#docLength[this.#docOf[id]!]!));
    }
    for (const d of docs) {
      const f = this.#docTf[d]!;
      this.#docScore[d] = f > 0 ? termScore(weight, f, lengthNorm(stats, this.#docLength[d]!)) : 0;
    }
    return this.#documentRows(docs, chunks, depth);
  }

  /**
   * Makes room for the `count` stamps a query is about to take (#nextStamp): the scratch arrays are cleared and the
   * counter restarted before a query rather than during one, which would forget what the query had marked.
   */
  #reserveStamps(count: number): void {
    if (this.#stamp + count < 0x3fffffff) return;
    this.#stamp = 0;
    for (const a of [this.#docSeen, this.#docTermSeen, this.#chunkSeen]) a.fill(0);
  }

  /** A stamp no scratch array holds yet (reserved by the query, see #reserveStamps). */
  #nextStamp(): number {
    return ++this.#stamp;
  }

  /** The best `depth` of `ids` by their accumulated scores, as results; clears the scores of `ids`. */
  #best(ids: readonly number[], depth: number): RankedChunk[] {
    const scores = this.#scores;
    const found = this.#merged[0];
    found.reserve(ids.length);
    ids.forEach((id, i) => {
      found.ids[i] = id;
      found.scores[i] = scores[id]!;
      scores[id] = 0;
    });
    return this.#bestOf(found.ids, found.scores, ids.length, depth);
  }

  #storeTerms(id: number, terms: readonly number[]): void {
    const count = terms.length;
    if (this.#poolLength + count > this.#termPool.length) {
      const pool = new Int32Array(Math.max(this.#termPool.length * 2, this.#poolLength + count));
      pool.set(this.#termPool.subarray(0, this.#poolLength));
      this.#termPool = pool;
    }
    this.#termStart[id] = this.#poolLength;
    this.#termCount[id] = count;
    for (const term of terms) this.#termPool[this.#poolLength++] = term;
  }

  #termId(term: string): number {
    let termId = this.#termIds.get(term);
    if (termId === undefined) {
      termId = this.#postings.length;
      this.#termIds.set(term, termId);
      this.#postings.push(new Postings());
      if (termId >= this.#freq.length) {
        const grow = <A extends Float64Array | Int32Array>(old: A, next: A): A => {
          next.set(old);
          return next;
        };
        this.#freq = grow(this.#freq, new Float64Array(this.#freq.length * 2));
        this.#firstAt = grow(this.#firstAt, new Int32Array(this.#firstAt.length * 2));
        this.#occurrences = grow(this.#occurrences, new Int32Array(this.#occurrences.length * 2));
      }
    }
    return termId;
  }

  #grow(size: number): void {
    if (size <= this.#alive.length) return;
    const capacity = Math.max(size, this.#alive.length * 2);
    this.#chunkSeqs = grown(this.#chunkSeqs, capacity, (n) => new Float64Array(n));
    this.#docSeqs = grown(this.#docSeqs, capacity, (n) => new Float64Array(n));
    this.#lengths = grown(this.#lengths, capacity, (n) => new Int32Array(n));
    this.#alive = grown(this.#alive, capacity, (n) => new Uint8Array(n));
    this.#public = grown(this.#public, capacity, (n) => new Uint8Array(n));
    this.#termStart = grown(this.#termStart, capacity, (n) => new Int32Array(n));
    this.#termCount = grown(this.#termCount, capacity, (n) => new Int32Array(n));
    this.#titleLengths = grown(this.#titleLengths, capacity, (n) => new Int32Array(n));
    this.#docOf = grown(this.#docOf, capacity, (n) => new Int32Array(n));
    this.#fresh = grown(this.#fresh, capacity, (n) => new Int32Array(n));
    this.#chunkSeen = new Int32Array(capacity);
    this.#scores = new Float64Array(capacity);
  }

  /** Renumbers the documents that still have live chunks (the `live` first local ids, renumbered by `newId`). */
  #compactDocs(newId: Int32Array, live: number): void {
    const newDoc = new Int32Array(this.#docCount).fill(-1);
    let next = 0;
    for (let d = 0; d < this.#docCount; d += 1) {
      if (this.#docChunks[d] === 0) continue;
      newDoc[d] = next;
      this.#docLength[next] = this.#docLength[d]!;
      this.#docChunks[next] = this.#docChunks[d]!;
      this.#docPublicChunks[next] = this.#docPublicChunks[d]!;
      const last = this.#docLast[d]!;
      this.#docLast[next] = last >= 0 ? newId[last]! : -1;
      next += 1;
    }
    for (const [seq, d] of this.#docIds) {
      const renumbered = newDoc[d]!;
      if (renumbered < 0) this.#docIds.delete(seq);
      else this.#docIds.set(seq, renumbered);
    }
    for (let id = 0; id < live; id += 1) this.#docOf[id] = newDoc[this.#docOf[id]!]!;
    this.#docCount = next;
    this.#docSeen.fill(0);
    this.#docTermSeen.fill(0);
  }

  /** Drops dead chunks from the postings and renumbers the live ones. */
  #compact(): void {
    const newId = new Int32Array(this.#count).fill(-1);
    let next = 0;
    for (let id = 0; id < this.#count; id += 1) {
      if (this.#alive[id] === 0) continue;
      newId[id] = next;
      this.#chunkSeqs[next] = this.#chunkSeqs[id]!;
      this.#docSeqs[next] = this.#docSeqs[id]!;
      this.#lengths[next] = this.#lengths[id]!;
      this.#alive[next] = 1;
      this.#public[next] = this.#public[id]!;
      this.#termStart[next] = this.#termStart[id]!;
      this.#termCount[next] = this.#termCount[id]!;
      this.#titleLengths[next] = this.#titleLengths[id]!;
      this.#docOf[next] = this.#docOf[id]!;
      this.#fresh[next] = this.#fresh[id]!;
      this.#localIds.set(this.#chunkSeqs[next]!, next);
      next += 1;
    }
    this.#alive.fill(0, next);
    this.#public.fill(0, next);
    this.#compactDocs(newId, next);
    const pool = new Int32Array(Math.max(16_384, this.#poolLength));
    let used = 0;
    for (let id = 0; id < next; id += 1) {
      const start = this.#termStart[id]!;
      const count = this.#termCount[id]!;
      pool.set(this.#termPool.subarray(start, start + count), used);
      this.#termStart[id] = used;
      used += count;
    }
    this.#termPool = pool;
    this.#poolLength = used;
    for (let t = 0; t < this.#postings.length; t += 1) {
      const p = this.#list(t); // rewritten in place below: its own arrays, if they were a checkpoint's views
      let w = 0;
      p.maxFreq = 0;
      p.minLength = Number.MAX_SAFE_INTEGER;
      for (let i = 0; i < p.length; i += 1) {
        const id = newId[p.ids[i]!]!;
        if (id < 0) continue;
        p.ids[w] = id;
        p.freqs[w] = p.freqs[i]!;
        p.firstAt[w] = p.firstAt[i]!;
        p.occurrences[w] = p.occurrences[i]!;
        p.maxFreq = Math.max(p.maxFreq, p.freqs[w]!);
        p.minLength = Math.min(p.minLength, this.#lengths[id]!);
        w += 1;
      }
      p.length = w;
    }
    this.#count = next;
    this.#dead = 0;
  }
}

/**
 * The first position at or after `from` of `ids` (ascending, `length` of them) whose id is at least `id`, or
 * `length`: doubling steps from `from`, then a binary search within the last step.
 */
export function gallop(ids: Int32Array, length: number, from: number, id: number): number {
  if (from >= length || ids[from]! >= id) return from;
  let low = from; // ids[low] < id
  let step = 1;
  while (low + step < length && ids[low + step]! < id) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, length); // ids[high] >= id, or high = length
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (ids[mid]! < id) low = mid;
    else high = mid;
  }
  return high;
}

/** The `k`-th largest of the first `length` values (k ≤ length), by quickselect; reorders them. */
export function kthLargest(values: Float64Array, length: number, k: number): number {
  let lo = 0;
  let hi = length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i += 1;
      while (values[j]! < pivot) j -= 1;
      if (i <= j) {
        const t = values[i]!;
        values[i] = values[j]!;
        values[j] = t;
        i += 1;
        j -= 1;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target]!;
}

/**
 * The positions of the `k` highest of the first `count` scores, best first (ties: lower id first, `ids` side by side
 * with the scores), with a bounded min-heap.
 */
export function topByPosition(scores: Float64Array, count: number, k: number, ids: Int32Array): number[] {
  const before = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && ids[a]! > ids[b]!);
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (let p = 0; p < count; p += 1) {
    if (heap.length < k) {
      heap.push(p);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!before(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (k > 0 && before(heap[0]!, p)) {
      heap[0] = p;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || ids[a]! - ids[b]!);
}
