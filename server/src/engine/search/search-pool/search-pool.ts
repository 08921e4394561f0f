import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { createError } from '@godb/contract';
import { clientSpaceKey, type SpaceSettings } from '../../collections/vector-space.js';
import { startWorker } from '../../embeddings/worker-script.js';
import type { SearchView } from '../../vectors/search-views.js';
import type { Scope } from '../scope.js';
import type { SearchCore } from '../search-core.js';
import type { QueryAnalysis } from '../../text/query-analysis.js';
import type { TextRequest } from '../text-answer.js';
import type { HybridShown } from '../hybrid-answer.js';
import type { HybridQuery } from '../hybrid-search.js';
import type { ClientVectorRequest, ModelVectorRequest, SearchAnswer } from '../vector-answer.js';
import type { ClientVectorSpace } from '../vector-query.js';
import { broadFilterFrom } from '../vector-candidates.js';
import { exactBelow, type QueryVector } from '../vector-search.js';
import type { SearchReply, SearchTask, SearchWorkerData } from './pool-protocol.js';
import { textToken } from './text-token.js';

export interface SearchPoolOptions {
  /** The store's SQLite file (workers open it read-only). */
  readonly dbFile: string;
  /** Workers (SEARCH_THREADS; 0: one per core the process may run on but one). A pool of one is not made: see poolSize. */
  readonly threads: number;
  /** Searches waiting or running at most (MAX_CONCURRENT_OPERATIONS); beyond, 503 OVERLOADED. */
  readonly maxQueued: number;
  /** The view of a space's index a worker may search instead of the main thread, if any (VectorIndexes.searchView). */
  readonly view: (tenantId: string, space: string) => Omit<SearchView, 'index'> | undefined;
  /** Stored rows a worker indexes inside a text query at most (default 20,000); beyond, it builds between queries. */
  readonly textInlineRows?: number;
}

/**
 * How many search workers SEARCH_THREADS asks for (a pool is made from 2): N is N; 1 is none, every search on the
 * main thread as before the pool; 0, the default, is one per core the process may run on (`availableParallelism`,
 * which honours `taskset` and cgroup CPU sets) but the first, which stays the HTTP thread's — so none on two cores.
 * bench:cores on 2 cores (decision 0051): two workers took half the main thread's CPU per query off it but cost the
 * process about twice the CPU per query, so with no idle core the pool answered 0.55–0.70× the QPS of no pool.
 */
export const poolSize = (threads: number): number =>
  threads === 0 ? Math.max(1, availableParallelism() - 1) : Math.max(1, threads);

/**
 * The storage kinds whose searches a worker answers exactly as the main thread (decision 0069): f32, f16 and i8.
 * A b1 collection's graph ranks by Hamming distance, whose many ties the mapped view and the graph in memory broke
 * differently (other ids on the first of 12 queries of issue-40-search-pool.test.ts), so its searches stay here.
 */
const pooledStorages: ReadonlySet<SpaceSettings['storage']> = new Set(['f32', 'f16', 'i8']);

/** Whether a request gives a query vector (an empty string gives none). */
const hasVector = (vector: unknown) => vector !== undefined && vector !== null && vector !== '';

interface Pending {
  readonly task: SearchTask;
  readonly resolve: (answer: SearchAnswer | undefined) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
  worker?: Slot;
}

interface Slot {
  readonly worker: Worker;
  running?: Pending;
  /** Set once the pool ended it (an abort, close): its exit is not a crash. */
  ended?: boolean;
  /** It builds a tenant's text index (between a `building` reply and `built`): it takes no task meanwhile. */
  building?: boolean;
  /** Resolves once its thread exited. */
  readonly exited: Promise<void>;
}

/**
 * Search workers (issue #40, decision 0051): whole searches — candidates, rescoring, row reads under the access rule,
 * the result view — run on worker threads, each with its own read-only SQLite connection and memory-mapped views of
 * the indexes, so searches use every core while the main thread parses HTTP. A search goes to a worker only when
 * the worker can answer exactly what the main thread would: today a vector search (by a collection's own vector,
 * or by embedding in no collection, its query embedded here) without filters or geo, on a space past the
 * exact-scan size whose graph in memory is the file last saved or loaded with nothing in its tail
 * (vectors/search-views.ts); the worker checks, inside its read transaction, that no write to the space
 * committed since (else `stale`, and the main thread answers). Everything else, and every search the pool cannot
 * take, runs on the main thread: `undefined` tells the caller to.
 *
 * A worker that dies running a query is replaced and its query answered 503 SEARCH_WORKER_FAILED; a query whose
 * signal aborts (the answer deadline, the client gone) is answered at once and its worker set aside: a new one takes
 * its place, and the old one is stopped once it has finished the query, idle (see #abort); close() waits for the
 * searches under way, then stops the workers.
 */
