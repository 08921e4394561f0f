import type { ChunkTable } from './bm25-chunks.js';
import type { DocumentTable } from './bm25-documents.js';
import type { Allowed } from './bm25-chunk-ranking.js';
import type { PhraseMatch } from './bm25-phrase.js';
import type { Postings } from './bm25-postings.js';
import { chunksPerHit, type RankedChunk } from './bm25-ranked-chunk.js';
import { idf, lengthNorm, termScore, type Bm25Weights, type CorpusStats } from './bm25-score.js';
import type { SearchScratch } from './bm25-scratch.js';
import type { TermDictionary } from './bm25-terms.js';
import { topByPosition } from './bm25-top-k.js';

/** The documents and chunks a query touched so far, and the stamp that marks them in the scratch (issue #44). */
interface Touched {
  readonly stamp: number;
  readonly docs: number[];
  readonly chunks: number[];
}

/**
 * Ranks documents split into several chunks as wholes (Bm25Index, once one is; issue #44): BM25 over the document —
 * its length and each term's frequency counted over its chunks' own terms, so the chunking overlap and the title
 * repeated in every chunk count once; N, the average length and the document frequencies those of the live public
 * documents — so that evidence spread over chunks adds up and a document scores as it would unsplit. Its chunks that
 * matched follow it, best first, each scored as its own terms would score the document (at most the document's
 * score): the best `depth` chunks so ordered. Every list is read (no MaxScore bound holds for sums over chunks).
 */
export class DocumentRanking {
  readonly #terms: TermDictionary;
  readonly #chunks: ChunkTable;
  readonly #docs: DocumentTable;
  readonly #weights: Bm25Weights;
  readonly #scratch: SearchScratch;

  constructor(
    terms: TermDictionary,
    chunks: ChunkTable,
    docs: DocumentTable,
    weights: Bm25Weights,
    scratch: SearchScratch,
  ) {
    this.#terms = terms;
    this.#chunks = chunks;
    this.#docs = docs;
    this.#weights = weights;
    this.#scratch = scratch;
  }

