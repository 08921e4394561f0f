import { foldedWords, stem } from './tokenize.js';

/** Distinct folded words whose term ids an index remembers (beyond it, later new words are stemmed each time). */
const maxRememberedWords = 1_000_000;

/** Separates the title's terms from the content's in a chunk's term sequence (a phrase never spans it). */
const columnBreak = -1;

/** BM25 parameters (the FTS5 defaults, so scores equal the phrase and wildcard path's `bm25()`). */
export const k1 = 1.2;
export const b = 0.75;

export interface Bm25Weights {
  readonly title: number;
  readonly content: number;
}

export interface RankedChunk {
  /** Chunk seq. */
  readonly chunk: number;
  /** Document seq. */
  readonly doc: number;
  readonly score: number;
}

/** One term's postings: local chunk ids and weighted term frequencies, in insertion order. */
class Postings {
  ids = new Int32Array(4);
  freqs = new Float32Array(4);
  /** Where the term first occurs in the chunk's term sequence, and how many times it occurs (for phrases). */
  firstAt = new Int32Array(4);
  occurrences = new Int32Array(4);
  length = 0;
  /** Live chunks containing the term. */
  df = 0;
  /** Bounds over the postings (never tightened on removal, so always safe): for the term's score bound. */
  maxFreq = 0;
  minLength = Number.MAX_SAFE_INTEGER;

