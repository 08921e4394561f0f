import { isGoDBError, type Collection, type UpdateCollectionRequest } from '@godb/contract';
import type { DecidedOn } from '../access/access.js';
import type { DeleteOptions } from '../documents/document-deletes.js';
import type { DocumentPatch } from '../documents/document-patch.js';
import type { Documents } from '../documents/documents.js';
import type { PreparedDocument, Viewer } from '../documents/types.js';
import type { DocumentFiles } from '../files/document-files.js';
import type { Clock } from '../clock.js';
import type { DocumentCall, DocumentChanges, OperationLog } from './operation.js';

export interface DocumentCommandsDeps {
  readonly log: OperationLog;
  readonly documents: Documents;
  /** Where uploaded files are kept (the cluster's shared store in cluster mode); null keeps none. */
  readonly files: DocumentFiles | null;
  /** The engine's clock: a write with files is taken at the time before they are stored. */
  readonly clock: Clock;
}

/** What a write of prepared documents is decided on, beyond the documents themselves. */
export interface WriteOptions {
  /** When it aborts before the operation is submitted (the client went away), nothing is written. */
  readonly signal?: AbortSignal | undefined;
  /** The access stamps of the existing documents it writes over, as the service decided on them. */
  readonly decidedOn?: DecidedOn | undefined;
  /** A partial update: the version it was prepared from (DOCUMENT_CHANGED when another came first). */
  readonly expectedVersion?: number | undefined;
}

type Written = { id: string; version: number }[];

/**
 * The documents' writes as operations: each command builds its operation — with everything decided before it is
 * submitted (files stored, their keys, the access it was decided on) — and submits it to the one log. Who may is
 * the service's decision, taken before a command runs.
 *
 * @example await commands.write(viewer, prepared, (i) => `body[${i}]`, { decidedOn });
 */
export class DocumentCommands {
  readonly #deps: DocumentCommandsDeps;

  constructor(deps: DocumentCommandsDeps) {
    this.#deps = deps;
  }

  /**
   * Writes prepared (and embedded) documents, all or none. Their files (`file_content`) are stored first, each under
   * a new key, and the operation carries the keys, never the bytes; a refused write removes them again. Documents
   * without files are written (embedded) before this returns, with no turn of the event loop in between.
   */
  write(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    options: WriteOptions = {},
  ): Promise<Written> {
    if (!this.#deps.files || prepared.every((doc) => doc.fileContent === undefined)) {
      try {
        options.signal?.throwIfAborted();
      } catch (error) {
        return Promise.reject(error as Error);
      }
      return this.#submitWrite(viewer, prepared, path, options, new Map());
    }
    return this.#writeWithFiles(viewer, prepared, path, options);
  }

