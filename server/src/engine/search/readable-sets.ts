import { LRUCache } from 'lru-cache';
import { principalsOf } from '../access/access.js';
import type { ReadScope, SearchRows } from '../access/search-rows.js';

/** How long a "many readable documents" verdict is trusted while the store changes (it only picks a plan). */
const broadForMs = 1000;
/** Memory the kept readable sets may hold together (a seq in a Set costs about 40 bytes). */
const keptBytes = 128 * 2 ** 20;
const bytesPerSeq = 40;

interface Kept {
  readonly epoch: number;
  last: number;
  readonly seqs: Set<number>;
}

interface Broad {
  readonly epoch: number;
  readonly last: number;
  readonly at: number;
  /** The readable documents counted (the cap of that time): broad for any cap up to it. */
  readonly atLeast: number;
}

/**
 * The documents a viewer may read in a collection, from indexes, when they are few (issue #39: the access rule as
 * one more indexed predicate): the public live documents (the partial index documents_public) and those an access
 * entry of the viewer's principals lets them read (document_access_principal), each read up to a cap. A vector
 * search for a viewer who may read a few documents of a large collection then scans those, instead of checking HNSW
 * candidates one by one until enough are readable (which, under 0.1 %, ended in reading every document). Many
 * readable documents: the verdict is remembered while the store is unchanged (or for a second), so the common case
 * — a collection of public documents — costs a cache lookup.
 */
export class ReadableSets {
  readonly #rows: SearchRows;
  readonly #now: () => number;
  readonly #broad = new LRUCache<string, Broad>({ max: 4096 });
  readonly #kept = new LRUCache<string, Kept>({
    maxSize: keptBytes,
    sizeCalculation: (kept) => Math.max(1, kept.seqs.size * bytesPerSeq),
  });

  constructor(rows: SearchRows, now: () => number = () => performance.now()) {
    this.#rows = rows;
    this.#now = now;
  }

  /**
   * The live documents of the scope's tenant (and table) its viewer may read, when fewer than `cap`; undefined when
   * there are as many or more. A superset is never answered: exactly the documents the access rule lets through.
   *
   * @example const few = readable.few({ viewer, now: Date.now(), table: 'notes' }, 2000); // Set of seqs, or undefined
   */
  few(scope: ReadScope, cap: number): Set<number> | undefined {
    const tenant = scope.viewer.tenantId;
    // Not keyed by the cap, which grows with the space: under writes every search would miss the verdict.
    const key = JSON.stringify([tenant, scope.table ?? null, principalsOf(scope.viewer)]);
    const epoch = this.#rows.epoch();
    const last = this.#rows.lastSeq();
    const known = this.#broad.get(key);
    const fresh = known && ((known.epoch === epoch && known.last === last) || this.#now() - known.at < broadForMs);
    if (fresh && known.atLeast >= cap) return undefined;
    const publicSeqs = this.#rows.publicSeqs(tenant, scope.table, cap);
    const shared = publicSeqs.length < cap ? this.#rows.sharedSeqs(scope, cap - publicSeqs.length) : [];
    if (publicSeqs.length + shared.length >= cap) {
      this.#broad.set(key, { epoch, last, at: this.#now(), atLeast: Math.max(cap, fresh ? known.atLeast : 0) });
      return undefined;
    }
    const out = new Set(publicSeqs);
    for (const seq of shared) out.add(seq);
    return out;
  }

  /**
   * The live documents of the scope's tenant (and table) its viewer may read, when fewer than `cap`, kept for the
   * next searches: valid while no document row is updated or deleted (the store's epoch), and extended by the rows
   * written since (a rowid range). A vector search checks HNSW candidates against it in memory and reads rows for the
   * best few only, rather than reading a row for every candidate until enough are readable (a viewer who reads 5 % of
   * a collection: a row for some 300 candidates a query). A superset at worst (an access entry that expired since):
   * hits are checked against the rule again. Undefined inside a write transaction, whose rows may roll back.
   *
   * @example const readable = sets.kept({ viewer, now: Date.now(), table: 'notes' }, 50_000); // Set of seqs, or undefined
   */
  kept(scope: ReadScope, cap: number): ReadonlySet<number> | undefined {
    if (this.#rows.inTransaction) return undefined;
    const principals = principalsOf(scope.viewer);
    const key = JSON.stringify([scope.viewer.tenantId, scope.table ?? null, principals]);
    const epoch = this.#rows.epoch();
    const last = this.#rows.lastSeq();
    const kept = this.#kept.get(key);
    if (kept?.epoch === epoch) {
      if (kept.last < last) {
        for (const seq of this.#rows.readableSince(scope, kept.last)) kept.seqs.add(seq);
        kept.last = last;
        // Set again for its size (lru-cache computes it on a new entry only); no longer kept once past the cap.
        this.#kept.delete(key);
        if (kept.seqs.size < cap) this.#kept.set(key, kept);
      }
      return kept.seqs.size < cap ? kept.seqs : undefined;
    }
    const seqs = this.few(scope, cap);
    if (!seqs) return undefined;
    this.#kept.set(key, { epoch, last, seqs });
    return seqs;
  }
}
