import { setTimeout as sleep } from 'node:timers/promises';
import { createError } from '@godb/contract';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Outcome, OperationApplier } from '../../engine/operations/operation-applier.js';
import { encodeOperation, type Operation } from '../../engine/operations/operation.js';
import { directoryShard } from '../../engine/operations/operation-shard.js';
import type { Outcomes } from '../log/outcomes.js';
import type { Placement } from '../log/placement.js';
import { afterHeader } from '../log/publisher.js';
import { maxOperationBytes, retryPauseMs } from '../log/shard-streams.js';
import type { Shards } from '../log/shards.js';
import type { ClusterLogger } from '../start-retries.js';
import { ensureCollectionStream, shardSubjectOf } from './collection-stream.js';
import { documentShard } from './document-shard.js';
import { afterTenantHeader, HeldShards } from './held-shards.js';
import { collectionId, PlacementRecords, type PlacementRecord } from './placement-records.js';
import { shardSettings } from './shard-settings.js';
import { decodeJson, decodeReply, encodeJson, encodeReply } from './wire.js';

type WriteOp = Extract<Operation, { kind: 'write-documents' }>;
type DeleteSomeOp = Extract<Operation, { kind: 'delete-some' }>;
type Written = { id: string; version: number }[];

/** An operation's input as the services take it: a search's body; a request by id's params and query too. */
export interface OperationInput {
  readonly params?: unknown;
  readonly query?: unknown;
  readonly body: unknown;
}

/**
 * What a fanned-out search asks of a node beyond the operation: the phase of a two-round search (a text search's
 * statistics first, then its ranking with the summed statistics; a hybrid search's sides, which the asking node
 * fuses), passed through as it is.
 */
export interface SearchRound {
  readonly phase?: 'stats' | 'sides';
  readonly stats?: unknown;
  /**
   * The dfs round (`stats`): the shards of each partitioned collection of the tenant this node counts (fanOut sets
   * it: every partitioned collection counted once over the cluster).
   */
  readonly counted?: Readonly<Record<string, readonly number[]>>;
}

/**
 * What a request by id carries to the holder it is passed to (see ask): the client's Idempotency-Key, so a retry
 * through the same node is applied once, and its consistency, so the holder waits as the first node did.
 */
export interface CarriedRequest {
  readonly idempotencyKey?: string | undefined;
  readonly consistency?: unknown;
}

/**
 * How a node runs a search another node asked of it (see serveSearches): `shards`, the collection's shards it was
 * asked for (null: every one it holds), for the searches whose answer must count each document once (statistics,
 * counts).
 */
export type LocalSearch = (
  operationId: string,
  input: OperationInput,
  principal: unknown,
  run: SearchRound & { readonly shards: readonly number[] | null; readonly carried?: CarriedRequest },
) => Promise<unknown>;

/** What a fanned-out search gathered: each asked node's answer, and the shards no live node held. */
export interface FannedOut {
  readonly answers: readonly unknown[];
  readonly missing: readonly number[];
  /** The dfs round: the other partitioned collections a shard of which had no live replica (left out). */
  readonly uncounted?: readonly string[];
}

export interface PartitionsOptions {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly nodeId: string;
  readonly applier: OperationApplier;
  readonly shards: Shards;
  readonly placement: Placement;
  readonly outcomes: Outcomes;
  readonly publishTimeoutMs: number;
  /** A collection's shard count when its creation names none (1: not partitioned). */
  readonly defaultShards: number;
  readonly logger: ClusterLogger;
  readonly closing: AbortSignal;
}

/** How long the list of live nodes is reused (it is a KV read of every node's progress). */
const liveForMs = 1_000;

/**
 * Partitioned collections in cluster mode (issue #41, decision 0062): a collection created with `shards` above 1
 * is placed in KV (`godb-placement`), its document writes go to the subjects of its shards on the stream
 * `godb-collections`, each node applies only the shards it holds, and a write taken by a node that does not hold its
 * shard is answered once the holder searches ask (the first live one) applied it. Searches fan out over NATS
 * request/reply (`godb.search.<node>`), one live holder per shard.
 *
 * @example
 *   const partitions = await Partitions.open(options, jsm, 3);
 *   await partitions.route(op, (o) => publisher.publish(o));
 */
