import {
  createError,
  GoDBError,
  isGoDBError,
  visibilities,
  type AclChange,
  type AclEntry,
  type Collection,
  type DocumentInput,
  type UpdateCollectionRequest,
} from '@godb/contract';
import { unixSeconds, type Clock } from '../clock.js';
import type { OperationClock } from '../operations/operation-clock.js';
import { defaultEmbedOptions, type Embedder, type EmbedOptions } from '../embeddings/embedder.js';
import type { DocumentFiles } from '../files/document-files.js';
import type { StoredObject } from '../files/object-store.js';
import type { Db } from '../storage/database.js';
import { transaction } from '../storage/transaction.js';
import {
  accessStamp,
  activeOwners,
  canRead,
  decidedStamp,
  isOwner,
  type DecidedOn,
  type DeletionFacts,
  type DocumentAccessFacts,
} from '../access/access.js';
import { EngagementStore } from './engagement-store.js';
import { DocumentStore, type WrittenChunk } from './document-store.js';
import { chunkView, documentView, type ViewFlags } from './document-view.js';
import { embeddingTextOf, prepareDocument } from './prepare.js';
import { withGivenModelVector } from './given-model-vector.js';
import type { DocumentFields, DocumentRow, PreparedDocument, Viewer } from './types.js';
import type { VectorIndexes } from '../vectors/vector-index.js';
import type { TextIndex } from '../text/text-index.js';
import { defaultVectorName, type Collections } from '../collections/collections.js';
import { clientSpaceKey, defaultHnsw } from '../collections/vector-space.js';
import type { DocumentWrites, OperationLog } from '../operations/operation.js';

/** The fields a partial update may change. */
export interface DocumentPatch {
  readonly title?: string | undefined;
  readonly metadata?: Record<string, unknown> | undefined;
  readonly tags?: string[] | undefined;
  readonly categories?: string[] | undefined;
  readonly location?: readonly [number, number] | undefined;
  readonly lang_code?: string | undefined;
  readonly external_id?: string | undefined;
  readonly source_url?: string | undefined;
  readonly vector?: number[] | undefined;
  readonly vectors?: Record<string, number[]> | undefined;
}

/** A float32 copy of a stored vector (the row's buffer is reused by the driver). */
const copyVector = (blob: Buffer) =>
  new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));

/** Two given vectors for the same name (`vector` is the default one, and `vectors` names it too) are refused. */
function refuseRepeatedNames(resolved: readonly { name: string }[], given: readonly { field: string }[]): void {
  const seen = new Map<string, number>();
  resolved.forEach((v, i) => {
    const first = seen.get(v.name);
    if (first !== undefined) {
      throw createError(
        'VALIDATION_FAILED',
        { detail: `${given[i]!.field} and ${given[first]!.field} both give vector "${v.name}"` },
        { field: given[i]!.field },
      );
    }
    seen.set(v.name, i);
  });
}

/** Counters add to the stored totals; every other engagement field replaces the stored value. */
export const accumulatingEngagement: readonly string[] = [
  'clicks',
  'likes',
  'dislikes',
  'dwell_time',
  'views',
  'engagements',
  'shares',
  'bookmarks',
  'comments',
];

export interface DocumentsDeps {
  readonly db: Db;
  readonly text: TextIndex;
  /** The engine's clock, held at a write's decided time while the write runs (see OperationClock). */
  readonly clock: Clock & Pick<OperationClock, 'during'>;
  readonly embedder: Embedder;
  readonly vectors: VectorIndexes;
  /** Where uploaded files are kept; null keeps none (an in-memory engine). */
  readonly files: DocumentFiles | null;
  readonly collections: Collections;
}

type VectorChanges = Map<string, { added: WrittenChunk[]; removed: number[]; generation: number }>;

/** One write's documents as its steps pass them on: whose, where each came from in the request, its stored file. */
interface WriteBatch {
  readonly viewer: Viewer;
  readonly prepared: readonly PreparedDocument[];
  readonly path: (i: number) => string;
  /** The key of the file stored for each document that carries one. */
  readonly stored: ReadonlyMap<PreparedDocument, string>;
  readonly decidedOn?: DecidedOn | undefined;
}

function withField(error: unknown, field: string): unknown {
  return isGoDBError(error) && error.field === undefined
    ? new GoDBError(error.code, error.message, field, error.details ? { ...error.details } : undefined)
    : error;
}

function embedOptionsOf(doc: PreparedDocument): EmbedOptions {
  const p = doc.fields.embedding_options?.preprocessing ?? {};
  return {
    normalize: true,
    maxTokens: p.max_tokens ?? defaultEmbedOptions.maxTokens,
    overlap: p.overlap ?? defaultEmbedOptions.overlap,
    strategy: p.strategy ?? defaultEmbedOptions.strategy,
  };
}

/**
 * The collection as the write will find it: an implicit collection (or one the write creates) gains a vector named
 * after the model that embeds the document (see Collections.prepareWrite), so a vector given under that name is
 * the model's.
 */
function withImplicitModelVector(
  collection: Collection | undefined,
  table: string,
  model: { name: string; dimensions: number },
): Collection | undefined {
  if (collection && (!collection.implicit || collection.vectors[model.name])) return collection;
  const settings = { dimensions: model.dimensions, distance: 'cosine', storage: 'f16', model: model.name } as const;
  return {
    ...(collection ?? { name: table, description: '', implicit: true, created_at: 0, updated_at: 0 }),
    vectors: { ...collection?.vectors, [model.name]: { ...settings, hnsw: defaultHnsw } },
  };
}

/** The id of the current version of an archived version's id (`report@v2` → `report`). */
const currentIdOf = (archivedId: string) => archivedId.replace(/@v\d+$/, '');

/** INVALID_VISIBILITY unless `visibility` is one of public, private, shared (checked before anything is read). */
export function refuseUnknownVisibility(visibility: string): void {
  if (!(visibilities as readonly string[]).includes(visibility)) {
    throw createError('INVALID_VISIBILITY', { value: visibility }, { field: 'body.visibility' });
  }
}

/**
 * Documents: validation, chunking, embedding, and writes that keep the text, geo and vector indexes consistent
 * with the store. Every read goes through the access rule; a document the caller may not see is not found.
 */