export class SearchPool {
  readonly #options: SearchPoolOptions;
  readonly #size: number;
  readonly #slots: Slot[] = [];
  readonly #queue: Pending[] = [];
  /** Workers whose query was abandoned (#abort): stopped once they answer it. */
  readonly #setAside = new Set<Slot>();
  #ids = 0;
  #closing = false;
  #drained: (() => void) | undefined;
  /** Answers given by workers, stale views seen, workers replaced after a crash or a stop (for tests and metrics). */
  readonly counts = { answered: 0, stale: 0, replaced: 0, textAnswered: 0, textBuilds: 0, hybridAnswered: 0 };
  /**
   * Called with a task's worker just before the task is posted to it (tests stop the worker there, to see a crash
   * answered: a worker stopped before the message reaches it never runs it).
   */
  sending: ((worker: Worker) => void) | undefined;

  constructor(options: SearchPoolOptions) {
    this.#options = options;
    this.#size = poolSize(options.threads);
  }

  /** Workers building a text index now (they take no search until done). */
  get building(): number {
    return this.#slots.filter((s) => s.building).length;
  }

  /** Workers the pool runs (started on the first search it takes). */
  get size(): number {
    return this.#size;
  }

  /**
   * The answer of a search by a collection's own vector made by a worker, or undefined when the main thread must
   * make it (see the class).
   */
  async clientVector(
    core: SearchCore,
    scope: Scope,
    target: ClientVectorSpace,
    q: ClientVectorRequest,
  ): Promise<SearchAnswer | undefined> {
    if (!this.#plain(scope) || !hasVector(q.vector)) return undefined;
    if (!pooledStorages.has(target.settings.storage)) return undefined;
    const space = clientSpaceKey(target.collection, target.name);
    const base = await this.#base(core, scope, space, target.settings.dimensions, q.limit);
    if (!base) return undefined;
    const { signal, ...request } = q;
    return this.#submit({ ...base, kind: 'client-vector', target, request }, signal);
  }

  /**
   * The answer of a search by embedding (its query vector `given`, made on the main thread) made by a worker, or
   * undefined when the main thread must make it. Only without `primary_table`: a model's index is shared by the
   * tenant's collections, so one collection's search is a restricted one (allowed sets, the main thread's copies).
   */
  async modelVector(
    core: SearchCore,
    scope: Scope,
    q: ModelVectorRequest,
    given: QueryVector,
  ): Promise<SearchAnswer | undefined> {
    if (!this.#plain(scope) || scope.table !== undefined) return undefined;
    const base = await this.#base(core, scope, given.model, given.dims, q.limit);
    if (!base) return undefined;
    const { signal, ...request } = q;
    return this.#submit({ ...base, kind: 'model-vector', request, given }, signal);
  }

  /**
   * The answer of a BM25 match or phrase search made by a worker (decision 0078), or undefined when the main thread
   * must make it: a wildcard (its expansions), filters or a geo restriction (the field indexes live here), or a
   * tenant whose in-memory index is not ready here (FTS5 ranks meanwhile, by best chunk: not the worker's scores).
   * The task carries the text token this thread's index has applied (writes are on this thread and apply at
   * commit), so the worker answers that state or none (`stale`, and this thread answers).
   */
  async text(
    core: SearchCore,
    scope: Scope,
    q: TextRequest,
    analysis: QueryAnalysis,
  ): Promise<SearchAnswer | undefined> {
    if (!this.#plain(scope) || (q.type !== 'match' && q.type !== 'phrase') || q.query.trim() === '') return undefined;
    if (!core.text.ranked(scope.viewer.tenantId)) return undefined;
    const task: SearchTask = {
      id: (this.#ids += 1),
      kind: 'text',
      scope: { viewer: scope.viewer, now: scope.now, ...(scope.table !== undefined && { table: scope.table }) },
      token: textToken(core.rows),
      request: q,
      analysis,
    };
    const answer = await this.#submit(task, undefined);
    if (answer) this.counts.textAnswered += 1;
    return answer;
  }

  /**
   * The answer of a hybrid search made by a worker — by a collection's own vector, or by embedding with its query
   * vector made here (`given`) and no `primary_table` (as modelVector) — or undefined when the main thread must make
   * it: with a learned ranking (its engagement reads), with filters or geo, or when either side could not be answered
   * alike there (see clientVector, modelVector and text).
   */
  async hybrid(
    core: SearchCore,
    scope: Scope,
    query: HybridQuery,
    shown: HybridShown,
  ): Promise<SearchAnswer | undefined> {
    if (!this.#plain(scope) || query.useMlRanking) return undefined;
    const target = query.space;
    let space: string;
    let dims: number;
    if (target) {
      if (!hasVector(query.vector)) return undefined;
      if (!pooledStorages.has(target.settings.storage)) return undefined;
      space = clientSpaceKey(target.collection, target.name);
      dims = target.settings.dimensions;
    } else {
      if (!query.given || scope.table !== undefined) return undefined;
      space = query.given.model;
      dims = query.given.dims;
    }
    const words = query.text !== undefined && query.text.trim() !== '';
    if (words && !core.text.ranked(scope.viewer.tenantId)) return undefined;
    // Its vector side asks for twice the limit (hybrid-search.ts).
    const base = await this.#base(core, scope, space, dims, query.limit * 2);
    if (!base) return undefined;
    const { signal, space: _space, ...request } = query;
    const task: SearchTask = {
      ...base,
      kind: 'hybrid',
      ...(target && { target }),
      request,
      shown: { explain: shown.explain, highlight: shown.highlight },
      ...(words && { token: textToken(core.rows) }),
    };
    const answer = await this.#submit(task, signal);
    if (answer) this.counts.hybridAnswered += 1;
    return answer;
  }

  /** No filters and no geo restriction: the searches a worker may take. */
  #plain(scope: Scope): boolean {
    // A partitioned collection's part (its count's predicate is a function, which a worker cannot be sent).
    return (
      !this.#closing &&
      scope.filters === undefined &&
      scope.geo === undefined &&
      !scope.requireGeo &&
      scope.counted === undefined
    );
  }

  /**
   * The scope and view of a task on `space`, when its view is current and past the exact-scan size, and its viewer
   * may read many documents: one who may read few has them scanned exactly by the main thread, from the float32
   * copies a worker does not hold (vector-search.ts), which a worker could not answer alike.
   */
  async #base(core: SearchCore, scope: Scope, space: string, dims: number, limit: number) {
    const tenantId = scope.viewer.tenantId;
    try {
      await core.vectors.ready(tenantId, space, dims);
    } catch {
      return undefined; // the main thread answers the same error
    }
    const view = this.#options.view(tenantId, space);
    if (!view || view.dims !== dims || view.size <= exactBelow) return undefined;
    // The main thread's threshold at the largest over-fetch (b1's ×10) bounds the one it would use.
    if (core.readable.few(scope, broadFilterFrom(limit * 10, view.size))) return undefined;
    return {
      id: (this.#ids += 1),
      scope: { viewer: scope.viewer, now: scope.now, ...(scope.table !== undefined && { table: scope.table }) },
      space,
      settings: core.vectors.settings(tenantId, space),
      view,
    };
  }

  /** Waits for the searches taken, then stops the workers; later searches run on the main thread. */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#queue.length > 0 || this.#slots.some((s) => s.running))
      await new Promise<void>((done) => (this.#drained = done));
    await Promise.all(
      this.#slots.splice(0).map((slot) => {
        slot.ended = true;
        return slot.worker.terminate();
      }),
    );
    await Promise.all([...this.#setAside].map((slot) => slot.exited));
  }

  #submit(task: SearchTask, signal: AbortSignal | undefined): Promise<SearchAnswer | undefined> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Every worker building a text index: this thread answers rather than wait for one.
    if (this.#slots.length >= this.#size && this.#slots.every((s) => s.building)) return Promise.resolve(undefined);
    const running = this.#slots.filter((s) => s.running).length;
    if (this.#queue.length + running >= this.#options.maxQueued)
      return Promise.reject(createError('OVERLOADED', { max: this.#options.maxQueued }));
    return new Promise<SearchAnswer | undefined>((resolve, reject) => {
      const pending: Pending = {
        task,
        resolve,
        reject,
        signal,
        onAbort: () => this.#abort(pending),
      };
      signal?.addEventListener('abort', pending.onAbort, { once: true });
      this.#queue.push(pending);
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => !s.running && !s.building);
      // Workers set aside count too: at most twice the pool's threads at once, however many queries are abandoned.
      if (!slot && this.#slots.length < this.#size && this.#slots.length + this.#setAside.size < 2 * this.#size)
        slot = this.#start();
      if (!slot) return;
      const pending = this.#queue.shift()!;
      slot.running = pending;
      pending.worker = slot;
      this.sending?.(slot.worker);
      slot.worker.postMessage(pending.task);
    }
  }

  #start(): Slot {
    const data: SearchWorkerData = { dbFile: this.#options.dbFile, textInlineRows: this.#options.textInlineRows };
    const worker = startWorker('search-worker', { workerData: data }, import.meta.url);
    const slot: Slot = { worker, exited: new Promise((done) => worker.once('exit', () => done())) };
    worker.unref();
    worker.on('message', (reply: SearchReply) => this.#reply(slot, reply));
    worker.on('error', () => {}); // its exit follows, handled there
    worker.on('exit', () => this.#exited(slot));
    this.#slots.push(slot);
    return slot;
  }

  #reply(slot: Slot, reply: SearchReply): void {
    if (this.#setAside.has(slot)) {
      // The abandoned query's answer: the worker is idle now, safe to stop — unless it builds a text index next
      // (a long native read): then once it says `built`.
      if (!('building' in reply)) void slot.worker.terminate();
      return;
    }
    if ('built' in reply) {
      slot.building = false;
      this.#next();
      return;
    }
    const pending = slot.running;
    if (!pending || pending.task.id !== reply.id) return;
    slot.running = undefined;
    this.#settle(pending);
    if ('answer' in reply) {
      this.counts.answered += 1;
      pending.resolve(reply.answer);
    } else {
      if ('stale' in reply) this.counts.stale += 1;
      if ('building' in reply) {
        slot.building = true;
        this.counts.textBuilds += 1;
      }
      pending.resolve(undefined);
    }
    this.#next();
  }

  #exited(slot: Slot): void {
    this.#setAside.delete(slot);
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots.splice(at, 1);
    const pending = slot.running;
    slot.running = undefined;
    if (pending) {
      this.#settle(pending);
      pending.reject(createError('SEARCH_WORKER_FAILED', { reason: 'the worker thread exited' }));
    }
    if (!slot.ended || pending) this.counts.replaced += 1;
    this.#next();
  }

  /**
   * A query's signal aborted: dropped from the queue, or its worker set aside (replaced by the next dispatch) and
   * stopped once it answers. Not stopped now: a worker thread terminated inside a native call (usearch's search)
   * aborts the whole process on Node.js 24 — node-addon-api throws where nothing catches it ("terminate called
   * after throwing an instance of 'Napi::Error'") — and a query is short (its deadline has passed, not its work).
   */
  #abort(pending: Pending): void {
    const queued = this.#queue.indexOf(pending);
    if (queued >= 0) this.#queue.splice(queued, 1);
    const slot = pending.worker;
    if (slot?.running === pending) {
      slot.running = undefined;
      slot.ended = true;
      const at = this.#slots.indexOf(slot);
      if (at >= 0) this.#slots.splice(at, 1);
      this.#setAside.add(slot);
      this.counts.replaced += 1;
    }
    this.#settle(pending);
    pending.reject(pending.signal?.reason);
    this.#next();
  }

  #settle(pending: Pending): void {
    pending.signal?.removeEventListener('abort', pending.onAbort);
  }

  #next(): void {
    this.#dispatch();
    if (this.#drained && this.#queue.length === 0 && !this.#slots.some((s) => s.running)) {
      const drained = this.#drained;
      this.#drained = undefined;
      drained();
    }
  }
}