  push(id: number, freq: number, chunkLength: number, firstAt: number, occurrences: number): void {
    if (this.length === this.ids.length) {
      const grow = <A extends Int32Array | Float32Array>(old: A, next: A): A => {
        next.set(old);
        return next;
      };
      this.ids = grow(this.ids, new Int32Array(this.length * 2));
      this.freqs = grow(this.freqs, new Float32Array(this.length * 2));
      this.firstAt = grow(this.firstAt, new Int32Array(this.length * 2));
      this.occurrences = grow(this.occurrences, new Int32Array(this.length * 2));
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

/**
 * An in-memory inverted index of one tenant's chunks, ranked by BM25 exactly as FTS5's `bm25()` computes it
 * (column weights, k1 1.2, b 0.75, idf log((N − n + 0.5) / (n + 0.5)) floored at 1e-6, document length = all
 * columns' tokens). Queries of any of several words are scored term at a time, rarest term first, into a dense
 * accumulator, then the best `depth` chunks are kept with a bounded heap. MaxScore pruning: once the chunks
 * found so far fill `depth` and the remaining terms' score bounds together cannot reach the `depth`-th best
 * score, a chunk matching only those terms cannot enter the result, so their postings only add to chunks already
 * found. FTS5, by contrast, reads and scores every matching row through its virtual-table interface.
 *
 * Removal marks the chunk dead and updates the statistics at once; dead postings are skipped and compacted away
 * when they outnumber the live ones. This index is derived data: TextIndex builds it from the FTS5 table and
 * applies committed writes to it.
 */
export class Bm25Index {
  readonly #weights: Bm25Weights;
  readonly #termIds = new Map<string, number>();
  #postings: Postings[] = [];
  /** Per local id: chunk seq, document seq, length in tokens, alive flag and distinct term ids. */
  #chunkSeqs = new Float64Array(1024);
  #docSeqs = new Float64Array(1024);
  #lengths = new Int32Array(1024);
  #alive = new Uint8Array(1024);
  /**
   * Each chunk's term ids in order — title, then `columnBreak`, then content — end to end in one array (few large
   * arrays keep garbage collection cheap): phrases are matched against it.
   */
  #termPool = new Int32Array(16_384);
  #poolLength = 0;
  #termStart = new Int32Array(1024);
  #termCount = new Int32Array(1024);
  #titleLengths = new Int32Array(1024);
  /** Scratch space for kthLargest. */
  #scratch = new Float64Array(1024);
  #count = 0;
  #dead = 0;
  readonly #localIds = new Map<number, number>();
  #live = 0;
  #totalLength = 0;
  #scores = new Float64Array(1024);
  /** Folded word → term id (its stem's), so adding a chunk looks each word up once. */
  readonly #wordTerms = new Map<string, number>();
  /** Scratch for add(), per term id: weighted frequency, first position and occurrences in the chunk being added. */
  #freq = new Float64Array(1024);
  #firstAt = new Int32Array(1024);
  #occurrences = new Int32Array(1024);
  readonly #touched: number[] = [];
  readonly #sequence: number[] = [];

  constructor(weights: Bm25Weights) {
    this.#weights = weights;
  }

  /** Live chunks. */
  get size(): number {
    return this.#live;
  }

  add(chunkSeq: number, docSeq: number, title: string, content: string): void {
    if (this.#localIds.has(chunkSeq)) this.remove(chunkSeq);
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
    this.#storeTerms(id, sequence);
    for (const termId of touched) {
      this.#postings[termId]!.push(
        id,
        this.#freq[termId]!,
        this.#lengths[id]!,
        this.#firstAt[termId]!,
        this.#occurrences[termId]!,
      );
      this.#occurrences[termId] = 0;
    }
    this.#localIds.set(chunkSeq, id);
    this.#count += 1;
    this.#live += 1;
    this.#totalLength += this.#lengths[id]!;
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
    this.#localIds.delete(chunkSeq);
    this.#alive[id] = 0;
    const start = this.#termStart[id]!;
    const distinct = new Set(this.#termPool.subarray(start, start + this.#termCount[id]!));
    distinct.delete(columnBreak);
    for (const term of distinct) this.#postings[term]!.df -= 1;
    this.#live -= 1;
    this.#dead += 1;
    this.#totalLength -= this.#lengths[id]!;
    if (this.#dead > 1000 && this.#dead > this.#live) this.#compact();
  }

  /**
   * The best `depth` chunks containing any of `terms` (index terms, see indexTerms; a repeated term counts each
   * time, as in FTS5's OR queries), best first.
   */
  search(terms: readonly string[], depth: number): RankedChunk[] {
    if (this.#live === 0 || depth <= 0) return [];
    const n = this.#live;
    const avgLength = this.#totalLength / n;
    const norm = (chunkLength: number) => k1 * (1 - b + (b * chunkLength) / avgLength);
    const lists = terms
      .map((term) => this.#termIds.get(term))
      .flatMap((termId) => {
        const p = termId === undefined ? undefined : this.#postings[termId]!;
        if (!p || p.df === 0) return [];
        const idf = Math.max(1e-6, Math.log((n - p.df + 0.5) / (p.df + 0.5)));
        const bound = (idf * p.maxFreq * (k1 + 1)) / (p.maxFreq + norm(p.minLength));
        return [{ p, idf, bound }];
      })
      .sort((x, y) => x.p.df - y.p.df);
    let remainingBound = lists.reduce((sum, l) => sum + l.bound, 0);
    const scores = this.#scores;
    const alive = this.#alive;
    const lengths = this.#lengths;
    const touched: number[] = [];
    let onlyFound = false;
    for (const { p, idf, bound } of lists) {
      if (!onlyFound && touched.length >= depth && remainingBound < this.#kthLargest(touched, depth)) onlyFound = true;
      remainingBound -= bound;
      const { ids, freqs, length } = p;
      const lift = idf * (k1 + 1);
      for (let i = 0; i < length; i += 1) {
        const id = ids[i]!;
        const before = scores[id]!;
        if ((onlyFound && before === 0) || alive[id] === 0) continue;
        const f = freqs[i]!;
        if (before === 0) touched.push(id);
        scores[id] = before + (lift * f) / (f + norm(lengths[id]!));
      }
    }
    const best = topByScore(touched, scores, depth);
    const chunks = best.map((id) => ({ chunk: this.#chunkSeqs[id]!, doc: this.#docSeqs[id]!, score: scores[id]! }));
    for (const id of touched) scores[id] = 0;
    return chunks;
  }

  /**
   * The best `depth` chunks containing `terms` in this order (a phrase, in the title or in the content), ranked as
   * FTS5's `bm25()` ranks a phrase: its frequency is the number of occurrences per column, and its idf comes from
   * the number of chunks containing it. Candidates are the chunks holding the phrase's rarest word; each is
   * checked at that word's occurrences only (its posting records the first and how many there are).
   */
  phrase(terms: readonly string[], depth: number): RankedChunk[] {
    if (this.#live === 0 || depth <= 0 || terms.length === 0) return [];
    const termIds = terms.map((term) => this.#termIds.get(term));
    if (termIds.some((id) => id === undefined || this.#postings[id]!.df === 0)) return [];
    const phrase = termIds as number[];
    let rarest = phrase[0]!;
    for (const id of phrase) if (this.#postings[id]!.df < this.#postings[rarest]!.df) rarest = id;
    const p = this.#postings[rarest]!;
    const offset = phrase.indexOf(rarest); // where the rarest word sits in the phrase
    const pool = this.#termPool;
    const alive = this.#alive;
    const termStart = this.#termStart;
    const termCount = this.#termCount;
    const titleLengths = this.#titleLengths;
    const { title: titleWeight, content: contentWeight } = this.#weights;
    const found: number[] = [];
    const weighted: number[] = [];
    const { ids, firstAt, occurrences, length } = p;
    const size = phrase.length;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      if (alive[id] === 0) continue;
      const start = termStart[id]!;
      const end = start + termCount[id]!;
      let weight = 0;
      // Each occurrence of the rarest word, from its first, is a place the phrase may sit.
      let left = occurrences[i]!;
      for (let at = start + firstAt[i]!; left > 0 && at < end; at += 1) {
        if (pool[at] !== rarest) continue;
        left -= 1;
        const from = at - offset;
        if (from < start || from + size > end) continue;
        let k = 0;
        while (k < size && pool[from + k] === phrase[k]) k += 1;
        if (k === size) weight += from - start < titleLengths[id]! ? titleWeight : contentWeight;
      }
      if (weight > 0) {
        found.push(id);
        weighted.push(weight);
      }
    }
    const n = this.#live;
    const avgLength = this.#totalLength / n;
    const idf = Math.max(1e-6, Math.log((n - found.length + 0.5) / (found.length + 0.5)));
    const scores = this.#scores;
    found.forEach((id, i) => {
      const f = weighted[i]!;
      scores[id] = (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * this.#lengths[id]!) / avgLength));
    });
    const best = topByScore(found, scores, depth);
    const chunks = best.map((id) => ({ chunk: this.#chunkSeqs[id]!, doc: this.#docSeqs[id]!, score: scores[id]! }));
    for (const id of found) scores[id] = 0;
    return chunks;
  }

  /** The `k`-th highest score among `ids` (k ≤ ids.length). */
  #kthLargest(ids: readonly number[], k: number): number {
    if (this.#scratch.length < ids.length) this.#scratch = new Float64Array(ids.length * 2);
    const values = this.#scratch;
    for (let i = 0; i < ids.length; i += 1) values[i] = this.#scores[ids[i]!]!;
    return kthLargest(values, ids.length, k);
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
    const grow = <A extends Float64Array | Int32Array | Uint8Array>(old: A, make: (n: number) => A): A => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    this.#chunkSeqs = grow(this.#chunkSeqs, (n) => new Float64Array(n));
    this.#docSeqs = grow(this.#docSeqs, (n) => new Float64Array(n));
    this.#lengths = grow(this.#lengths, (n) => new Int32Array(n));
    this.#alive = grow(this.#alive, (n) => new Uint8Array(n));
    this.#termStart = grow(this.#termStart, (n) => new Int32Array(n));
    this.#termCount = grow(this.#termCount, (n) => new Int32Array(n));
    this.#titleLengths = grow(this.#titleLengths, (n) => new Int32Array(n));
    this.#scores = new Float64Array(capacity);
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
      this.#termStart[next] = this.#termStart[id]!;
      this.#termCount[next] = this.#termCount[id]!;
      this.#titleLengths[next] = this.#titleLengths[id]!;
      this.#localIds.set(this.#chunkSeqs[next]!, next);
      next += 1;
    }
    this.#alive.fill(0, next);
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
    for (const p of this.#postings) {
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

/** The ids with the `k` highest scores, best first (ties: lower id first), with a bounded min-heap. */
export function topByScore(ids: readonly number[], scores: Float64Array, k: number): number[] {
  const before = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
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
  for (const id of ids) {
    if (heap.length < k) {
      heap.push(id);
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1;
        if (!before(heap[i]!, heap[parent]!)) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (k > 0 && before(heap[0]!, id)) {
      heap[0] = id;
      down(0);
    }
  }
  return heap.sort((a, b) => scores[b]! - scores[a]! || a - b);
}
