import { LRUCache } from 'lru-cache';
import type { ExactVectors } from '../vectors/exact-vectors.js';
import type { SearchRows } from '../access/search-rows.js';
import { matchesFilters, type FilterGroup, type FilterableDocument } from './filters.js';
import type { MatchEstimate } from './filter-estimates.js';

/** Filter sets remembered at most (the least recently used is forgotten first). */
const maxSets = 64;
/**
 * Memory all sets may hold together, in bytes (a document seq in a Set costs about 40, a key 8, a gathered vector
 * 4 per number): the least recently used sets are forgotten beyond it, and a filter whose documents alone would
 * take half of it is not remembered.
 */
const maxBytes = 256 * 2 ** 20;

/**
 * The live documents of a tenant (and collection) that a filter lets through, without the access rule: what a
 * filtered vector search may return, known before it looks at a single vector. With it, a selective filter scans
 * only its documents' vectors (exactly), and a broad one drops HNSW candidates by a set lookup instead of reading
 * and parsing each candidate's row.
 */
export interface AllowedSet {
  /**
   * How the set was made: from the collection's field indexes, by reading every document, or from the access
   * rule's indexes (the documents the viewer may read, when they are few).
   */
  readonly source: 'index' | 'scan' | 'access';
  /** Document seqs that match (a superset: a document deleted since may remain; hits are checked again). */
  readonly docs: ReadonlySet<number>;
  /**
   * The vector keys of those documents in a space (chunk seqs for a model, document vector seqs otherwise), as the
   * index's float32 copies hold them, each document's keys linked there (no read of the store).
   */
  keys(space: string, copies: ExactVectors): readonly number[];
  /**
   * The vectors of those keys gathered from the copies into one matrix (row i is `keys[i]`), for an exact scan at
   * memory speed; kept while the set lives and extended as documents are added.
   */
  vectors(space: string, copies: ExactVectors): { readonly keys: readonly number[]; readonly matrix: Float32Array };
}

/** A set's keys in one space, resolved from its documents, and the vectors of the first `gathered` of them. */
interface Gathered {
  readonly copies: ExactVectors;
  readonly keys: number[];
  /**
   * Documents of the set none of whose keys the copies held when last looked at: without a vector in the space, or
   * written but not yet applied to the index. Looked at again on every call (skipping them for good once left a
   * document out of every exact filtered scan until the next update or delete).
   */
  pending: number[];
  data: Float32Array;
  gathered: number;
}

interface Entry extends AllowedSet {
  readonly epoch: number;
  through: number;
  readonly docs: Set<number>;
  readonly bySpace: Map<string, Gathered>;
}

/** Reads live documents of a tenant (and table) with seqs in (after, through], with the fields filters read. */
export type FilterableScan = (
  tenant: string,
  table: string | undefined,
  after: number,
  through: number,
) => Iterable<FilterableDocument & { readonly seq: number }>;

/** A collection's field indexes as the filters' planner reads them (see indexed-filters.ts). */
export interface FilterPlanner {
  /**
   * The documents a filter lets through (a set made for the caller, which may keep and extend it), or undefined
   * when a condition is not on a ready index.
   */
  set(tenant: string, table: string, filters: FilterGroup): Set<number> | undefined;
  /** Bounds of how many documents that set holds, its postings counted up to `cap`; undefined as for `set`. */
  estimate(tenant: string, table: string, filters: FilterGroup, cap: number): MatchEstimate | undefined;
  /** Which of documents `docs` the filter lets through, from their postings; undefined as for `set`. */
  among(tenant: string, table: string, filters: FilterGroup, docs: ReadonlySet<number>): Set<number> | undefined;
}

/**
 * The allowed sets of recent filters, like a search engine's filter cache (Elasticsearch caches filter bitsets per
 * segment). A set stays valid while the store's document epoch is unchanged — a trigger bumps it on every UPDATE
 * or DELETE of a document row, so a new version, a delete, or a visibility or engagement change forgets every set;
 * documents added since are evaluated alone (seq after the set's last) and joined to it. Nothing is remembered
 * inside a write transaction, whose rows may still roll back.
 */
export class AllowedSets {
  readonly #store: SearchRows;
  readonly #scan: FilterableScan;
  readonly #plan: FilterPlanner | undefined;
  readonly #entries = new Map<string, Entry>();
  /** Filters seen once without a set, with the epoch they were seen at (the least recently seen forgotten first). */
  readonly #seen = new LRUCache<string, number>({ max: maxSets * 4 });

  constructor(store: SearchRows, scan: FilterableScan, plan?: FilterPlanner) {
    this.#store = store;
    this.#scan = scan;
    this.#plan = plan;
  }

  /**
   * Bounds of how many documents of a collection `filters` let through, from its field indexes without making the
   * set (postings counted up to `cap`); undefined when a condition is not on a ready index.
   */
  estimate(
    tenant: string,
    table: string | undefined,
    filters: FilterGroup | undefined,
    cap: number,
  ): MatchEstimate | undefined {
    if (table === undefined || !filters) return undefined;
    return this.#plan?.estimate(tenant, table, filters, cap);
  }

