import { systemClock, type Clock } from './clock.js';
import { OperationClock } from './operations/operation-clock.js';
import { ApiKeyStore } from './directory/api-key-store.js';
import { Directory } from './directory/directory.js';
import { join } from 'node:path';
import { Documents } from './documents/documents.js';
import { Maintenance } from './documents/maintenance.js';
import type { VectorIndexes } from './vectors/vector-index.js';
import { defaultVectorIndexOptions } from './vectors/vector-index-options.js';
import { Embedder, type EmbedderOptions } from './embeddings/embedder.js';
import { Rerankers, type RerankersOptions } from './rerank/rerankers.js';
import { DocumentFiles } from './files/document-files.js';
import { LocalObjectStore } from './files/local-object-store.js';
import type { ObjectStore } from './files/object-store.js';
import { Collections } from './collections/collections.js';
import { FieldIndexes } from './field-indexes/field-indexes.js';
import { JobStore } from './jobs/job-store.js';
import { FencedVectorIndexes } from './snapshots/fenced-vector-indexes.js';
import { OnlineRestore, type RestoreRetry } from './snapshots/online-restore.js';
import { Snapshots } from './snapshots/snapshots.js';
import { Outbox } from './mail/outbox.js';
import { SearchCore } from './search/search-core.js';
import { Searches } from './search/searches.js';
import { SearchPool, poolSize } from './search/search-pool/search-pool.js';
import { TextIndex } from './text/text-index.js';
import { answers, openDatabase, type Db } from './storage/database.js';

export interface EngineOptions {
  /** Folder of the embedded store, or `:memory:`. */
  readonly dataDir: string;
  readonly clock?: Clock;
  readonly embeddings: EmbedderOptions;
  /** The query pipeline's rerankers (RERANK_MODELS_DIR, RERANK_MODELS); default none. */
  readonly rerank?: RerankersOptions;
  /** Memory for float32 copies of indexed vectors (exact rescoring in memory), in bytes; default 1 GiB. */
  readonly vectorCacheBytes?: number;
  /** Memory for the HNSW indexes (LRU eviction beyond it), in bytes; default no limit. */
  readonly vectorIndexBytes?: number;
  /**
   * How concurrent vector queries are searched (see SearchBatches): on up to `threads` threads (0: one per core)
   * together, on indexes of at least `batchMinVectors`; default one per core from 250,000 vectors.
   */
  readonly search?: { readonly threads: number; readonly batchMinVectors: number };
  /**
   * Search workers (SearchPool): `threads` as SEARCH_THREADS (0: one per core; 1: none, every search on this
   * thread), at most `maxQueued` searches waiting or running in them. Without it, none.
   */
  readonly searchPool?: { readonly threads: number; readonly maxQueued: number };
  /** When vector indexes are checkpointed (see VectorIndexes.checkpoint); default 10,000 changes or 60 s. */
  readonly checkpoint?: { readonly writes: number; readonly intervalMs: number };
  /** Rows a tenant restore replaces per transaction (see OnlineRestore); default 2,000. */
  readonly restoreSliceRows?: number;
  /** How a tenant restore that fails part way is retried (see OnlineRestore); default three times, at once. */
  readonly restoreRetry?: RestoreRetry;
  /** Memory for the in-memory BM25 indexes (LRU eviction beyond it), in bytes; default no limit. */
  readonly textIndexBytes?: number;
  /** How long a vector query waits for a loading index: resolves when the wait is over; default no bound. */
  readonly indexWait?: () => Promise<void>;
  /**
   * Where uploaded document files are kept (the storage provider's files area); default DATA_DIR/files, and none
   * for an in-memory engine.
   */
  readonly files?: ObjectStore;
  /** Where snapshots are kept; default DATA_DIR/snapshots, and none for an in-memory engine. */
  readonly snapshots?: ObjectStore;
}

/** Memory one kind of derived state holds. */
export interface MemoryUse {
  readonly kind: 'vector_index' | 'vector_copies' | 'text_index' | 'row_cache';
  readonly bytes: number;
  readonly budget: number | null;
}

/** The database itself: a plain library, no transport, no environment. */
export interface Engine {
  readonly db: Db;
  readonly directory: Directory;
  readonly apiKeys: ApiKeyStore;
  readonly embedder: Embedder;
  readonly documents: Documents;
  readonly maintenance: Maintenance;
  readonly vectors: VectorIndexes;
  readonly collections: Collections;
  /** The collections' declared field indexes (issue #39). */
  readonly fieldIndexes: FieldIndexes;
  readonly text: TextIndex;
  readonly search: SearchCore;
  /** The search entry points: each answers a finished result (see search/searches.ts). */
  readonly searches: Searches;
  /** The search workers, when SEARCH_THREADS gives more than one and the store is on disk. */
  readonly searchPool: SearchPool | null;
  readonly jobs: JobStore;
  readonly outbox: Outbox;
  /** Uploaded document files, or null when this engine keeps none. */
  readonly files: DocumentFiles | null;
  /** Snapshots of the whole node or of a tenant, or null for an in-memory engine. */
  readonly snapshots: Snapshots | null;
  /** Restores of snapshots into this running node, or null for an in-memory engine. */
  readonly restore: OnlineRestore | null;
  /** The engine's clock: a write runs with it held at the time decided for the write (see OperationClock). */
  readonly clock: OperationClock;
  /** True while the store answers queries. */
  isHealthy(): boolean;
  /** Memory the derived state holds, by kind, with its budget (null: bounded otherwise, or not at all). */
  memory(): MemoryUse[];
  close(): Promise<void>;
}