  async #writeWithFiles(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    options: WriteOptions,
  ): Promise<Written> {
    const at = this.#deps.clock.now(); // the write's time, decided before its files are stored
    const stored = await this.#uploadFiles(viewer, prepared);
    const keys = [...stored.values()];
    try {
      options.signal?.throwIfAborted();
      const written = await this.#submitWrite(viewer, prepared, path, options, stored, at);
      await this.#discardUnnamed(viewer.tenantId, prepared, stored, written);
      return written;
    } catch (error) {
      // Refused (by every node alike, or before it was submitted): no row names the files. A 5xx may be in the log
      // all the same (CLUSTER_LAGGING says so), so its files stay.
      if (!isGoDBError(error) || error.status < 500) await this.#deps.files?.discard(keys);
      throw error;
    }
  }

  #submitWrite(
    viewer: Viewer,
    prepared: readonly PreparedDocument[],
    path: (i: number) => string,
    { expectedVersion, decidedOn }: WriteOptions,
    stored: ReadonlyMap<PreparedDocument, string>,
    at?: number,
  ): Promise<Written> {
    const body = {
      kind: 'write-documents',
      viewer: { tenantId: viewer.tenantId, userId: viewer.userId, groups: [...viewer.groups] },
      documents: prepared.map((doc) => (stored.has(doc) ? { ...doc, fileContent: undefined } : doc)),
      paths: prepared.map((_d, i) => path(i)),
      ...(expectedVersion !== undefined && { expectedVersion }),
      ...(decidedOn !== undefined && { decidedOn }),
      ...(stored.size > 0 && { fileKeys: prepared.map((doc) => stored.get(doc) ?? null) }),
    } as const;
    return this.#deps.log.submit(body, at === undefined ? {} : { at }) as Promise<Written>;
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

  /**
   * A request sent again with its Idempotency-Key after its first attempt was applied is answered that attempt's
   * outcome, and the versions it wrote name that attempt's files: the files this attempt uploaded are named by no
   * row, so they are removed from the store instead of staying there unnamed. A version that is gone since (purged)
   * says nothing, and its file stays.
   */
  async #discardUnnamed(
    tenantId: string,
    prepared: readonly PreparedDocument[],
    stored: ReadonlyMap<PreparedDocument, string>,
    written: Written,
  ): Promise<void> {
    const unnamed = prepared.flatMap((doc, i) => {
      const key = stored.get(doc);
      const version = written[i]?.version;
      if (key === undefined || version === undefined) return [];
      const recorded = this.#deps.documents.store.filePathOf(tenantId, doc.id, version);
      return recorded !== undefined && recorded !== key ? [key] : [];
    });
    if (unnamed.length > 0) await this.#deps.files?.discard(unnamed);
  }

  /**
   * A partial update (see DocumentPatches): a new version prepared from the stored one, written only if no other
   * write of the document came first (DOCUMENT_CHANGED) and on the access it was decided on.
   */
  async patch(
    viewer: Viewer,
    id: string,
    patch: DocumentPatch,
    signal?: AbortSignal,
    decidedOn?: string,
  ): Promise<{ id: string; version: number }> {
    const { prepared, fromVersion } = await this.#deps.documents.patches.prepare(viewer, id, patch, signal);
    const decided = decidedOn === undefined ? undefined : { [prepared.id]: decidedOn };
    const options = { expectedVersion: fromVersion, decidedOn: decided };
    const [written] = await this.write(viewer, [prepared], () => 'body', options);
    return written!;
  }

  /** Deletes (hides, or with `permanent` purges) a document, and with `recursive` its descendants. */
  async delete(viewer: Viewer, id: string, options: DeleteOptions): Promise<number> {
    const { recursive, permanent, decidedOn } = options;
    return (await this.#deps.log.submit({
      kind: 'delete-document',
      viewer,
      documentId: id,
      recursive,
      permanent,
      ...(decidedOn !== undefined && { decidedOn }),
    })) as number;
  }

  /** One batch of a delete by filter (see DocumentDeletes.deleteSome). */
  async deleteSome(
    viewer: Viewer,
    ids: readonly string[],
    permanent: boolean,
    decidedOn?: DecidedOn,
    table?: string,
  ): Promise<{ deleted: number; skipped: number }> {
    return (await this.#deps.log.submit({
      kind: 'delete-some',
      viewer: { tenantId: viewer.tenantId, userId: viewer.userId, groups: [...viewer.groups] },
      ids,
      permanent,
      ...(decidedOn !== undefined && { decidedOn }),
      ...(table !== undefined && { table }),
    })) as { deleted: number; skipped: number };
  }

  /** Removes a collection with every version of its documents; answers how many documents it held. */
  async deleteCollection(tenantId: string, name: string): Promise<number> {
    return (await this.#deps.log.submit({ kind: 'delete-collection', tenantId, name })) as number;
  }

  /** Changes a collection's settings (see Collections.update). */
  async updateCollection(tenantId: string, name: string, body: UpdateCollectionRequest): Promise<Collection> {
    return (await this.#deps.log.submit({ kind: 'update-collection', tenantId, name, body })) as Collection;
  }

  /**
   * One of the synchronous changes of {@link DocumentChanges} (visibility, ACL, engagement).
   *
   * @example await commands.change('setVisibility', viewer, 'report', 'public');
   */
  async change<M extends keyof DocumentChanges>(
    method: M,
    ...args: Parameters<DocumentChanges[M]>
  ): Promise<ReturnType<DocumentChanges[M]>> {
    const call = { method, args } as DocumentCall;
    return (await this.#deps.log.submit({ kind: 'documents', ...call })) as ReturnType<DocumentChanges[M]>;
  }
}