  /** Which of documents `docs` `filters` let through, from the field indexes (candidates of a broad filter). */
  among(
    tenant: string,
    table: string | undefined,
    filters: FilterGroup | undefined,
    docs: ReadonlySet<number>,
  ): Set<number> | undefined {
    if (table === undefined || !filters) return undefined;
    return this.#plan?.among(tenant, table, filters, docs);
  }

  /**
   * The documents of a tenant (and table) that `filters` let through; undefined inside a write transaction, the
   * first time a filter is seen since the last update, or when the set would be too large to keep.
   */
  get(tenant: string, table: string | undefined, filters: FilterGroup | undefined): AllowedSet | undefined {
    if (this.#store.inTransaction) return undefined;
    const id = JSON.stringify([tenant, table ?? null, filters ?? null]);
    const epoch = this.#store.epoch();
    let entry = this.#entries.get(id);
    this.#entries.delete(id);
    if ((!entry || entry.epoch !== epoch) && table !== undefined && filters) {
      // A filter on indexed fields: its set comes from the postings, as current as the store (issue #39).
      const last = this.#store.lastSeq();
      const planned = this.#plan?.set(tenant, table, filters);
      if (planned) {
        if (planned.size * 40 > maxBytes / 2) return undefined;
        // The planner's set is made for this call: adopted, not copied.
        entry = this.#empty(epoch, 'index', planned);
        entry.through = last;
      }
    }
    if (!entry || entry.epoch !== epoch) {
      // Building a set reads every document of the collection, which pays off only when the filter comes back
      // before the next update: it is built the second time a filter is seen at the same epoch. A workload that
      // updates between every query keeps the search's own path (candidates checked row by row).
      if (this.#seen.peek(id) !== epoch) {
        this.#seen.set(id, epoch);
        return undefined;
      }
      this.#seen.delete(id);
      entry = this.#empty(epoch, 'scan');
    }
    const last = this.#store.lastSeq();
    if (entry.through < last) {
      const added: number[] = [];
      for (const doc of this.#scan(tenant, table, entry.through, last)) {
        if (!filters || matchesFilters(doc, filters)) added.push(doc.seq);
      }
      if ((entry.docs.size + added.length) * 40 > maxBytes / 2) return undefined;
      for (const seq of added) entry.docs.add(seq);
      for (const g of entry.bySpace.values()) for (const seq of added) g.pending.push(seq);
      entry.through = last;
    }
    this.#entries.set(id, entry);
    this.#evict();
    return entry;
  }

  /**
   * An allowed set of given documents (the few a viewer may read), made for one search and not remembered: their
   * vector keys are looked up, and their vectors gathered, on demand as for any set.
   */
  of(docs: ReadonlySet<number>, source: 'access'): AllowedSet {
    const entry = this.#empty(this.#store.epoch(), source);
    for (const seq of docs) entry.docs.add(seq);
    return entry;
  }

  /** Forgets the least recently used sets beyond the count and memory budgets (the newest always stays). */
  #evict(): void {
    let total = 0;
    for (const entry of this.#entries.values()) total += bytesOf(entry);
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= 1 || (this.#entries.size <= maxSets && total <= maxBytes)) return;
      this.#entries.delete(id);
      total -= bytesOf(entry);
    }
  }

  #empty(epoch: number, source: AllowedSet['source'], docs = new Set<number>()): Entry {
    const bySpace = new Map<string, Gathered>();
    const resolved = (space: string, copies: ExactVectors): Gathered => {
      let g = bySpace.get(space);
      if (g?.copies !== copies) {
        g = { copies, keys: [], pending: [...docs], data: new Float32Array(0), gathered: 0 };
        bySpace.set(space, g);
      }
      if (g.pending.length > 0) {
        const still: number[] = [];
        for (const doc of g.pending) if (!copies.keysOf(doc, g.keys)) still.push(doc);
        g.pending = still;
      }
      return g;
    };
    return {
      source,
      epoch,
      through: 0,
      docs,
      bySpace,
      keys: (space, copies) => resolved(space, copies).keys,
      // Gathered only when scanned (the caller bounds that: maxGathered), then kept and extended.
      vectors: (space, copies) => {
        const g = resolved(space, copies);
        const dims = copies.dims;
        if (g.keys.length * dims > g.data.length) {
          const grown = new Float32Array(Math.max(g.keys.length, (g.data.length / dims) * 2) * dims);
          grown.set(g.data.subarray(0, g.gathered * dims));
          g.data = grown;
        }
        // Every key came from the copies (a write that removes one bumps the epoch: a new set).
        for (; g.gathered < g.keys.length; g.gathered += 1)
          copies.copyInto(g.keys[g.gathered]!, g.data, g.gathered * dims);
        return { keys: g.keys, matrix: g.data.subarray(0, g.keys.length * dims) };
      },
    };
  }
}

function bytesOf(entry: Entry): number {
  let bytes = entry.docs.size * 40;
  for (const g of entry.bySpace.values()) bytes += g.keys.length * 8 + g.data.byteLength;
  return bytes;
}