/**
 * Opens the engine on a data folder.
 *
 * @example const engine = openEngine({ dataDir: './data', embeddings }); await engine.close();
 */
export function openEngine(options: EngineOptions): Engine {
  // Writes run at a time decided before they run (Documents: the time of the command, as the replicated log's
  // applier runs an operation at its `now`); cluster mode passes the applier's clock, which is one already.
  const given = options.clock ?? systemClock;
  const clock = given instanceof OperationClock ? given : new OperationClock(given);
  const db = openDatabase({ dataDir: options.dataDir });
  const directory = new Directory(db, clock);
  const embedder = new Embedder(options.embeddings);
  const onDisk = options.dataDir !== ':memory:';
  const collections = new Collections(db, embedder);
  const vectors = new FencedVectorIndexes(db, {
    ...defaultVectorIndexOptions,
    spaceSettings: (tenantId, space) => collections.spaceSettings(tenantId, space),
    ...(options.vectorCacheBytes !== undefined && { exactVectorBytes: options.vectorCacheBytes }),
    ...(options.vectorIndexBytes !== undefined && { indexMemoryBytes: options.vectorIndexBytes }),
    ...(options.checkpoint && { checkpoint: options.checkpoint }),
    ...(options.search && { search: options.search }),
    ...(options.indexWait && { wait: options.indexWait }),
    clock,
    dir: onDisk ? join(options.dataDir, 'vectors') : null,
  });
  const fileStore = options.files ?? (onDisk ? new LocalObjectStore(join(options.dataDir, 'files')) : null);
  const files = fileStore ? new DocumentFiles(db, fileStore) : null;
  const text = new TextIndex(db, {
    ...(options.textIndexBytes !== undefined && { budgetBytes: options.textIndexBytes }),
    dir: onDisk ? join(options.dataDir, 'text') : null,
    ...(options.checkpoint && { checkpoint: options.checkpoint }),
    now: () => clock.now(),
  });
  const fieldIndexes = new FieldIndexes(db);
  const documents = new Documents({ db, text, clock, embedder, vectors, files, collections, fieldIndexes });
  const maintenance = new Maintenance(db, vectors, text, clock);
  const jobs = new JobStore(db, clock);
  const snapshotStore = options.snapshots ?? (onDisk ? new LocalObjectStore(join(options.dataDir, 'snapshots')) : null);
  const snapshots =
    onDisk && snapshotStore
      ? new Snapshots({ vectors, dataDir: options.dataDir, store: snapshotStore, files: fileStore, clock })
      : null;
  const search = new SearchCore(db, text, vectors, fieldIndexes);
  // Indexes declared but not built (a restored tenant's) start building; builds under way continue.
  fieldIndexes.start();
  const restore = onDisk
    ? new OnlineRestore({
        db,
        text,
        vectors,
        files,
        dataDir: options.dataDir,
        clock,
        sliceRows: options.restoreSliceRows ?? 100_000,
        ...(options.restoreRetry && { retry: options.restoreRetry }),
      })
    : null;
  // A tenant whose rows a restore is replacing has no vector index meanwhile (see FencedVectorIndexes).
  if (restore) vectors.fence((tenantId) => restore.replacing(tenantId));
  const pooled = options.searchPool;
  const searchPool =
    onDisk && pooled && poolSize(pooled.threads) > 1
      ? new SearchPool({
          dbFile: join(options.dataDir, 'godb.sqlite'),
          threads: pooled.threads,
          maxQueued: pooled.maxQueued,
          view: (tenantId, space) => vectors.searchView(tenantId, space),
        })
      : null;
  const finite = (n: number) => (Number.isFinite(n) ? n : null);
  return {
    db,
    directory,
    apiKeys: new ApiKeyStore(db, clock),
    embedder,
    documents,
    maintenance,
    vectors,
    collections,
    fieldIndexes,
    text,
    search,
    searches: new Searches({
      core: search,
      embedder,
      collections,
      pool: searchPool ?? undefined,
      rerankers: options.rerank && new Rerankers(options.rerank),
    }),
    searchPool,
    jobs,
    outbox: new Outbox(db, clock),
    files,
    snapshots,
    restore,
    clock,
    memory: () => {
      const v = vectors.memory();
      const t = text.memory();
      return [
        { kind: 'vector_index', bytes: v.indexBytes, budget: finite(v.indexBudget) },
        { kind: 'vector_copies', bytes: v.copiesBytes, budget: finite(v.copiesBudget) },
        { kind: 'text_index', bytes: t.bytes, budget: finite(t.budget) },
        { kind: 'row_cache', bytes: search.rowCacheMemory().bytes, budget: null },
      ];
    },
    isHealthy: () => answers(db),
    close: async () => {
      await searchPool?.close(); // the searches it took finish first: their connections read the store
      await text.close();
      vectors.close();
      await embedder.close();
      if (db.open) {
        vectors.saveAll();
        db.close();
      }
    },
  };
}
