import type { AnalysisLanguage } from '@godb/contract';
import type { Db } from '../../storage/database.js';
import { Bm25Index } from '../../text/bm25-index.js';
import { FtsTables, type StoredChunkText } from '../../text/fts-tables.js';
import { contentWeight, TextIndex, titleWeight } from '../../text/text-index.js';
import { stem } from '../../text/tokenize.js';
import { sameToken, type TextToken } from './text-token.js';

/** A tenant's index in a worker and the state (token) of the store it holds. */
interface Held {
  readonly index: Bm25Index;
  token: TextToken;
}

/**
 * Stored rows a worker indexes inside a query's read transaction at most, by default; beyond, it builds between
 * queries, so a first query of a large tenant is not held past its answer deadline by a build.
 */
const defaultInlineRows = 20_000;
/** Tenants' indexes a worker holds at most (least recently used dropped beyond): each is a copy of the main one. */
const heldTenants = 4;
const pageRows = 2000;
const weights = { title: titleWeight, content: contentWeight };

/**
 * A search worker's BM25 indexes (decision 0078): per tenant, a Bm25Index built from the FTS5 tables' stored rows
 * in chunk-seq order — as Bm25Indexes builds the main thread's — remembered with the token of the state it was
 * built from. A query brings the token the main thread's index had applied at dispatch; inside the query's read
 * transaction the worker makes its index that state: kept when equal, caught up by the rows after it when only
 * chunks were added (an import's stream), built again after any other change. Every build is checked against the
 * tables' row counts (FTS5's averages record), so a change the token misses is rebuilt rather than trusted.
 */
export class WorkerTextIndexes {
  readonly #tables: FtsTables;
  readonly #text: WorkerTextIndex;
  readonly #held = new Map<string, Held>();
  /** The tenant whose index the running query reads. */
  #current: string | undefined;
  readonly #inlineRows: number;

  constructor(db: Db, inlineRows = defaultInlineRows) {
    this.#inlineRows = inlineRows;
    this.#tables = new FtsTables(db);
    this.#text = new WorkerTextIndex(db, (tenantId) =>
      tenantId === this.#current ? this.#held.get(tenantId)?.index : undefined,
    );
  }

  /** The text index a worker's SearchCore ranks with: the held index of the tenant being queried. */
  get text(): TextIndex {
    return this.#text;
  }

  /**
   * Inside the query's read transaction, whose state is `token`: `ready` when the tenant's index is that state
   * (caught up or built here if that costs at most the inline rows), `build` when a build must run between queries
   * first (see build) and the main thread answers this one.
   */
  prepare(tenantId: string, token: TextToken): 'ready' | 'build' {
    this.#current = undefined;
    const tables = this.#text.tables(tenantId);
    if (!tables) return 'build';
    const stored = this.#tables.storedCount(tables.fts) + this.#tables.storedCount(tables.hidden);
    const held = this.#held.get(tenantId);
    if (!held || !sameToken(held.token, token)) {
      const extends_ = held !== undefined && held.token.epoch === token.epoch && held.token.chunks < token.chunks;
      const cost = extends_ ? stored - held.index.size : stored;
      if (cost > this.#inlineRows) return 'build';
      if (!this.#sync(tenantId, tables, token)) return 'build';
    }
    this.#use(tenantId);
    this.#current = tenantId;
    return 'ready';
  }

  /** Brings the tenant's index to the store's state now (`token`, read in the caller's read transaction), whole. */
  build(tenantId: string, token: TextToken): void {
    const tables = this.#text.tables(tenantId);
    if (tables) this.#sync(tenantId, tables, token);
  }

  /** Catches up or builds the tenant's index to `token`; false when the result disagrees with the tables. */
  #sync(tenantId: string, tables: { fts: string; hidden: string }, token: TextToken): boolean {
    let held = this.#held.get(tenantId);
    if (!held || held.token.epoch !== token.epoch || held.token.chunks > token.chunks) {
      held = { index: new Bm25Index(weights), token: { epoch: token.epoch, chunks: 0 } };
      this.#held.set(tenantId, held);
    }
    this.#addAfter(held.index, tables, held.token.chunks);
    held.token = token;
    const publicRows = this.#tables.storedCount(tables.fts);
    const ok =
      held.index.size === publicRows + this.#tables.storedCount(tables.hidden) &&
      held.index.stats.chunks === publicRows;
    if (!ok) this.#held.delete(tenantId);
    return ok;
  }

  /** Adds the stored rows after chunk seq `after` of both tables, merged in chunk-seq order (as a build adds them). */
  #addAfter(index: Bm25Index, tables: { fts: string; hidden: string }, after: number): void {
    const sources = [
      { read: this.#tables.storedRows(tables.fts), isPublic: true },
      { read: this.#tables.storedRows(tables.hidden), isPublic: false },
    ].map((s) => ({ ...s, page: [] as StoredChunkText[], at: 0, after, done: false }));
    for (;;) {
      let next: (typeof sources)[number] | undefined;
      for (const s of sources) {
        if (s.at === s.page.length && !s.done) {
          s.page = s.read(s.after, pageRows);
          s.at = 0;
          s.done = s.page.length < pageRows;
        }
        const head = s.page[s.at];
        if (head && (!next || head.seq < next.page[next.at]!.seq)) next = s;
      }
      if (!next) return;
      const row = next.page[next.at]!;
      next.at += 1;
      next.after = row.seq;
      index.add(row.seq, row.doc, row.title, row.content, next.isPublic);
    }
  }

  /** Marks the tenant most recently used; drops the least recently used beyond heldTenants. */
  #use(tenantId: string): void {
    const held = this.#held.get(tenantId)!;
    this.#held.delete(tenantId);
    this.#held.set(tenantId, held);
    for (const tenant of this.#held.keys()) {
      if (this.#held.size <= heldTenants) return;
      this.#held.delete(tenant);
    }
  }
}

/**
 * A TextIndex over a worker's read-only connection that ranks with the worker's held index (the seam of decision
 * 0069): `ranked` and `publicFrequencies` answer from it, as the main thread's answer from its ready index.
 */
class WorkerTextIndex extends TextIndex {
  readonly #index: (tenantId: string) => Bm25Index | undefined;

  constructor(db: Db, index: (tenantId: string) => Bm25Index | undefined) {
    super(db);
    this.#index = index;
  }

  override ranked(tenantId: string): Bm25Index | undefined {
    return this.#index(tenantId);
  }

  override publicFrequencies(
    tenantId: string,
    words: Iterable<string>,
    language: AnalysisLanguage | 'terms' = 'en',
  ): Map<string, number> {
    const index = this.#index(tenantId);
    if (!index) return super.publicFrequencies(tenantId, words, language);
    const out = new Map<string, number>();
    for (const word of words) out.set(word, index.publicChunks(language === 'terms' ? word : stem(word, language)));
    return out;
  }
}