export class Partitions {
  readonly #options: PartitionsOptions;
  readonly #records: PlacementRecords;
  readonly #held: HeldShards;
  readonly #subscriptions: Subscription[] = [];
  #liveness: (() => Promise<string[]>) | null = null;
  #live: { nodes: string[]; at: number } | null = null;
  #search: LocalSearch | null = null;

  private constructor(options: PartitionsOptions, records: PlacementRecords) {
    this.#options = options;
    this.#records = records;
    this.#held = new HeldShards(options);
  }

  static async open(options: PartitionsOptions, jsm: JetStreamManager, replicas: number): Promise<Partitions> {
    await ensureCollectionStream(jsm, replicas);
    const records = await PlacementRecords.open(options.nc, jsm, replicas, options.logger);
    const partitions = new Partitions(options, records);
    for (const record of records.all()) partitions.#holdOwn(record);
    partitions.#serveOutcomes();
    return partitions;
  }

  /** Where the live nodes are read from (the progress reports, once the cluster's duties started). */
  attachLiveness(liveNodes: () => Promise<string[]>): void {
    this.#liveness = liveNodes;
    this.#live = null;
  }

  /** Every partitioned collection's placement known here, and this node's applied sequence of each held shard. */
  placements(): { record: PlacementRecord; applied: (shard: number) => number | null }[] {
    return this.#records.all().map((record) => ({
      record,
      applied: (shard: number) => {
        const subject = shardSubjectOf(record.tenantId, record.name, shard);
        return this.#held.holds(subject) ? this.#held.applied(subject) : null;
      },
    }));
  }

  /** True when the collection is partitioned, as known here. */
  isPartitioned(tenantId: string, name: string): boolean {
    return this.#records.known(tenantId, name) !== undefined;
  }

  /** The placement of a partitioned collection, or undefined (not partitioned, or not known here yet). */
  placementOf(tenantId: string, name: string): PlacementRecord | undefined {
    return this.#records.known(tenantId, name);
  }

  /**
   * After this node applied an operation (in log order): a collection created or deleted is read again, and the
   * shards of a partitioned one that this node holds are applied from now on.
   */
  applied(op: Operation): void {
    if (op.kind !== 'create-collection' && op.kind !== 'delete-collection') return;
    const name = op.kind === 'create-collection' ? op.body.name : op.name;
    if (op.kind === 'delete-collection') return this.#records.forget(op.tenantId, name);
    if (this.#records.known(op.tenantId, name)) return;
    this.#records.forget(op.tenantId, name);
    void this.#records
      .find(op.tenantId, name, true)
      .then((record) => record && this.#holdOwn(record))
      .catch((error: unknown) => this.#options.logger.error({ err: error }, 'cluster mode: a placement was not read'));
  }

  /**
   * Publishes an operation: a collection's creation with `shards` above 1 places it first; a write of documents of
   * a partitioned collection goes to its shards' subjects; everything else to the log as before (`plain`).
   */
  async route(op: Operation, plain: (op: Operation) => Promise<unknown>): Promise<unknown> {
    if (op.kind === 'create-collection') {
      const { applier, defaultShards } = this.#options;
      const live = await this.#liveNodes();
      const settings = shardSettings(op.body, { defaultShards, nodes: live.length });
      if (settings.shards > 1 && !applier.hasCollection(op.tenantId, op.body.name)) {
        const record = await this.#records.create(op.tenantId, op.body.name, settings, live);
        this.#holdOwn(record);
      }
      return plain(op);
    }
    if (op.kind === 'delete-some' && op.table !== undefined) {
      const record = await this.#records.find(
        op.viewer.tenantId,
        op.table,
        this.#options.applier.hasCollection(op.viewer.tenantId, op.table),
      );
      return record ? this.#deleteSome(op, record) : plain(op);
    }
    if (op.kind !== 'write-documents') return plain(op);
    const tenantId = op.viewer.tenantId;
    const tables = [...new Set(op.documents.map((doc) => doc.primaryTable))];
    const records = await Promise.all(
      tables.map((t) => this.#records.find(tenantId, t, this.#options.applier.hasCollection(tenantId, t))),
    );
    const partitioned = records.find((r) => r !== null);
    if (!partitioned) return plain(op);
    if (tables.length > 1) {
      throw createError(
        'VALIDATION_FAILED',
        {
          detail: `collection ${partitioned.name} is partitioned (shards ${partitioned.shards}): a write to it names no other collection; send the others' documents in another request`,
        },
        { field: 'body' },
      );
    }
    return this.#write(op, partitioned);
  }

  /**
   * Asks one live holder of every shard of a partitioned collection to run the search (this node included, without
   * a network trip), each shard asked once; a shard with no live holder is a 503 naming it, unless `allowPartial`.
   * The dfs round of a text search (`phase: 'stats'`) asks one live holder of every shard of every partitioned
   * collection of the tenant instead, each node told which it counts (`counted`): BM25's statistics are the
   * tenant's whole index, as on one node.
   */
  async fanOut(
    tenantId: string,
    collection: string,
    operationId: string,
    body: unknown,
    principal: unknown,
    allowPartial: boolean,
    round: SearchRound = {},
  ): Promise<FannedOut> {
    const record = this.#records.known(tenantId, collection);
    if (!record) throw createError('NOT_FOUND', { resource: 'Partitioned collection', id: collection });
    const live = await this.#liveNodes();
    const counting = round.phase === 'stats';
    const records = counting
      ? [record, ...this.#records.all().filter((r) => r.tenantId === tenantId && r.name !== record.name)]
      : [record];
    /** For each node asked, the shards of each collection it answers for. */
    const asked = new Map<string, Record<string, number[]>>();
    const missing: { name: string; shard: number; holders: readonly string[] }[] = [];
    for (const r of records) {
      r.replicas.forEach((replicas, shard) => {
        const node = replicas.find((n) => live.includes(n));
        if (node === undefined) return void missing.push({ name: r.name, shard, holders: replicas });
        const shards = asked.get(node) ?? {};
        asked.set(node, { ...shards, [r.name]: [...(shards[r.name] ?? []), shard] });
      });
    }
    // Another collection's shard without a live replica only leaves its documents out of the statistics (noted),
    // never the search of this one.
    const [gone] = missing.filter((m) => m.name === record.name);
    if (gone && !allowPartial) {
      const own = missing.filter((m) => m.name === record.name).length;
      const more = own > 1 ? `; ${own - 1} more shards are missing` : '';
      throw createError('SHARD_UNAVAILABLE', {
        reason: `shard ${gone.shard} of ${gone.name} has no live replica: held by ${gone.holders.join(', ')}${more}`,
      });
    }
    const answers = await Promise.all(
      [...asked].map(async ([node, held]) => {
        const shards = held[record.name] ?? [];
        const sent = counting ? { ...round, counted: held } : round;
        if (node === this.#options.nodeId) return this.#runLocal(operationId, { body }, principal, { ...sent, shards });
        const reply = await this.#options.nc
          .request(`godb.search.${node}`, encodeJson({ operationId, body, principal, round: sent, shards }), {
            timeout: this.#options.publishTimeoutMs,
          })
          .catch((error: unknown) => {
            throw createError('SHARD_UNAVAILABLE', {
              reason: `node ${node}, asked for shards ${shards.join(', ')} of ${record.name}, did not answer within ${this.#options.publishTimeoutMs} ms: ${(error as Error).message}`,
            });
          });
        const outcome = decodeReply(reply.data);
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      }),
    );
    const uncounted = [...new Set(missing.filter((m) => m.name !== record.name).map((m) => m.name))];
    return {
      answers,
      missing: missing.filter((m) => m.name === record.name).map((m) => m.shard),
      ...(uncounted.length > 0 && { uncounted }),
    };
  }

  /** Answers the searches other nodes ask of this one (`godb.search.<node>`) with `search`. */
  serveSearches(search: LocalSearch): void {
    this.#search = search;
    const sub = this.#options.nc.subscribe(`godb.search.${this.#options.nodeId}`, {
      callback: (error, message) => {
        if (error) return;
        const { operationId, body, params, query, principal, round, shards, carried } = decodeJson<{
          operationId: string;
          body: unknown;
          params?: unknown;
          query?: unknown;
          principal: unknown;
          round?: SearchRound;
          shards?: number[];
          carried?: CarriedRequest;
        }>(message.data);
        const input = { body, params, query };
        const run = { ...round, shards: shards ?? null, ...(carried && { carried }) };
        void this.#runLocal(operationId, input, principal, run).then(
          (value) => message.respond(encodeReply({ value })),
          (thrown: unknown) => message.respond(encodeReply({ error: thrown })),
        );
      },
    });
    this.#subscriptions.push(sub);
  }

  stop(): void {
    for (const sub of this.#subscriptions) sub.unsubscribe();
    this.#held.stop();
  }

  ended(): Promise<unknown> {
    return this.#held.ended();
  }

  /** Runs a search here, over every shard of the collection this node holds (a fan-out's own share of it). */
  runHere(operationId: string, body: unknown, principal: unknown, round: SearchRound = {}): Promise<unknown> {
    return this.#runLocal(operationId, { body }, principal, { ...round, shards: null });
  }

  /**
   * The nodes that may hold document `id` where this node cannot: for each partitioned collection of the tenant
   * whose shard of `id` this node does not hold, that shard's first live replica (the one searches ask).
   */
  async holdersElsewhere(tenantId: string, id: string): Promise<string[]> {
    // Which shards are elsewhere comes first: a tenant without partitioned collections (or whose shards of `id` are
    // all here) needs no liveness, which a cluster that lost its NATS majority cannot read.
    const elsewhere = this.#records
      .all()
      .filter((record) => record.tenantId === tenantId)
      .map((record) => record.replicas[documentShard(collectionId(tenantId, record.name), id, record.shards)] ?? [])
      .filter((replicas) => !replicas.includes(this.#options.nodeId));
    if (elsewhere.length === 0) return [];
    const live = await this.#liveNodes();
    const nodes = new Set<string>();
    for (const replicas of elsewhere) {
      const node = replicas.find((n) => live.includes(n));
      if (node !== undefined) nodes.add(node);
    }
    return [...nodes];
  }

  /** Runs an operation on `node` (a request by id on a holder of its document), as serveSearches runs it there. */
  async ask(
    node: string,
    operationId: string,
    input: OperationInput,
    principal: unknown,
    carried: CarriedRequest = {},
  ): Promise<unknown> {
    const { nc, publishTimeoutMs } = this.#options;
    const reply = await nc
      .request(`godb.search.${node}`, encodeJson({ operationId, ...input, principal, shards: null, carried }), {
        timeout: publishTimeoutMs + 1_000,
      })
      .catch((error: unknown) => {
        throw createError('SHARD_UNAVAILABLE', {
          reason: `node ${node}, asked for ${operationId}, did not answer within ${publishTimeoutMs + 1_000} ms: ${(error as Error).message}`,
        });
      });
    const outcome = decodeReply(reply.data);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  #runLocal(
    operationId: string,
    input: OperationInput,
    principal: unknown,
    run: SearchRound & { shards: readonly number[] | null; carried?: CarriedRequest },
  ): Promise<unknown> {
    if (!this.#search) return Promise.reject(createError('SHUTTING_DOWN', {}));
    return this.#search(operationId, input, principal, run);
  }

  #holdOwn(record: PlacementRecord): void {
    record.replicas.forEach((replicas, shard) => {
      if (replicas.includes(this.#options.nodeId)) {
        this.#held.hold(shardSubjectOf(record.tenantId, record.name, shard));
      }
    });
  }

  async #liveNodes(): Promise<string[]> {
    const now = performance.now();
    if (this.#live && now - this.#live.at < liveForMs) return this.#live.nodes;
    const nodes = this.#liveness
      ? await this.#liveness().catch((error: unknown) => {
          // The progress reports live in JetStream KV: without a NATS majority nobody knows who is alive.
          throw createError('CLUSTER_UNAVAILABLE', {
            timeout_ms: this.#options.publishTimeoutMs,
            reason: `which nodes are alive cannot be read: ${(error as Error).message}`,
          });
        })
      : [];
    const withSelf = [...new Set([...nodes, this.#options.nodeId])].sort();
    this.#live = { nodes: withSelf, at: now };
    return withSelf;
  }

  /** Holders answer the outcome of an operation they apply (`godb.outcome.<node>`), once applied. */
  #serveOutcomes(): void {
    const { nc, nodeId, outcomes, publishTimeoutMs } = this.#options;
    const sub = nc.subscribe(`godb.outcome.${nodeId}`, {
      callback: (error, message) => {
        if (error) return;
        const { id, subject, seq } = decodeJson<{ id: string; subject: string; seq: number }>(message.data);
        const { outcome, forget } = outcomes.expect(id);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<Outcome>((resolve) => {
          timer = setTimeout(
            () =>
              resolve({
                error: createError('CLUSTER_LAGGING', {
                  applied: this.#held.applied(subject),
                  wanted: seq,
                  timeout_ms: publishTimeoutMs,
                  detail: `The write is stored in the log (${subject}, sequence ${seq}); its holder ${nodeId} has not applied it yet. Send it again with the same Idempotency-Key (applied once).`,
                }),
              }),
            publishTimeoutMs,
          );
        });
        void Promise.race([outcome, late]).then((settled) => {
          clearTimeout(timer);
          forget();
          message.respond(encodeReply(settled));
        });
      },
    });
    this.#subscriptions.push(sub);
  }

  /** A write of a partitioned collection's documents: one operation per shard, each answered by its holder. */
  async #write(op: WriteOp, record: PlacementRecord): Promise<Written> {
    const { fileKeys } = op;
    const parts = await this.#split(
      op,
      record,
      op.documents.map((doc) => doc.id),
      (indexes) => ({
        ...op,
        documents: indexes.flatMap((i) => op.documents[i] ?? []),
        paths: indexes.map((i) => op.paths[i] ?? `body[${i}]`),
        ...(fileKeys && { fileKeys: indexes.map((i) => fileKeys[i] ?? null) }),
      }),
    );
    const out: Written = new Array<Written[number]>(op.documents.length);
    for (const { indexes, value } of parts) {
      (value as Written).forEach((written, j) => {
        const at = indexes[j];
        if (at !== undefined) out[at] = written;
      });
    }
    return out;
  }

  /** A batch of a delete by filter of a partitioned collection: one per shard, the counts summed. */
  async #deleteSome(op: DeleteSomeOp, record: PlacementRecord): Promise<{ deleted: number; skipped: number }> {
    const parts = await this.#split(op, record, op.ids, (indexes) => ({
      ...op,
      ids: indexes.flatMap((i) => op.ids[i] ?? []),
    }));
    const sum = { deleted: 0, skipped: 0 };
    for (const { value } of parts) {
      const counts = value as { deleted: number; skipped: number };
      sum.deleted += counts.deleted;
      sum.skipped += counts.skipped;
    }
    return sum;
  }

  /**
   * Publishes `op` split by the shards of `ids` (one operation per shard, id `<op id>.<shard>`, made by `part` of the
   * indexes of its ids) to their subjects, each after the directory and tenant positions seen here, and answers
   * each part's outcome from its shard's first live replica (the one searches ask).
   */
  async #split<O extends Operation>(
    op: O,
    record: PlacementRecord,
    ids: readonly string[],
    part: (indexes: number[]) => O,
  ): Promise<{ indexes: number[]; value: unknown }[]> {
    const { shards, placement, nodeId } = this.#options;
    const tenantId = record.tenantId;
    const id = collectionId(tenantId, record.name);
    const groups = new Map<number, number[]>();
    ids.forEach((docId, i) => {
      const shard = documentShard(id, docId, record.shards);
      groups.set(shard, [...(groups.get(shard) ?? []), i]);
    });
    const tenantShard = await placement.shardOf(tenantId, true);
    const envelope = headers();
    envelope.set(afterHeader, String(shards.get(directoryShard).applied));
    envelope.set(afterTenantHeader, `${tenantShard ?? 0}:${shards.get(tenantShard ?? 0).applied}`);
    const live = await this.#liveNodes();
    return Promise.all(
      [...groups].map(async ([shard, indexes]) => {
        const one: O = { ...part(indexes), id: `${op.id}.${shard}` };
        const subject = shardSubjectOf(tenantId, record.name, shard);
        const replicas = record.replicas[shard] ?? [];
        const holder = replicas.find((n) => live.includes(n));
        if (holder === undefined) {
          throw createError('CLUSTER_UNAVAILABLE', {
            timeout_ms: this.#options.publishTimeoutMs,
            reason: `shard ${shard} of the partitioned collection ${record.name} has no live replica (held by ${replicas.join(', ')})`,
          });
        }
        const local = holder === nodeId ? this.#options.outcomes.expect(one.id) : null;
        let seq: number;
        try {
          seq = await this.#publish(subject, one, envelope);
        } catch (error) {
          local?.forget();
          throw error;
        }
        const outcome = local
          ? await this.#localOutcome(local, subject, seq)
          : await this.#remoteOutcome(holder, one.id, subject, seq);
        if ('error' in outcome) throw outcome.error;
        return { indexes, value: outcome.value };
      }),
    );
  }

  async #localOutcome(expected: ReturnType<Outcomes['expect']>, subject: string, seq: number): Promise<Outcome> {
    const { publishTimeoutMs, nodeId } = this.#options;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), publishTimeoutMs)));
    const settled = await Promise.race([expected.outcome, late]).finally(() => clearTimeout(timer));
    if (settled) return settled;
    expected.forget();
    return {
      error: createError('CLUSTER_LAGGING', {
        applied: this.#held.applied(subject),
        wanted: seq,
        timeout_ms: publishTimeoutMs,
        detail: `The write is stored in the log (${subject}, sequence ${seq}); its holder ${nodeId} has not applied it yet. Send it again with the same Idempotency-Key (applied once).`,
      }),
    };
  }

  async #remoteOutcome(holder: string, id: string, subject: string, seq: number): Promise<Outcome> {
    const { nc, publishTimeoutMs } = this.#options;
    try {
      const reply = await nc.request(`godb.outcome.${holder}`, encodeJson({ id, subject, seq }), {
        // The holder answers within the same bound; a little more, so its own answer comes first.
        timeout: publishTimeoutMs + 1_000,
      });
      return decodeReply(reply.data);
    } catch (error) {
      return {
        error: createError('CLUSTER_LAGGING', {
          applied: 0,
          wanted: seq,
          timeout_ms: publishTimeoutMs,
          detail: `The write is stored in the log (${subject}, sequence ${seq}) but its holder ${holder} did not answer (${(error as Error).message}). Send it again with the same Idempotency-Key (applied once).`,
        }),
      };
    }
  }

  /** Publishes to a collection shard's subject with the operation's id, retried until acknowledged or the deadline. */
  async #publish(subject: string, op: Operation, envelope: ReturnType<typeof headers>): Promise<number> {
    const { js, publishTimeoutMs, closing } = this.#options;
    const data = encodeOperation(op);
    if (data.byteLength > maxOperationBytes) throw createError('PAYLOAD_TOO_LARGE', { limit: maxOperationBytes });
    const deadline = performance.now() + publishTimeoutMs;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const ack = await js.publish(subject, data, {
          msgID: op.id,
          timeout: Math.max(1, Math.round(deadline - performance.now())),
          headers: envelope,
        });
        return ack.seq;
      } catch (error) {
        const left = deadline - performance.now();
        if (left <= 0 || closing.aborted) {
          throw createError('CLUSTER_UNAVAILABLE', {
            timeout_ms: publishTimeoutMs,
            reason: `${attempt} attempts; the last: ${(error as Error).message}`,
          });
        }
        await sleep(Math.min(retryPauseMs, left));
      }
    }
  }
}
