import type { CreateCollectionRequest, UpdateCollectionRequest } from '@godb/contract';
import type { NewApiKey, RevokeApiKey } from '../directory/api-key-store.js';
import type { Directory, NewUser } from '../directory/directory.js';
import type { AccessChanges } from '../documents/access-changes.js';
import type { DocumentEngagement } from '../documents/document-engagement.js';
import type { JobStore } from '../jobs/job-store.js';
import type { Outbox } from '../mail/outbox.js';
import type { PreparedDocument, Viewer } from '../documents/types.js';

/**
 * One call of one of `Writes`' methods, as data: its name and its arguments, e.g. `{ method: 'markSent', args: [id] }`.
 */
type MethodCall<Writes extends { [M in keyof Writes]: (...args: never) => unknown }> = {
  [M in keyof Writes]: { readonly method: M; readonly args: Parameters<Writes[M]> };
}[keyof Writes];

/** The directory's writes that travel in the log as a method and its arguments (ids already decided). */
export type DirectoryWrites = Pick<
  Directory,
  | 'updateUser'
  | 'setPasswordHash'
  | 'deleteUser'
  | 'createGroup'
  | 'addMember'
  | 'removeMember'
  | 'createPermission'
  | 'grantPermission'
>;

/** One call of a directory write, as data. */
export type DirectoryCall = MethodCall<DirectoryWrites>;

/** The documents' changes that travel in the log as a method and its arguments (all synchronous, clock-pinned). */
export interface DocumentChanges {
  readonly setVisibility: AccessChanges['setVisibility'];
  readonly updateAcl: AccessChanges['updateAcl'];
  readonly engage: DocumentEngagement['engage'];
}

/** One call of a documents' change, as data. */
export type DocumentCall = MethodCall<DocumentChanges>;

/** The jobs' writes that travel in the log as a method and its arguments (ids decided by the taking node). */
export type JobStoreWrites = Pick<JobStore, 'create' | 'update' | 'updateLines' | 'abandon'>;

/** One call of a job write, as data. */
export type JobCall = MethodCall<JobStoreWrites>;

/** The outbox's writes that travel in the log as a method and its arguments (ids decided by the taking node). */
export type OutboxWrites = Pick<Outbox, 'enqueue' | 'markSent' | 'markFailed'>;

/** One call of an outbox write, as data. */
export type MailCall = MethodCall<OutboxWrites>;

/** What a lease holder's operation carries: its duty and the lease's fencing token (see engine/operations/fence-rows.ts). */
export interface Fence {
  readonly duty: string;
  readonly token: number;
}

/** What applying a fenced operation answers when a newer holder's token was applied before it: nothing changed. */
export const fencedOut = { fenced: true } as const;

/**
 * What a replicated write carries, decided by the node that takes the request before it is published: ids,
 * password hashes, embeddings (inside the prepared documents' chunks). Applying it reads no clock but the
 * operation's `now`, so every node writes the same rows.
 */