  /** The best documents holding any of the query's terms (`times`, as ChunkRanking.search takes them). */
  search(times: ReadonlyMap<string, number>, depth: number, allowed?: Allowed): RankedChunk[] {
    const stats = this.#docs.stats;
    this.#scratch.reserveStamps(2 * times.size + 2); // the query's, each term's two and the rows'
    const touched: Touched = { stamp: this.#scratch.nextStamp(), docs: [], chunks: [] };
    // Summed in the order the chunk path sums (rarest first by the public counts), so a document of one chunk scores
    // the same to the bit whichever path ranks it: the path taken depends on documents a caller may not read.
    for (const { termId, p, n } of this.#terms.rarestFirst(times))
      this.#addTerm(termId, p, n * idf(stats, this.#publicDocuments(p)), stats, touched, allowed);
    return this.#rows(touched.docs, touched.chunks, depth);
  }

  /**
   * A wildcard query's documents ranked as wholes (as `search` ranks words): those holding a term of every group
   * somewhere in their chunks, scored over every term of every group.
   */
  groups(groups: readonly (readonly string[])[], depth: number, allowed?: Allowed): RankedChunk[] {
    const stats = this.#docs.stats;
    this.#scratch.reserveStamps(2 * groups.reduce((n, g) => n + g.length, 0) + 2);
    const touched: Touched = { stamp: this.#scratch.nextStamp(), docs: [], chunks: [] };
    // Per document touched: the last group that matched it, and how many groups did.
    const lastGroup = new Map<number, number>();
    const matched = new Map<number, number>();
    groups.forEach((group, g) => {
      for (const term of group) {
        const found = this.#terms.live(term);
        if (!found) continue;
        const weight = idf(stats, this.#publicDocuments(found.p));
        for (const d of this.#addTerm(found.termId, found.p, weight, stats, touched, allowed)) {
          if (lastGroup.get(d) === g) continue;
          lastGroup.set(d, g);
          matched.set(d, (matched.get(d) ?? 0) + 1);
        }
      }
    });
    const all = groups.length;
    return this.#rows(
      touched.docs.filter((d) => matched.get(d) === all),
      touched.chunks,
      depth,
    );
  }

  /**
   * A phrase's documents ranked as wholes (as `search` ranks words): the chunks holding it (matchPhrase, with its
   * frequency in each chunk's own terms in the scratch's ownFound); only `allowed` documents are answered, the
   * phrase's idf counted over every public document holding it.
   */
  phrase(match: PhraseMatch, depth: number, allowed?: Allowed): RankedChunk[] {
    const { ids, weights, count } = match;
    const stats = this.#docs.stats;
    const lengths = this.#docs.lengths;
    const { docOf, isPublic } = this.#chunks;
    const { docSeen, docTermSeen, docTf, docScore, scores, ownFound } = this.#scratch;
    this.#scratch.reserveStamps(2);
    const stamp = this.#scratch.nextStamp();
    const docs: number[] = [];
    const chunks: number[] = [];
    let publicDocs = 0;
    for (let i = 0; i < count; i += 1) {
      const id = ids[i]!;
      const d = docOf[id]!;
      if (docSeen[d] !== stamp) {
        docSeen[d] = stamp;
        docTf[d] = 0;
        docs.push(d);
      }
      // A public document counts once, at its first public chunk holding the phrase.
      if (isPublic[id] === 1 && docTermSeen[d] !== stamp) {
        docTermSeen[d] = stamp;
        publicDocs += 1;
      }
      docTf[d] = docTf[d]! + ownFound[i]!;
      chunks.push(id);
    }
    const weight = idf(stats, publicDocs);
    for (let i = 0; i < count; i += 1) {
      const id = ids[i]!;
      scores[id] = termScore(weight, weights[i]!, lengthNorm(stats, lengths[docOf[id]!]!));
    }
    for (const d of docs) {
      const f = docTf[d]!;
      docScore[d] = f > 0 ? termScore(weight, f, lengthNorm(stats, lengths[d]!)) : 0;
    }
    if (!allowed) return this.#rows(docs, chunks, depth);
    const { docSeqs } = this.#chunks;
    const docSeqOf = new Map(chunks.map((id) => [docOf[id]!, docSeqs[id]!]));
    return this.#rows(
      docs.filter((d) => allowed.has(docSeqOf.get(d)!)),
      chunks,
      depth,
    );
  }

  /**
   * Adds a term's part (`weight`: its document-level idf × times repeated) to the scores of the documents and chunks
   * holding it, which join `touched` as they are first met: a chunk's part is its frequency in the chunk scored
   * with its document's length, a document's its frequency over its chunks' own terms. Answers the documents the
   * term is in. Chunks of documents `allowed` leaves out are passed over (a document's score is its chunks' alone).
   */
  #addTerm(
    termId: number,
    p: Postings,
    weight: number,
    stats: CorpusStats,
    touched: Touched,
    allowed?: Allowed,
  ): number[] {
    const { stamp, docs, chunks } = touched;
    const { alive, docOf, docSeqs } = this.#chunks;
    const lengths = this.#docs.lengths;
    const { docSeen, docScore, docTf, chunkSeen, scores: chunkScore, docTermSeen: termSeen } = this.#scratch;
    const termStamp = this.#scratch.nextStamp();
    const termDocs: number[] = [];
    const { ids, freqs, length } = p;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      if (alive[id] === 0 || (allowed && !allowed.has(docSeqs[id]!))) continue;
      const d = docOf[id]!;
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
      const norm = lengthNorm(stats, lengths[d]!);
      chunkScore[id] = chunkScore[id]! + termScore(weight, freqs[i]!, norm);
      if (termSeen[d] !== termStamp) {
        termSeen[d] = termStamp;
        docTf[d] = 0;
        termDocs.push(d);
      }
      docTf[d] = docTf[d]! + this.#ownFrequency(p, i, termId, id);
    }
    // A term only in what chunks repeat (frequency 0) adds nothing: skipped, as termScore would add exactly 0.
    for (const d of termDocs)
      if (docTf[d]! > 0) docScore[d] = docScore[d]! + termScore(weight, docTf[d]!, lengthNorm(stats, lengths[d]!));
    return termDocs;
  }