export class Documents {
  readonly store: DocumentStore;
  readonly #deps: DocumentsDeps;
  readonly #engagement: EngagementStore;
  /** Cluster mode: the replicated log that takes this node's writes (null: the embedded store, written here). */
  #log: OperationLog | null = null;
  /** Cluster mode, while an operation of the log is applied: in-memory index updates wait for its commit. */
  #held: (() => void)[] | null = null;

  constructor(deps: DocumentsDeps) {
    this.#deps = deps;
    this.store = new DocumentStore(deps.db, deps.text);
    this.#engagement = new EngagementStore(deps.db);
  }

  now(): number {
    return unixSeconds(this.#deps.clock);
  }

  /**
   * The embedded store's seam where cluster mode has the log: a write is given its time (`now`, ms) before it runs —
   * before its files are stored, its rows read or written — and runs with the clock held there, so every timestamp
   * it writes is that time, as the applier runs an operation at the `now` its taking node decided.
   */
  #at<T>(now: number, work: () => T): T {
    return this.#deps.clock.during(now, work);
  }

  /**
   * Runs `work`, whose writes join the caller's transaction, with the in-memory index updates they make held back
   * until it returns: the applier of the replicated log commits a whole operation with its sequence, and the
   * indexes follow only a transaction that committed. A nested call hands its updates to the outer one; a call
   * that throws drops its own.
   *
   * @example documents.holdingIndexUpdates(() => transaction(db, [text], () => documents.writeNow(viewer, docs, path)));
   */
  holdingIndexUpdates<T>(work: () => T): T {
    const outer = this.#held;
    const held: (() => void)[] = [];
    this.#held = held;
    let result: T;
    try {
      result = work();
    } finally {
      this.#held = outer;
    }
    if (outer) outer.push(...held);
    else for (const update of held) update();
    return result;
  }

  /** Runs an update of the in-memory indexes now, or after the commit of the operation being applied. */
  #afterCommit(update: () => void): void {
    if (this.#held) this.#held.push(update);
    else update();
  }