export type OperationBody =
  | { readonly kind: 'create-user'; readonly register: boolean; readonly user: NewUser & { readonly id: string } }
  | ({ readonly kind: 'directory' } & DirectoryCall)
  | {
      readonly kind: 'write-documents';
      readonly viewer: Viewer;
      readonly documents: readonly PreparedDocument[];
      /** How each document is named in errors (`body[3]`, `line 12`). */
      readonly paths: readonly string[];
      /** A partial update: the version of the one document it was prepared from; another one is refused. */
      readonly expectedVersion?: number;
      /** The access stamps of the existing documents it writes over, as the taking node decided on them. */
      readonly decidedOn?: Readonly<Record<string, string>>;
      /**
       * The keys of the documents' files (`file_content`) in the cluster's shared store, one per document (null: no
       * file), stored by the taking node before it published: operations carry keys, never file bytes.
       */
      readonly fileKeys?: readonly (string | null)[];
    }
  | {
      readonly kind: 'delete-document';
      readonly viewer: Viewer;
      readonly documentId: string;
      readonly recursive: boolean;
      readonly permanent: boolean;
      /** The access stamps of the documents it deletes, as the taking node decided on them. */
      readonly decidedOn?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'create-collection'; readonly tenantId: string; readonly body: CreateCollectionRequest }
  | { readonly kind: 'delete-collection'; readonly tenantId: string; readonly name: string }
  | ({ readonly kind: 'documents' } & DocumentCall)
  | {
      readonly kind: 'update-collection';
      readonly tenantId: string;
      readonly name: string;
      readonly body: UpdateCollectionRequest;
    }
  | {
      /** One batch of a delete by filter: the ids the taking node matched and decided on (see DocumentDeletes.deleteSome). */
      readonly kind: 'delete-some';
      readonly viewer: Viewer;
      readonly ids: readonly string[];
      readonly permanent: boolean;
      /** The collection the filter named: a partitioned one's batch goes to its shards (cluster mode, #41). */
      readonly table?: string;
      /** The access stamps of the documents the taking node decided the caller may delete. */
      readonly decidedOn?: Readonly<Record<string, string>>;
    }
  | {
      /** A new API key: its id and the hash of its secret (hex) decided by the taking node; the secret never travels. */
      readonly kind: 'create-api-key';
      readonly key: Omit<NewApiKey, 'secretHash'> & { readonly secretHash: string };
      readonly maxPerUser: number;
    }
  | {
      /** Index maintenance of a tenant (refresh, recluster): every node rebuilds its own derived indexes. */
      readonly kind: 'maintenance';
      readonly method: 'refresh' | 'recluster';
      readonly tenantId: string;
    }
  | ({ readonly kind: 'revoke-api-key' } & RevokeApiKey)
  /** A job's creation, progress or end (the work runs on the node the job names; every node holds the job). */
  | ({ readonly kind: 'job' } & JobCall)
  /**
   * A snapshot restored on every node, in log order: `archive` is the copy of its archive the taking node kept in
   * the shared snapshot store (see Snapshots.keep); the restore runs before the operation is recorded (see
   * OperationApplier.prepare).
   */
  | {
      readonly kind: 'restore-snapshot';
      readonly snapshotId: string;
      readonly archive: string;
      /** Who restores: a tenant admin's tenant (undefined: the super admin), and the node's own tenants. */
      readonly restorer: {
        readonly tenantId?: string;
        readonly keepTenants: readonly string[];
        readonly trustIndexFiles: boolean;
      };
    }
  /** The mail outbox: messages queued on any node; the relay's marks (lease holder only) carry its fence. */
  | ({ readonly kind: 'mail'; readonly fence?: Fence } & MailCall);

/**
 * Whether the operation is part of what a request writes, and so takes the next rank of the request's
 * Idempotency-Key (see ClusterReads.idempotent). Not so: a job's changes (how many a request makes depends on time)
 * and a lease holder's fenced operations (the mail relay, which a request may kick, works for no request).
 */
export function rankedByRequest(body: OperationBody): boolean {
  return body.kind !== 'job' && !(body.kind === 'mail' && body.fence !== undefined);
}

/** A body's own `id` would be overwritten by the operation's message id: a type error instead (name it keyId …). */
type NoId<T extends true> = T;
export type BodiesHaveNoId = NoId<[Extract<OperationBody, { readonly id: unknown }>] extends [never] ? true : false>;

/** An operation as it travels in the log. */
export type Operation = OperationBody & {
  /** The message id (JetStream drops a second publish of the same id within its duplicate window). */
  readonly id: string;
  /** The node that took the request. */
  readonly node: string;
  /** The time of the write, in milliseconds since the epoch, decided by the node that took it. */
  readonly now: number;
};

/** What a restore reports to the node that took it while it runs there (never part of the operation). */
export interface RestoreEffects {
  /** Files, then rows, restored so far. */
  readonly progress?: (done: number, total: number) => void;
  /** Waits for the tenant's requests and background writes under way (see OnlineRestore.apply). */
  readonly drain?: (tenantId: string) => Promise<void>;
}