  /**
   * A term's document frequency: the live public documents holding it in any of their chunks (a document counts
   * once however many of its chunks hold it). Counted over the postings once, then kept until a write touches the
   * term (see Postings.publicDocs): counting it on every query read a common word's postings twice per query.
   */
  #publicDocuments(p: Postings): number {
    if (p.publicDocs >= 0) return p.publicDocs;
    const stamp = this.#scratch.nextStamp();
    const seen = this.#scratch.docTermSeen;
    const { alive, isPublic, docOf } = this.#chunks;
    const { ids, length } = p;
    let n = 0;
    for (let i = 0; i < length; i += 1) {
      const id = ids[i]!;
      if (alive[id] === 0 || isPublic[id] === 0) continue;
      const d = docOf[id]!;
      if (seen[d] === stamp) continue;
      seen[d] = stamp;
      n += 1;
    }
    p.publicDocs = n;
    return n;
  }

  /**
   * The weighted frequency of posting `i` of term `termId` counted in its chunk's own terms (ChunkTable.fresh): its
   * occurrences in the repeated title and the overlap with the chunk before are its document's already.
   */
  #ownFrequency(p: Postings, i: number, termId: number, id: number): number {
    const { fresh: freshAt, termStart, titleLengths, termPool } = this.#chunks;
    const fresh = freshAt[id]!;
    const freq = p.freqs[i]!;
    const firstAt = p.firstAt[i]!;
    if (fresh === 0 || firstAt >= fresh) return freq;
    const start = termStart[id]!;
    const title = titleLengths[id]!;
    let repeated = 0;
    for (let at = firstAt; at < fresh; at += 1)
      if (termPool[start + at] === termId) repeated += at < title ? this.#weights.title : this.#weights.content;
    return Math.max(0, freq - repeated);
  }

  /**
   * The best documents of `docs` (scores in the scratch's docScore) with their best chunks of `chunks` (scores in
   * its scores, cleared here; at most chunksPerHit of each), best first, until `depth` chunks; ties in document
   * order, then chunk order.
   */
  #rows(docs: readonly number[], chunks: readonly number[], depth: number): RankedChunk[] {
    const { docScore: docScores, docTermSeen: seen, docTf: rank, scores } = this.#scratch;
    const { docOf, chunkSeqs, docSeqs } = this.#chunks;
    const docIds = Int32Array.from(docs);
    const byScore = Float64Array.from(docs, (d) => docScores[d]!);
    const best = topByPosition(byScore, docs.length, Math.min(depth, docs.length), docIds);
    // Each best document's rank, in scratch per local doc id (a map lookup per matching chunk cost more than scoring).
    const stamp = this.#scratch.nextStamp();
    best.forEach((position, r) => {
      const d = docIds[position]!;
      seen[d] = stamp;
      rank[d] = r;
    });
    const byDoc: number[][] = best.map(() => []);
    for (const id of chunks) {
      const d = docOf[id]!;
      if (seen[d] === stamp) byDoc[rank[d]!]!.push(id);
    }
    const rows: RankedChunk[] = [];
    for (let r = 0; r < best.length && rows.length < depth; r += 1) {
      const d = docIds[best[r]!]!;
      const docScore = docScores[d]!;
      const own = byDoc[r]!.sort((x, y) => scores[y]! - scores[x]! || x - y);
      for (const id of own.slice(0, chunksPerHit)) {
        if (rows.length === depth) break;
        rows.push({ chunk: chunkSeqs[id]!, doc: docSeqs[id]!, score: scores[id]!, docScore });
      }
    }
    for (const id of chunks) scores[id] = 0;
    return rows;
  }
}