  /**
   * One of the synchronous writes of {@link DocumentWrites} (visibility, ACL, engagement): here, or in cluster mode
   * through the replicated log, applied on every node with the time the taking node decided.
   *
   * @example await documents.change('setVisibility', viewer, 'report', 'public');
   */
  async change<M extends keyof DocumentWrites>(
    method: M,
    ...args: Parameters<DocumentWrites[M]>
  ): Promise<ReturnType<DocumentWrites[M]>> {
    type Result = ReturnType<DocumentWrites[M]>;
    if (!this.#log)
      return this.#at(this.#deps.clock.now(), () => (this[method] as (...a: unknown[]) => Result).apply(this, args));
    return (await this.#log.submit({ kind: 'documents', method, args } as never)) as Result;
  }

  /** Changes a collection's settings (see Collections.update), here or in cluster mode through the log. */
  async updateCollection(
    tenantId: string,
    name: string,
    patch: UpdateCollectionRequest,
    now: number,
  ): Promise<Collection> {
    if (this.#log) {
      return (await this.#log.submit({ kind: 'update-collection', tenantId, name, body: patch })) as Collection;
    }
    return this.updateCollectionNow(tenantId, name, patch, now);
  }

  /** Changes a collection's settings here; the vector indexes whose ef_search changed reload after the commit. */
  updateCollectionNow(tenantId: string, name: string, patch: UpdateCollectionRequest, now: number): Collection {
    const { collection, reload } = this.#deps.collections.update(tenantId, name, patch, now);
    this.#afterCommit(() => {
      for (const vectorName of reload) this.#deps.vectors.reload(tenantId, clientSpaceKey(collection.name, vectorName));
    });
    return collection;
  }

  /** Cluster mode: writes go through `log` from now on. */
  useLog(log: OperationLog): void {
    this.#log = log;
  }

  /**
   * Validates, chunks and embeds documents, then writes them all in one transaction: with one invalid document,
   * nothing is written. `path(i)` names the i-th document in errors (`body` or `body[3]`). When `signal` aborts
   * before the write (the client went away, or its deadline passed while embedding), nothing is written: a
   * request that was answered with an error never changes the store afterwards. Who may write over an existing id
   * is not checked here: the service decides it (service/documents/write-documents.ts); this is for callers that
   * decided themselves (benchmarks, engine tests).
   */
  async add(
    viewer: Viewer,
    inputs: readonly DocumentInput[],
    path: (i: number) => string,
    signal?: AbortSignal,
  ): Promise<{ id: string; version: number }[]> {
    const prepared = this.prepare(viewer, inputs, path);
    signal?.throwIfAborted();
    await this.embed(prepared, signal);
    signal?.throwIfAborted();
    return this.write(viewer, prepared, path, signal);
  }

  /**
   * The facts a write over existing documents is decided on (service/documents/document-policy.ts `mayOverwrite`):
   * for each of `ids` that names a stored document — live or soft-deleted, readable or not — its access entries and
   * their stamp, which the write carries as `decidedOn` so that it runs only on the access it was decided on.
   */
  overwriteFacts(viewer: Viewer, ids: readonly string[]): Map<string, DocumentAccessFacts> {
    const now = this.now();
    const facts = new Map<string, DocumentAccessFacts>();
    for (const id of ids) {
      const row = this.store.row(viewer.tenantId, id);
      if (!row) continue;
      const access = this.store.access(row.seq);
      facts.set(id, { id, superseded: row.superseded !== 0, access, now, stamp: accessStamp(access) });
    }
    return facts;
  }

  /**
   * Holds background vector indexing while a bulk import writes: its writes are answered without sharing the
   * thread with HNSW insertion, and searches compare the vectors not indexed yet exactly. Call the returned
   * function when the import ends.
   */
  deferIndexing(): () => void {
    return this.#deps.vectors.deferIndexing();
  }

  /** Validation, chunking and model resolution; no I/O. */
  prepare(viewer: Viewer, inputs: readonly DocumentInput[], path: (i: number) => string): PreparedDocument[] {
    const seen = new Map<string, number>();
    return inputs.map((input, i) => {
      const doc = prepareDocument(input, viewer.userId, path(i));
      const first = seen.get(doc.id);
      if (first !== undefined) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `${path(i)}.id "${doc.id}" repeats ${path(first)}.id` },
          { field: `${path(i)}.id` },
        );
      }
      seen.set(doc.id, i);
      const modelField = `${path(i)}.embedding_options.model_name`;
      const model = this.#deps.collections.modelFor(viewer.tenantId, doc.primaryTable, doc.model, modelField);
      const collection = this.#deps.collections.get(viewer.tenantId, doc.primaryTable);
      if (model === null) return withGivenModelVector({ ...doc, model: null }, collection);
      let resolved: { name: string; dimensions: number };
      try {
        resolved = this.#deps.embedder.resolve(model || undefined);
      } catch (error) {
        throw withField(error, `${path(i)}.embedding_options.model_name`);
      }
      return withGivenModelVector(
        { ...doc, model: resolved.name },
        withImplicitModelVector(collection, doc.primaryTable, resolved),
        doc.model ? resolved.name : undefined,
      );
    });
  }

  /**
   * Embeds every chunk of the prepared documents, grouped by model and preprocessing options. An aborted `signal`
   * (the caller went away) stops before the next group and drops its queued embedding jobs.
   */
  async embed(prepared: readonly PreparedDocument[], signal?: AbortSignal): Promise<void> {
    const groups = new Map<
      string,
      { model: string; options: EmbedOptions; chunks: { doc: PreparedDocument; index: number }[] }
    >();
    for (const doc of prepared) {
      // A document that gives the vector its model would fill is not embedded (see given-model-vector.ts).
      if (doc.model === null || doc.givenModelVector !== undefined) continue;
      const options = embedOptionsOf(doc);
      const key = JSON.stringify([doc.model, options]);
      const group = groups.get(key) ?? { model: doc.model, options, chunks: [] };
      doc.chunks.forEach((_c, index) => group.chunks.push({ doc, index }));
      groups.set(key, group);
    }
    for (const group of groups.values()) {
      const texts = group.chunks.map(({ doc, index }) => embeddingTextOf(doc, doc.chunks[index]!));
      const embeddings = await this.#deps.embedder.embed(group.model, texts, group.options, signal);
      group.chunks.forEach(({ doc, index }, i) => {
        doc.chunks[index]!.vector = embeddings[i]!.vector;
      });
    }
  }

  /**
   * Writes prepared (and embedded) documents in one transaction, then updates the in-memory vector indexes. Their
   * files (`file_content`) are stored first, each under a new key, and deleted again when the transaction fails
   * or `signal` aborts before it: a document is never written without its file, nor a file left without one.
   * Documents without files are written before this returns, with no turn of the event loop in between.
   */
  write(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    signal?: AbortSignal,
    decidedOn?: DecidedOn,
  ): Promise<{ id: string; version: number }[]> {
    if (this.#log) return this.#submitWrite(this.#log, viewer, prepared, path, signal, undefined, decidedOn);
    return this.writeHere(viewer, prepared, path, signal, decidedOn);
  }

  /** Cluster mode: the write goes through the replicated log, and every node applies it with writeHere. */
  async #submitWrite(
    log: OperationLog,
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    signal?: AbortSignal,
    expectedVersion?: number,
    decidedOn?: DecidedOn,
  ): Promise<{ id: string; version: number }[]> {
    // Files go to the cluster's shared store first (the JetStream object store, or the S3 bucket), and the operation
    // carries their keys, not their bytes: every node records the same key, and any node downloads the file.
    const stored = await this.#uploadFiles(viewer, prepared);
    const keys = [...stored.values()];
    try {
      signal?.throwIfAborted();
      const written = (await log.submit({
        kind: 'write-documents',
        viewer: { tenantId: viewer.tenantId, userId: viewer.userId, groups: [...viewer.groups] },
        documents: prepared.map((doc) => (stored.has(doc) ? { ...doc, fileContent: undefined } : doc)),
        paths: prepared.map((_d, i) => path(i)),
        ...(expectedVersion !== undefined && { expectedVersion }),
        ...(decidedOn !== undefined && { decidedOn }),
        ...(keys.length > 0 && { fileKeys: prepared.map((doc) => stored.get(doc) ?? null) }),
      })) as { id: string; version: number }[];
      if (keys.length > 0) await this.#discardUnnamed(viewer.tenantId, prepared, stored, written);
      return written;
    } catch (error) {
      // Refused (by every node alike, or before it was published): no row names the files. A 5xx may be in the log
      // all the same (CLUSTER_LAGGING says so), so its files stay.
      if (keys.length > 0 && (!isGoDBError(error) || error.status < 500)) await this.#deps.files?.discard(keys);
      throw error;
    }
  }

  /**
   * A request sent again with its Idempotency-Key after its first attempt was applied is answered that attempt's
   * outcome, and the versions it wrote name that attempt's files: the files this attempt uploaded are named by no
   * row, so they are removed from the shared store instead of staying there unnamed. A version that is gone since
   * (purged) says nothing, and its file stays.
   */
  async #discardUnnamed(
    tenantId: string,
    prepared: readonly PreparedDocument[],
    stored: ReadonlyMap<PreparedDocument, string>,
    written: readonly { id: string; version: number }[],
  ): Promise<void> {
    const unnamed = prepared.flatMap((doc, i) => {
      const key = stored.get(doc);
      const version = written[i]?.version;
      if (key === undefined || version === undefined) return [];
      const recorded = this.store.filePathOf(tenantId, doc.id, version);
      return recorded !== undefined && recorded !== key ? [key] : [];
    });
    if (unnamed.length > 0) await this.#deps.files?.discard(unnamed);
  }

  /**
   * Writes on this node only: the embedded store, or an operation of the replicated log being applied. It takes
   * write()'s arguments.
   */
  writeHere(
    ...[viewer, prepared, path, signal, decidedOn]: Parameters<Documents['write']>
  ): Promise<{ id: string; version: number }[]> {
    const now = this.#deps.clock.now(); // the write's time, decided before its files are stored
    if (!this.#deps.files || prepared.every((doc) => doc.fileContent === undefined)) {
      try {
        const batch = { viewer, prepared, path, stored: new Map(), decidedOn };
        return Promise.resolve(this.#at(now, () => this.#commit(batch)));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return this.#writeWithFiles(viewer, prepared, path, now, signal, decidedOn);
  }

  /**
   * Cluster mode: writes an operation's documents synchronously, inside the applier's transaction. Operations
   * carry no file content: the taking node stored the files in the shared store, and `fileKeys` names them (one
   * entry per document, null for none), so there is nothing to upload here.
   */
  writeNow(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    decidedOn?: DecidedOn,
    fileKeys?: readonly (string | null)[],
  ): { id: string; version: number }[] {
    const stored = new Map<PreparedDocument, string>();
    prepared.forEach((doc, i) => {
      const key = fileKeys?.[i];
      if (key) stored.set(doc, key);
    });
    return this.#commit({ viewer, prepared, path, stored, decidedOn });
  }

  async #writeWithFiles(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    now: number,
    signal?: AbortSignal,
    decidedOn?: DecidedOn,
  ): Promise<{ id: string; version: number }[]> {
    const stored = await this.#uploadFiles(viewer, prepared);
    const changes: VectorChanges = new Map();
    let result: { id: string; version: number }[];
    try {
      signal?.throwIfAborted();
      result = this.#at(now, () => this.#writeRows({ viewer, prepared, path, stored, decidedOn }, changes));
    } catch (error) {
      await this.#deps.files?.discard([...stored.values()]);
      throw error;
    }
    this.#apply(viewer.tenantId, changes);
    return result;
  }

  /** The rows in one transaction, then the in-memory vector indexes. */
  #commit(batch: WriteBatch): { id: string; version: number }[] {
    const changes: VectorChanges = new Map();
    const result = this.#writeRows(batch, changes);
    this.#apply(batch.viewer.tenantId, changes);
    return result;
  }

  /** Stores the files of the documents that carry one, a few at a time; answers each document's key. */
  async #uploadFiles(viewer: Viewer, prepared: readonly PreparedDocument[]): Promise<Map<PreparedDocument, string>> {
    const stored = new Map<PreparedDocument, string>();
    const files = this.#deps.files;
    if (!files) return stored;
    const pending = prepared.filter((doc) => doc.fileContent !== undefined);
    const uploadNext = async (): Promise<void> => {
      for (let doc = pending.shift(); doc; doc = pending.shift()) {
        stored.set(doc, await files.upload(viewer.tenantId, doc.id, Buffer.from(doc.fileContent!, 'base64')));
      }
    };
    const uploads = Array.from({ length: Math.min(4, pending.length) }, uploadNext);
    const outcomes = await Promise.allSettled(uploads);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) {
      await files.discard([...stored.values()]);
      throw failed.reason;
    }
    return stored;
  }

  #writeRows(batch: WriteBatch, changes: VectorChanges): { id: string; version: number }[] {
    const { viewer, prepared, path, stored, decidedOn } = batch;
    const now = this.now();
    return transaction(this.#deps.db, [this.#deps.text], () => {
      const out = prepared.map((doc, i) => {
        const existing = this.store.row(viewer.tenantId, doc.id);
        // Who may write over an existing id is the service's decision (document-policy.ts `mayOverwrite`), taken on
        // overwriteFacts; the write runs only on the access it was decided on: a document that appeared, went, or
        // whose entries changed since is refused (ACCESS_CHANGED) on every node alike.
        if (decidedOn !== undefined) {
          const stamp = existing ? accessStamp(this.store.access(existing.seq)) : undefined;
          if (stamp !== decidedStamp(decidedOn, doc.id))
            throw createError('ACCESS_CHANGED', { id: doc.id }, { field: `${path(i)}.id` });
        }
        if (doc.parentDocId !== undefined) {
          this.readable(viewer, doc.parentDocId, `${path(i)}.parent_doc_id`);
          this.#refuseCycle(viewer.tenantId, doc.id, doc.parentDocId, `${path(i)}.parent_doc_id`);
        }
        const fields: DocumentFields = { ...doc.fields };
        const version = existing ? existing.version + 1 : 1;
        const embedded = doc.model !== null && doc.chunks.length > 0 ? doc.model : null;
        const vectors = this.#deps.collections.prepareWrite(
          viewer.tenantId,
          doc.primaryTable,
          embedded,
          doc.vectors,
          now,
          doc.givenModelVector,
        );
        refuseRepeatedNames(vectors, doc.vectors);
        if (existing) {
          this.#removeVectors(changes, existing);
          const removed = this.store.archive(existing);
          if (existing.model) this.#change(changes, existing.model).removed.push(...removed);
          fields.previous_doc_id = `${existing.id}@v${existing.version}`;
        }
        const filePath = stored.get(doc);
        if (filePath !== undefined) fields.file_path = filePath;
        const { seq, chunks } = this.store.insert(
          viewer.tenantId,
          doc.ownerId ?? viewer.userId,
          doc,
          version,
          now,
          fields,
        );
        if (doc.model && chunks.length > 0) this.#change(changes, doc.model).added.push(...chunks);
        // A given model vector (space null) is searched through the first chunk, in the model's index.
        for (const { space, chunk } of this.store.insertVectors(seq, viewer.tenantId, doc.primaryTable, vectors))
          if (space !== null) this.#change(changes, space).added.push(chunk);
        return { id: doc.id, version };
      });
      this.#bump(viewer.tenantId, changes);
      return out;
    });
  }

  /**
   * A live document the viewer may read; 404 otherwise (whether it is missing, deleted or hidden). An older
   * version (`id@v2`) also follows its document's current access: making a document private, revoking a grant or
   * deleting it hides every earlier version too.
   */
  readable(viewer: Viewer, id: string, field?: string): DocumentRow {
    const row = this.store.row(viewer.tenantId, id);
    if (!row || !this.#mayRead(viewer, row)) {
      throw createError('NOT_FOUND', { resource: 'Document', id }, field ? { field } : {});
    }
    return row;
  }

  #mayRead(viewer: Viewer, row: DocumentRow): boolean {
    const now = this.now();
    const readable = (r: DocumentRow) =>
      r.deleted_at === null && canRead(r.visibility, this.store.access(r.seq), viewer, now);
    if (!readable(row)) return false;
    if (!row.superseded) return true;
    // An older version needs its own access and its document's current access: losing access to a document, or
    // its deletion, hides every version, and a new document written later under the same id opens none of them.
    const current = this.store.row(viewer.tenantId, currentIdOf(row.id));
    return current !== undefined && !current.superseded && readable(current);
  }

  /** A document cannot be its own ancestor: walks up from `parentId` (remembering where it has been). */
  #refuseCycle(tenantId: string, id: string, parentId: string, field: string): void {
    const seen = new Set<string>();
    for (let at: string | null = parentId; at !== null && !seen.has(at);) {
      if (at === id) {
        throw createError(
          'VALIDATION_FAILED',
          {
            detail: `${field}: ${parentId} is ${id} or one of its descendants, and a document cannot be its own ancestor`,
          },
          { field },
        );
      }
      seen.add(at);
      at = this.store.row(tenantId, at)?.parent_doc_id ?? null;
    }
  }

  /** The row when it is a soft-deleted document (not an older version) that the viewer owns. */
  #deletedOwnedBy(viewer: Viewer, row: DocumentRow | undefined): DocumentRow | undefined {
    return row && row.deleted_at !== null && !row.superseded && isOwner(this.store.access(row.seq), viewer, this.now())
      ? row
      : undefined;
  }

  /** The live children of a document that the viewer may read (the others are not shown, not even their ids). */
  #readableChildren(viewer: Viewer, id: string): DocumentRow[] {
    return this.store.childIds(viewer.tenantId, id).flatMap((childId) => {
      const child = this.store.row(viewer.tenantId, childId);
      return child && this.#mayRead(viewer, child) ? [child] : [];
    });
  }

  /**
   * The row and fields as `viewer` may see them: links to documents they cannot read (the parent, declared
   * children, edges) are left out, as the graph leaves such edges out, so no id of an unreadable document shows.
   */
  #asSeenBy(viewer: Viewer, row: DocumentRow): { row: DocumentRow; fields: DocumentFields } {
    const fields = JSON.parse(row.fields) as DocumentFields;
    const visible = (id: string) => {
      const linked = this.store.row(viewer.tenantId, id);
      return linked !== undefined && this.#mayRead(viewer, linked);
    };
    return {
      row: row.parent_doc_id !== null && !visible(row.parent_doc_id) ? { ...row, parent_doc_id: null } : row,
      fields: {
        ...fields,
        ...(fields.child_doc_ids && { child_doc_ids: fields.child_doc_ids.filter(visible) }),
        ...(fields.edges && { edges: fields.edges.filter((e) => visible(e.target_id)) }),
      },
    };
  }

  /** The document (or chunk, `doc#3`) as the API shows it. */
  get(viewer: Viewer, id: string, flags: ViewFlags): Record<string, unknown> {
    const chunkMatch = /^(.+)#(\d+)$/.exec(id);
    if (chunkMatch && !this.store.row(viewer.tenantId, id)) {
      const parent = this.readable(viewer, chunkMatch[1]!);
      const chunk = this.store.chunks(parent.seq).find((c) => c.chunk_index === Number(chunkMatch[2]));
      if (!chunk) throw createError('NOT_FOUND', { resource: 'Document', id });
      const seen = this.#asSeenBy(viewer, parent);
      return chunkView(seen.row, seen.fields, chunk, flags);
    }
    const { row, fields } = this.#asSeenBy(viewer, this.readable(viewer, id));
    const access = this.store.access(row.seq);
    const given = flags.include_embeddings ? this.store.vectors(row.seq) : [];
    const collection = this.#deps.collections.get(viewer.tenantId, row.primary_table);
    return documentView(
      {
        row,
        fields,
        access,
        chunks: this.store.chunks(row.seq),
        childIds: this.#readableChildren(viewer, row.id).map((c) => c.id),
        engagementEvents: flags.include_stats ? this.#engagement.count(viewer.tenantId, row.id) : 0,
        showAcl: isOwner(access, viewer, this.now()),
        givenNames: flags.include_embeddings ? given.map((v) => v.name) : this.store.vectorNames(row.seq),
        ...(flags.include_embeddings && {
          vectors: Object.fromEntries(
            given.map((v) => [
              v.name,
              Array.from(new Float32Array(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength / 4)),
            ]),
          ),
        }),
        modelVectorNames: Object.fromEntries(
          Object.entries(collection?.vectors ?? {}).flatMap(([name, v]) =>
            v.model !== undefined ? [[v.model, name] as const] : [],
          ),
        ),
      },
      flags,
    );
  }

  /**
   * A partial update: a new version with the given fields changed and everything else as it was. Chunks keep their
   * model vectors unless the title changed (it is part of every chunk's embedded text); your vectors not named in
   * the update are kept. Needs the edit or owner role; the owner and ACL stay the document's.
   */
  async patch(
    viewer: Viewer,
    id: string,
    patch: DocumentPatch,
    signal?: AbortSignal,
    decidedOn?: string,
  ): Promise<{ id: string; version: number }> {
    const row = this.readable(viewer, id);
    if (row.superseded) {
      throw createError('VALIDATION_FAILED', { detail: `${id} is an earlier version: update ${currentIdOf(id)}` });
    }
    // Who may update is the service's decision (service/documents/document-policy.ts), taken before this runs on the
    // access stamped `decidedOn`: the new version is written only on that access (ACCESS_CHANGED otherwise).
    const access = this.store.access(row.seq);
    const fields = JSON.parse(row.fields) as DocumentFields;
    const title = patch.title ?? row.title;
    const reembed = row.model !== null && title !== row.title;
    const stored = this.store.chunks(row.seq);
    const given = new Map(
      this.store
        .vectors(row.seq)
        .map((v) => [v.name, { name: v.name, vector: copyVector(v.vector), field: `body.vectors.${v.name}` }]),
    );
    const collection = this.#deps.collections.get(viewer.tenantId, row.primary_table);
    for (const v of prepareDocument(
      { ...(patch.vector && { vector: patch.vector }), ...(patch.vectors && { vectors: patch.vectors }) },
      viewer.userId,
      'body',
    ).vectors) {
      // The unnamed vector replaces the collection's default one, as an add reads it: a default vector a model
      // fills is not taken by the unnamed vector (the vector named `default` is).
      const defaultVector = collection?.default_vector;
      const name =
        v.name !== ''
          ? v.name
          : defaultVector !== undefined && collection?.vectors[defaultVector]?.model === undefined
            ? defaultVector
            : defaultVector === undefined
              ? ''
              : defaultVectorName;
      given.delete(name);
      given.set(name, { ...v, name });
    }
    const location =
      patch.location ?? (row.lat !== null && row.lon !== null ? ([row.lat, row.lon] as const) : undefined);
    const unembedded: PreparedDocument = {
      id: row.id,
      title,
      content: row.content,
      visibility: row.visibility,
      primaryTable: row.primary_table,
      parentDocId: row.parent_doc_id ?? undefined,
      location,
      createdAt: row.created_at,
      updatedAt: undefined,
      indexedAt: undefined,
      fields: {
        ...fields,
        ...(patch.metadata !== undefined && { metadata: patch.metadata }),
        ...(patch.tags !== undefined && { tags: patch.tags }),
        ...(patch.categories !== undefined && { categories: patch.categories }),
        ...(patch.lang_code !== undefined && { lang_code: patch.lang_code }),
        ...(patch.external_id !== undefined && { external_id: patch.external_id }),
        ...(patch.source_url !== undefined && { source_url: patch.source_url }),
      },
      acl: access
        .filter((a) => a.role !== 'list')
        .map((a) => ({
          user_id: a.principal,
          role: a.role as AclEntry['role'],
          ...(a.expires_at !== null && { expires_at: a.expires_at }),
        })),
      chunks: stored.map((c) => ({
        content: c.content,
        start: c.start_offset,
        end: c.end_offset,
        ...(!reembed && c.vector !== null && { vector: copyVector(c.vector) }),
      })),
      model: row.model,
      fileContent: undefined,
      ownerId: row.owner_id,
      vectors: [...given.values()],
    };
    // A vector given for the model's name (now or with an earlier version) stays the document's: not re-embedded.
    const prepared = withGivenModelVector(unembedded, collection);
    if (reembed) await this.embed([prepared], signal);
    signal?.throwIfAborted();
    // Cluster mode: applied only if no other write of the document came first in the log (DOCUMENT_CHANGED).
    const decided = decidedOn === undefined ? undefined : { [row.id]: decidedOn };
    const [written] = this.#log
      ? await this.#submitWrite(this.#log, viewer, [prepared], () => 'body', undefined, row.version, decided)
      : await this.writeHere(viewer, [prepared], () => 'body', undefined, decided);
    return written!;
  }

  /** Records engagement: counters add up, other fields are set; the event is kept with the user id. */
  engage(viewer: Viewer, id: string, engagement: Record<string, unknown>): string[] {
    const row = this.readable(viewer, id);
    const fields = JSON.parse(row.fields) as DocumentFields;
    const stored: Record<string, unknown> = { ...(fields.engagement ?? {}) };
    const updated = Object.keys(engagement).filter((k) => engagement[k] !== undefined);
    for (const name of updated) {
      const value = engagement[name];
      stored[name] =
        accumulatingEngagement.includes(name) && typeof value === 'number' ? Number(stored[name] ?? 0) + value : value;
    }
    const now = this.now();
    this.#deps.db.transaction(() => {
      this.store.updateFields(
        row.seq,
        { ...fields, engagement: stored, ...(engagement.feedback !== undefined && { feedback: engagement.feedback }) },
        now,
      );
      this.#engagement.record(viewer.tenantId, row.id, viewer.userId, now, engagement);
    })();
    return updated;
  }

  /**
   * The facts a decision about a document is taken on (service/documents/document-policy.ts): the document as the
   * viewer may read it (NOT_FOUND otherwise), its access entries, the time they were read, and their stamp, which a
   * change carries so that it is applied only to the access it was decided on (see {@link setVisibility}).
   */
  accessFacts(viewer: Viewer, id: string): DocumentAccessFacts {
    const row = this.readable(viewer, id);
    const access = this.store.access(row.seq);
    return { id: row.id, superseded: row.superseded !== 0, access, now: this.now(), stamp: accessStamp(access) };
  }

  /** Refuses a change decided on other access entries than the document has now (ACCESS_CHANGED). */
  #refuseChangedAccess(row: DocumentRow, decidedOn: string | undefined): void {
    if (decidedOn !== undefined && decidedOn !== accessStamp(this.store.access(row.seq))) {
      throw createError('ACCESS_CHANGED', { id: row.id });
    }
  }

  /**
   * Sets a document's visibility. Who may is decided by the service before this runs; `decidedOn` (the stamp of
   * {@link accessFacts}) makes the change apply only if the document's access is still the one it was decided on:
   * in cluster mode another change of it may come first in the log, and every node then refuses this one alike.
   */
  setVisibility(viewer: Viewer, id: string, visibility: string, decidedOn?: string): void {
    refuseUnknownVisibility(visibility);
    const row = this.readable(viewer, id);
    this.#refuseChangedAccess(row, decidedOn);
    // In a transaction with the text index as listener: its in-memory statistics follow once the change commits.
    transaction(this.#deps.db, [this.#deps.text], () => this.store.setVisibility(row, visibility, this.now()));
  }

  /**
   * add (or replace) entries, update existing ones, or remove them; the last owner stays. Who may (owners) is decided
   * by the service before this runs, on the access stamped `decidedOn` (see {@link setVisibility}).
   */
  updateAcl(
    viewer: Viewer,
    id: string,
    operation: 'add' | 'update' | 'remove',
    entries: readonly AclChange[],
    decidedOn?: string,
  ): void {
    const row = this.readable(viewer, id);
    this.#refuseChangedAccess(row, decidedOn);
    const now = this.now();
    const access = this.store.access(row.seq);
    const acl = new Map(
      access
        .filter((a) => a.role !== 'list')
        .map((a) => [
          a.principal,
          {
            user_id: a.principal,
            role: a.role,
            ...(a.expires_at !== null && { expires_at: a.expires_at }),
          } as AclEntry,
        ]),
    );
    entries.forEach((entry, i) => {
      if (operation !== 'add' && !acl.has(entry.user_id)) {
        throw createError(
          'INVALID_ACL',
          { reason: `there is no ACL entry for user ${entry.user_id} to ${operation}` },
          { field: `body.acl[${i}].user_id` },
        );
      }
      if (operation === 'remove') {
        acl.delete(entry.user_id);
        return;
      }
      if (entry.role === undefined) {
        throw createError(
          'INVALID_ACL',
          { reason: `a role (owner, edit or view) is required to ${operation} an entry` },
          { field: `body.acl[${i}].role` },
        );
      }
      acl.set(entry.user_id, {
        user_id: entry.user_id,
        role: entry.role,
        ...(entry.expires_at !== undefined && { expires_at: entry.expires_at }),
      });
    });
    const next = [...acl.values()];
    if (
      activeOwners(
        next.map((e) => ({ principal: e.user_id, role: e.role, expires_at: e.expires_at ?? null })),
        now,
      ) === 0
    ) {
      throw createError('LAST_OWNER', { id });
    }
    const fields = JSON.parse(row.fields) as DocumentFields;
    this.store.setAccess(row.seq, next, fields.access_list ?? []);
  }

  /**
   * The file uploaded with a document (or with an earlier version, `id@v2`), if the viewer may read the document.
   * NOT_FOUND when there is none.
   */
  async file(
    viewer: Viewer,
    id: string,
  ): Promise<StoredObject & { readonly name: string; readonly contentType: string | undefined }> {
    const row = this.readable(viewer, id);
    const fields = JSON.parse(row.fields) as DocumentFields;
    const stored = fields.file_path !== undefined ? await this.#deps.files?.open(fields.file_path) : undefined;
    if (!stored) throw createError('NOT_FOUND', { resource: 'File of document', id });
    return { ...stored, name: row.id, contentType: fields.content_type };
  }

  /**
   * Deletes (hides, or with `permanent` purges) a document, and with `recursive` its descendants. A purge
   * deletes the documents' stored files too (every version's); a hidden document keeps its file until then.
   */
  async delete(viewer: Viewer, id: string, options: DeleteOptions): Promise<number> {
    if (this.#log) {
      const { recursive, permanent, decidedOn } = options;
      return (await this.#log.submit({
        kind: 'delete-document',
        viewer,
        documentId: id,
        recursive,
        permanent,
        ...(decidedOn !== undefined && { decidedOn }),
      })) as number;
    }
    return this.deleteHere(viewer, id, options);
  }

  /**
   * The facts a delete is decided on (document-policy.ts `mayDelete`): the documents it would delete — the document
   * and, with `recursive`, its descendants — each with its access entries and their stamp. NOT_FOUND for a document
   * the viewer cannot read, and FORBIDDEN when a descendant is one (the read rule: it is neither deleted nor named).
   */
  deletion(viewer: Viewer, id: string, options: { recursive: boolean; permanent: boolean }): DeletionFacts {
    const now = this.now();
    const targets = this.#deleteTargets(viewer, id, options).map((row) => {
      const access = this.store.access(row.seq);
      return { id: row.id, access, stamp: accessStamp(access) };
    });
    return { targets, now };
  }

  /** Deletes on this node only (see delete). */
  async deleteHere(viewer: Viewer, id: string, options: DeleteOptions): Promise<number> {
    const { removed, tail } = this.#at(this.#deps.clock.now(), () => this.deleteNow(viewer, id, options));
    await tail();
    return removed;
  }

  /**
   * The rows of a delete, synchronously (inside the applier's transaction in cluster mode); `tail` deletes purged
   * files and is called once the rows committed.
   */
  deleteNow(viewer: Viewer, id: string, options: DeleteOptions): { removed: number; tail: () => Promise<void> } {
    const now = this.now();
    const targets = this.#deleteTargets(viewer, id, options);
    // Who may delete is the service's decision (document-policy.ts `mayDelete`), taken on `deletion`; the delete
    // runs only on what it was decided on: the same documents, each with the same access (ACCESS_CHANGED otherwise).
    const { decidedOn } = options;
    if (decidedOn !== undefined) {
      const changed =
        targets.find((target) => decidedStamp(decidedOn, target.id) !== accessStamp(this.store.access(target.seq))) ??
        (targets.length !== Object.keys(decidedOn).length ? targets[0] : undefined);
      if (changed) throw createError('ACCESS_CHANGED', { id: changed.id });
    }
    return { removed: targets.length, tail: this.#removeNow(viewer.tenantId, targets, options.permanent, now) };
  }

  /** The documents a delete takes: the document and, with `recursive`, its descendants (see deletion). */
  #deleteTargets(viewer: Viewer, id: string, options: { recursive: boolean; permanent: boolean }): DocumentRow[] {
    // A soft-deleted document can still be purged by its owner (and only purged).
    const root =
      (options.permanent && this.#deletedOwnedBy(viewer, this.store.row(viewer.tenantId, id))) ||
      this.readable(viewer, id);
    const targets = [root];
    // Each document once, even if the data holds a parent cycle (made before cycles were refused).
    const seen = new Set([root.seq]);
    if (options.recursive) {
      for (let i = 0; i < targets.length; i += 1) {
        const id = targets[i]!.id;
        for (const childId of this.store.childIds(viewer.tenantId, id, { deleted: options.permanent })) {
          const row = this.store.row(viewer.tenantId, childId);
          // Live children the caller may read; when purging, also soft-deleted ones it owns.
          const child =
            row && this.#mayRead(viewer, row) ? row : options.permanent ? this.#deletedOwnedBy(viewer, row) : undefined;
          // A child the caller cannot read is neither deleted nor named.
          if (!child) {
            throw createError('FORBIDDEN', {
              reason: `deleting ${id} recursively needs the owner role on every child document, and you cannot read some of them`,
            });
          }
          if (seen.has(child.seq)) continue;
          seen.add(child.seq);
          targets.push(child);
        }
      }
    }
    return targets;
  }

  /**
   * Deletes (hides, or purges) the given live documents that the viewer owns, in one transaction; documents it
   * may read but not delete are skipped, and ids it cannot read are ignored (callers pass ids they found readable).
   * Children are left alone (delete by filter is not recursive). Keep batches to a few hundred ids.
   */
  async deleteSome(
    viewer: Viewer,
    ids: readonly string[],
    permanent: boolean,
    decidedOn?: DecidedOn,
  ): Promise<{ deleted: number; skipped: number }> {
    if (this.#log) {
      return (await this.#log.submit({
        kind: 'delete-some',
        viewer: { tenantId: viewer.tenantId, userId: viewer.userId, groups: [...viewer.groups] },
        ids,
        permanent,
        ...(decidedOn !== undefined && { decidedOn }),
      })) as { deleted: number; skipped: number };
    }
    const { value, tail } = this.#at(this.#deps.clock.now(), () =>
      this.deleteSomeNow(viewer, ids, permanent, decidedOn),
    );
    await tail();
    return value;
  }

  /**
   * The facts a delete by filter is decided on, one batch of matched ids at a time (document-policy.ts
   * `deletable`): the live current documents among `ids` that the viewer may read, each with its access and stamp;
   * ids it cannot read are left out (callers pass ids they found readable).
   */
  batchDeletion(viewer: Viewer, ids: readonly string[]): DeletionFacts {
    const now = this.now();
    const targets = ids.flatMap((id) => {
      const row = this.store.row(viewer.tenantId, id);
      if (!row || row.superseded || !this.#mayRead(viewer, row)) return [];
      const access = this.store.access(row.seq);
      return [{ id: row.id, access, stamp: accessStamp(access) }];
    });
    return { targets, now };
  }

  /**
   * The rows of deleteSome, synchronously; `tail` deletes purged files once they committed. Who may delete is the
   * service's decision (`deletable`); with `decidedOn`, a document whose access is not the one decided on (changed
   * meanwhile, or not decided at all) is left in place and counted in `skipped`.
   */
  deleteSomeNow(
    viewer: Viewer,
    ids: readonly string[],
    permanent: boolean,
    decidedOn?: DecidedOn,
  ): { value: { deleted: number; skipped: number }; tail: () => Promise<void> } {
    const now = this.now();
    let skipped = 0;
    const targets = ids.flatMap((id) => {
      const row = this.store.row(viewer.tenantId, id);
      if (!row || row.superseded || !this.#mayRead(viewer, row)) return [];
      if (decidedOn !== undefined && decidedStamp(decidedOn, row.id) !== accessStamp(this.store.access(row.seq))) {
        skipped += 1;
        return [];
      }
      return [row];
    });
    const tail = this.#removeNow(viewer.tenantId, targets, permanent, now);
    return { value: { deleted: targets.length, skipped }, tail };
  }

  /**
   * Removes a collection: every version of its documents (permanently, with their files), its vector indexes and
   * its settings, in one transaction. Returns the number of documents (current versions) removed. The caller
   * decides who may (tenant admins).
   */
  async deleteCollection(tenantId: string, name: string): Promise<number> {
    if (this.#log) return (await this.#log.submit({ kind: 'delete-collection', tenantId, name })) as number;
    return this.deleteCollectionHere(tenantId, name);
  }

  /** Removes a collection on this node only (see deleteCollection). */
  async deleteCollectionHere(tenantId: string, name: string): Promise<number> {
    const { removed, tail } = this.#at(this.#deps.clock.now(), () => this.deleteCollectionNow(tenantId, name));
    await tail();
    return removed;
  }

  /** The rows of a collection's removal, synchronously; `tail` deletes its files once they committed. */
  deleteCollectionNow(tenantId: string, name: string): { removed: number; tail: () => Promise<void> } {
    const collection = this.#deps.collections.require(tenantId, name);
    const changes: VectorChanges = new Map();
    const rows = this.store.collectionRows(tenantId, name);
    transaction(this.#deps.db, [this.#deps.text], () => {
      for (const row of rows) {
        const path = (JSON.parse(row.fields) as DocumentFields).file_path;
        if (path !== undefined) this.#deps.files?.owe([path]);
        const removed = this.store.purgeVersion(row.seq);
        if (row.model) this.#change(changes, row.model).removed.push(...removed);
      }
      this.#deps.collections.remove(tenantId, name);
      this.#bump(tenantId, changes);
    });
    this.#apply(tenantId, changes);
    this.#afterCommit(() => {
      for (const vectorName of Object.keys(collection.vectors))
        this.#deps.vectors.drop(tenantId, clientSpaceKey(name, vectorName));
    });
    return {
      removed: rows.filter((r) => !r.superseded && r.deleted_at === null).length,
      tail: async () => {
        await this.#deps.files?.deleteOwed();
      },
    };
  }

  /**
   * Hides (or purges) documents in one transaction, with their chunks, vectors and, when purged, their files: the
   * rows go first, the files follow after the commit, or at the next pass when the store refuses (never an error).
   */
  #removeNow(tenantId: string, targets: readonly DocumentRow[], permanent: boolean, now: number): () => Promise<void> {
    const changes: VectorChanges = new Map();
    transaction(this.#deps.db, [this.#deps.text], () => {
      for (const target of targets) {
        this.#removeVectors(changes, target);
        if (permanent) this.#deps.files?.owe(this.store.filePaths(target));
        const removed = permanent ? this.store.purge(target) : this.store.softDelete(target, now);
        if (target.model) this.#change(changes, target.model).removed.push(...removed);
      }
      this.#bump(tenantId, changes);
    });
    this.#apply(tenantId, changes);
    return async () => {
      if (permanent) await this.#deps.files?.deleteOwed();
    };
  }

  /** Takes a document version's client vectors out of their indexes (their rows stay until it is purged). */
  #removeVectors(changes: VectorChanges, row: DocumentRow): void {
    const collection = this.#deps.collections.get(row.tenant_id, row.primary_table);
    for (const v of this.store.vectors(row.seq)) {
      // A given model vector is in no index of its own: its chunk leaves the model's index with the others.
      if (collection?.vectors[v.name]?.model !== undefined) continue;
      this.#change(changes, clientSpaceKey(v.collection, v.name)).removed.push(v.seq);
    }
  }

  #change(changes: VectorChanges, model: string) {
    let c = changes.get(model);
    if (!c) {
      c = { added: [], removed: [], generation: 0 };
      changes.set(model, c);
    }
    return c;
  }

  #bump(tenantId: string, changes: VectorChanges): void {
    for (const [model, c] of changes) c.generation = this.#deps.vectors.bumpGeneration(tenantId, model, c.removed);
  }

  #apply(tenantId: string, changes: VectorChanges): void {
    this.#afterCommit(() => {
      for (const [model, c] of changes) this.#deps.vectors.apply(tenantId, model, c.generation, c.added, c.removed);
    });
  }
}

/**
 * How a document is deleted, and what the delete was decided on (see Documents.deletion): with `decidedOn`, it runs
 * only on the same documents with the same access; without it, the caller has decided on what is there when it runs.
 */
export interface DeleteOptions {
  readonly recursive: boolean;
  readonly permanent: boolean;
  readonly decidedOn?: DecidedOn;
}