/** How the taking node submits an operation: its time when decided earlier, and what it observes applying it. */
export interface SubmitOptions {
  /**
   * The operation's time (ms), when the write was taken before it could be submitted (its files were stored
   * first): its rows carry the time it was taken. Default: the time of submitting.
   */
  readonly at?: number;
  /** What a restore reports on this node (never part of the operation; other nodes restore without it). */
  readonly restore?: RestoreEffects;
}

/**
 * The one way state changes: every write is submitted as an operation and applied by the OperationApplier, at once
 * on an embedded node (LocalLog) or in log order on every node of a cluster (cluster/log/NatsLog).
 */
export interface OperationLog {
  /**
   * Decides the operation's id and time, has it applied (embedded: at once; clustered: once the log stored it and
   * this node applied it) and answers what applying answered, or throws its error: a write is acknowledged only
   * once it can be read here.
   */
  submit(op: OperationBody, options?: SubmitOptions): Promise<unknown>;
}

/** What a caller asks of a cluster node's progress before it is answered (ignored on an embedded node). */
export interface Consistency {
  /**
   * Wait until the node applied these sequences, by shard (an X-GoDB-Seq a write answered, on any node: `0:17,5:42`
   * is `{ 0: 17, 5: 42 }`).
   */
  readonly minSeq?: Readonly<Record<number, number>>;
  /** Wait until the node applied everything the caller's shards held when the request arrived. */
  readonly strong?: boolean;
}

/**
 * What the services ask of the log besides submitting writes: how current this node is. NatsLog answers for the
 * cluster; LocalLog, the only copy, is always current.
 */
export interface ClusterReads {
  /**
   * Resolves once this node has applied what `want` asks for — with `strong`, the directory shard's and `tenantId`'s
   * shard's last sequences, never another tenant's; throws CLUSTER_LAGGING when that takes longer than the node's
   * bound, VALIDATION_FAILED for a sequence the log has not reached.
   */
  catchUp(want: Consistency, tenantId?: string, signal?: AbortSignal): Promise<void>;
  /**
   * This node's place in the shards an answer to a caller of `tenantId` depends on (the directory's, and the
   * tenant's): a token (X-GoDB-Seq, `0:17,5:42`) another node can be asked to reach.
   */
  position(tenantId?: string): string | null;
  /**
   * Why an answer to a caller of `tenantId` may be stale (this node cannot confirm it is current on the shards the
   * answer depends on: see NatsLog.staleness), or null: the X-GoDB-Stale header.
   */
  staleness(tenantId?: string): { readonly reason: string; readonly shards: readonly number[] } | null;
  /**
   * While this node catches up with what the log held when it started, and finishes its start: where it is (`target`
   * is what the shards held then, summed); undefined once it serves.
   */
  startingUp(): { readonly applied: number; readonly target: number; readonly from: number } | undefined;
  /**
   * A runner for the work of one request whose writes are named by `key` within `scope` (its tenant): sent again
   * with the same key, its operations are applied once, and it is answered what the first one was. Every piece of
   * the request's work (a streamed answer's lines too) runs through the same runner, so its operations are counted
   * in order.
   */
  idempotent(scope: string, key: string): <R>(work: () => R) => R;
}

/** The log as a node's services use it: submitting operations, and how current this node is. */
export type NodeLog = OperationLog & ClusterReads;

const f32 = '$f32';

/** The operation as bytes: JSON, with float32 vectors as base64 of their little-endian bytes (exact, compact). */
export function encodeOperation(op: Operation): Uint8Array {
  return Buffer.from(
    JSON.stringify(op, (_key, value: unknown) =>
      value instanceof Float32Array
        ? { [f32]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') }
        : value,
    ),
  );
}

export function decodeOperation(bytes: Uint8Array): Operation {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), (_key, value) => {
    if (value !== null && typeof value === 'object' && typeof (value as Record<string, unknown>)[f32] === 'string') {
      // A copy into a fresh buffer, so the floats are aligned.
      const raw = new Uint8Array(Buffer.from((value as Record<string, string>)[f32]!, 'base64'));
      return new Float32Array(raw.buffer, 0, raw.byteLength / 4);
    }
    return value as unknown;
  }) as Operation;
}
