import { setTimeout as sleep } from 'node:timers/promises';
import { createError } from '@godb/contract';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Outcome, OperationApplier } from '../../engine/operations/operation-applier.js';
import { encodeOperation, type Operation } from '../../engine/operations/operation.js';
import { directoryShard } from '../../engine/operations/operation-shard.js';
import type { SearchPhase } from '../../engine/search/scope.js';
import type { Outcomes } from '../log/outcomes.js';
import type { Placement } from '../log/placement.js';
import { afterHeader } from '../log/publisher.js';
import { maxOperationBytes, retryPauseMs } from '../log/shard-streams.js';
import type { Shards } from '../log/shards.js';
import type { ClusterLogger } from '../start-retries.js';
import { collectionStream, ensureCollectionStream, shardSubjectOf } from './collection-stream.js';
import { documentShard } from './document-shard.js';
import { afterTenantHeader, HeldShards } from './held-shards.js';
import { collectionId, PlacementRecords, type PlacementRecord } from './placement-records.js';
import { movesOf, nextPlacement, promoted } from './shard-moves.js';
import { shardSettings } from './shard-settings.js';
import { decodeJson, decodeReply, encodeJson, encodeReply, isNotHeld, notHeldHere } from './wire.js';

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
  readonly phase?: SearchPhase;
  readonly stats?: unknown;
  /**
   * A fuzzy search's chosen expansions and their notes (its statistics and ranking rounds, decision 0083); an
   * autocompletion's candidate words (decision 0084).
   */
  readonly words?: readonly string[];
  readonly notes?: readonly string[];
  /** A graph query's `features` round: the documents whose content vector sums are asked (decision 0090). */
  readonly ids?: readonly string[];
  /** A recommendation's later rounds: its plan and maxima (decision 0092). */
  readonly given?: unknown;
  /**
   * A search of the whole tenant whose body names a collection all the same (a recommendation's `primary_table`
   * restricts what it ranks, not what it counts): the node counts what `counted` says, as for any whole-tenant one.
   */
  readonly wholeTenant?: boolean;
  /**
   * The dfs round (`stats`) and a search of the whole tenant: the shards of each partitioned collection of the
   * tenant this node counts (fanOut sets it: every partitioned collection counted once over the cluster).
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

/** How often a node moving into a shard compares what it applied with the subject's last sequence. */
const catchUpCheckMs = 500;
/** How long past NATS_PUBLISH_TIMEOUT_MS a shard moved away stays applied here (a KV watch's lag, with room). */
const releaseGraceMs = 2_000;

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
  readonly #jsm: JetStreamManager;
  /** Reconciliations of what this node holds with the records, one at a time (a release awaits its consumer). */
  #reconciling: Promise<void> = Promise.resolve();
  /** The subjects this node is moving into and watching until it caught up. */
  readonly #catchingUp = new Set<string>();
  /** Shards this node no longer holds, kept applied a while before their documents go (see #releaseLater). */
  readonly #releasing = new Map<string, ReturnType<typeof setTimeout>>();
  readonly #subscriptions: Subscription[] = [];
  #liveness: (() => Promise<string[]>) | null = null;
  #live: { nodes: string[]; at: number } | null = null;
  #search: LocalSearch | null = null;

  private constructor(options: PartitionsOptions, records: PlacementRecords, jsm: JetStreamManager) {
    this.#options = options;
    this.#records = records;
    this.#jsm = jsm;
    this.#held = new HeldShards(options);
  }

  static async open(options: PartitionsOptions, jsm: JetStreamManager, replicas: number): Promise<Partitions> {
    await ensureCollectionStream(jsm, replicas);
    const records = await PlacementRecords.open(options.nc, jsm, replicas, options.logger);
    const partitions = new Partitions(options, records, jsm);
    for (const record of records.all()) partitions.#reconcile(record);
    partitions.#releaseStrays();
    records.watch((record) => partitions.#reconcile(record), options.closing);
    partitions.#serveOutcomes();
    return partitions;
  }

  /**
   * The lease holder's step of the replicas' moves (decision 0082): each partitioned collection's placement moves one
   * step toward the one rendezvous gives over `nodes` (those not gone), written by compare-and-set while `holding()`.
   * Answers the collections whose placement changed.
   */
  async rebalance(nodes: readonly string[], holding: () => boolean): Promise<string[]> {
    const changed: string[] = [];
    const now = Math.floor(Date.now() / 1000);
    for (const record of this.#records.all()) {
      // A deleted collection's record stays in KV (the next creation of that name takes its next epoch).
      if (!this.#options.applier.hasCollection(record.tenantId, record.name) || !holding()) continue;
      const next = await this.#records
        .change(record.tenantId, record.name, (fresh) => (holding() ? nextPlacement(fresh, nodes, now) : null))
        .catch((error: unknown) => {
          // This collection's step is taken again next round; the others move now.
          this.#options.logger.warn({ err: error, collection: record.name }, 'cluster mode: a move step failed');
          return null;
        });
      if (!next) continue;
      changed.push(record.name);
      // Its own write is not news to its watch (the epoch is known already): follow it here.
      this.#reconcile(next);
      this.#options.logger.info(
        { collection: record.name, tenant: record.tenantId, epoch: next.epoch, moves: next.moves?.length ?? 0 },
        'cluster mode: moved the replicas of a partitioned collection one step',
      );
    }
    return changed;
  }

  /** What this node applied of each collection shard it holds (its progress reports carry it). */
  heldApplied(): Record<string, number> {
    return Object.fromEntries(this.#held.subjects().map((subject) => [subject, this.#held.applied(subject)]));
  }

  /** The shards of a collection this node is moving into (holds, but does not serve yet). */
  movingInto(tenantId: string, name: string): ReadonlySet<number> {
    const record = this.#records.known(tenantId, name);
    const { nodeId } = this.#options;
    return new Set((record?.moves ?? []).filter((m) => m.to === nodeId).map((m) => m.shard));
  }

  /** The last sequence of a collection shard's subject in the stream (0: none yet). */
  async lastOfSubject(subject: string): Promise<number> {
    const last = await this.#jsm.streams
      .getMessage(collectionStream, { last_by_subj: subject })
      .catch((error: unknown) => {
        if ((error as { code?: unknown }).code === 10037 || /no message found/i.test((error as Error).message))
          return null;
        throw error;
      });
    return last?.seq ?? 0;
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

  /** The tenant's partitioned collections known here, by name. */
  partitionedOf(tenantId: string): string[] {
    return this.#existing(tenantId)
      .map((r) => r.name)
      .sort();
  }

  /**
   * The tenant's partitioned collections that exist here: a deleted collection's record stays in KV (its name's next
   * creation takes the next epoch), and its shards, never moved again, must not fail a search of the whole tenant.
   */
  #existing(tenantId: string): PlacementRecord[] {
    const { applier } = this.#options;
    return this.#records.all().filter((r) => r.tenantId === tenantId && applier.hasCollection(tenantId, r.name));
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
      .then((record) => record && this.#reconcile(record))
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
        const startSeq = await this.#nextSeq();
        const record = await this.#records.create(op.tenantId, op.body.name, settings, live, startSeq);
        this.#reconcile(record);
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
   * tenant's whole index, as on one node. `collection` null: a search of the whole tenant (autocompletion) asks
   * the same, and every partitioned collection's missing shard is its own.
   */
  async fanOut(
    tenantId: string,
    collection: string | null,
    operationId: string,
    body: unknown,
    principal: unknown,
    allowPartial: boolean,
    round: SearchRound = {},
  ): Promise<FannedOut> {
    const record = collection === null ? null : (this.#records.known(tenantId, collection) ?? undefined);
    if (record === undefined)
      throw createError('NOT_FOUND', { resource: 'Partitioned collection', id: String(collection) });
    const live = await this.#liveNodes();
    // The dfs round and a search of the whole tenant (collection null) count every partitioned collection once.
    // A fuzzy or wildcard search's vocabulary round too: one node expands against the whole tenant's vocabulary.
    const counting = round.phase === 'stats' || round.phase === 'expand' || record === null;
    const others = this.#existing(tenantId).filter((r) => r.name !== record?.name);
    const records = record === null ? others : counting ? [record, ...others] : [record];
    const own = (name: string) => record === null || name === record.name;
    /** For each node asked, the shards of each collection it answers for. */
    const asked = new Map<string, Record<string, number[]>>();
    const missing: { name: string; shard: number; holders: readonly string[] }[] = [];
    for (const r of records) {
      // A node moving into another shard holds part of it, which its answer may hold: one that is not is asked first.
      const moving = new Set((r.moves ?? []).map((m) => m.to));
      r.replicas.forEach((replicas, shard) => {
        const node = replicas.find((n) => live.includes(n) && !moving.has(n)) ?? replicas.find((n) => live.includes(n));
        if (node === undefined) return void missing.push({ name: r.name, shard, holders: replicas });
        const shards = asked.get(node) ?? {};
        asked.set(node, { ...shards, [r.name]: [...(shards[r.name] ?? []), shard] });
      });
    }
    // Another collection's shard without a live replica only leaves its documents out of the statistics (noted),
    // never the search of this one.
    const lost = missing.filter((m) => own(m.name));
    const [gone] = lost;
    if (gone && !allowPartial) {
      const more = lost.length > 1 ? `; ${lost.length - 1} more shards are missing` : '';
      throw createError('SHARD_UNAVAILABLE', {
        reason: `shard ${gone.shard} of ${gone.name} has no live replica: held by ${gone.holders.join(', ')}${more}`,
      });
    }
    const byName = new Map(records.map((r) => [r.name, r]));
    const fan = { operationId, body, principal, round, record, own, counting, live, byName };
    const answers = (
      await Promise.all([...asked].map(([node, held]) => this.#askShards(node, held, fan, new Set())))
    ).flat();
    const uncounted = [...new Set(missing.filter((m) => !own(m.name)).map((m) => m.name))];
    return {
      answers,
      missing: lost.map((m) => m.shard),
      ...(uncounted.length > 0 && { uncounted }),
    };
  }

  /**
   * Asks `node` for its part of a fan-out over the shards `held` (by collection). A node that does not answer (it
   * died since it last reported, or its NATS connection broke) has its shards asked of their next live replicas not
   * tried yet; a shard with none left is SHARD_UNAVAILABLE. An error the node answered is the search's.
   */
  async #askShards(
    node: string,
    held: Record<string, number[]>,
    fan: {
      readonly operationId: string;
      readonly body: unknown;
      readonly principal: unknown;
      readonly round: SearchRound;
      /** The collection searched; null for a search of the whole tenant. */
      readonly record: PlacementRecord | null;
      /** Whether a shard of the collection named is the search's own (a shard of it missing is a 503). */
      readonly own: (name: string) => boolean;
      /** Whether each node is told which shards it counts (`counted`). */
      readonly counting: boolean;
      readonly live: readonly string[];
      readonly byName: ReadonlyMap<string, PlacementRecord>;
    },
    tried: ReadonlySet<string>,
  ): Promise<unknown[]> {
    const { operationId, body, principal, round, record } = fan;
    const shards = record ? (held[record.name] ?? []) : [];
    const sent = fan.counting ? { ...round, counted: held } : round;
    if (node === this.#options.nodeId)
      return [await this.#runLocal(operationId, { body }, principal, { ...sent, shards })];
    const { nc, publishTimeoutMs } = this.#options;
    let reply;
    try {
      reply = await nc.request(
        `godb.search.${node}`,
        encodeJson({ operationId, body, principal, round: sent, shards }),
        {
          timeout: publishTimeoutMs,
        },
      );
    } catch (error) {
      const next = new Map<string, Record<string, number[]>>();
      const without = new Set([...tried, node]);
      for (const [name, list] of Object.entries(held)) {
        for (const shard of list) {
          const replicas = fan.byName.get(name)?.replicas[shard] ?? [];
          const other = replicas.find((n) => fan.live.includes(n) && !without.has(n));
          if (other === undefined) {
            if (!fan.own(name)) continue;
            throw createError('SHARD_UNAVAILABLE', {
              reason: `node ${node}, asked for shards ${list.join(', ')} of ${name}, did not answer within ${publishTimeoutMs} ms (${(error as Error).message}), and shard ${shard} has no other live replica`,
            });
          }
          const part = next.get(other) ?? {};
          next.set(other, { ...part, [name]: [...(part[name] ?? []), shard] });
        }
      }
      const again = await Promise.all([...next].map(([other, part]) => this.#askShards(other, part, fan, without)));
      return again.flat();
    }
    const outcome = decodeReply(reply.data);
    if ('error' in outcome) throw outcome.error;
    return [outcome.value];
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
        // A part over NATS's max_payload cannot travel (publish throws, and nothing would catch it): it answers why.
        const respond = (outcome: Parameters<typeof encodeReply>[0]) => {
          const data = encodeReply(outcome);
          const max = this.#options.nc.info?.max_payload;
          if (max === undefined || data.length <= max) return void message.respond(data);
          const reason = `node ${this.#options.nodeId}'s part of ${operationId} is ${data.length} bytes, over the NATS max_payload of ${max}`;
          message.respond(encodeReply({ error: createError('SHARD_UNAVAILABLE', { reason }) }));
        };
        void this.#runLocal(operationId, input, principal, run)
          .then(
            (value) => respond({ value }),
            (thrown: unknown) => respond({ error: thrown }),
          )
          // A reply that cannot be sent at all (the connection closed): the asking node's timeout asks another replica.
          .catch(() => undefined);
      },
    });
    this.#subscriptions.push(sub);
  }

  stop(): void {
    for (const sub of this.#subscriptions) sub.unsubscribe();
    for (const timer of this.#releasing.values()) clearTimeout(timer);
    this.#releasing.clear();
    this.#held.stop();
  }

  ended(): Promise<unknown> {
    return Promise.all([this.#held.ended(), this.#reconciling]);
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

  /**
   * Makes what this node holds of a collection what its record says (decision 0082), after the reconciliations
   * before it: the shards it serves or moves into are applied (a move is watched until it caught up, then
   * promoted), and a shard it applied but no longer holds is released, its documents removed from this node.
   */
  #reconcile(record: PlacementRecord): void {
    const { nodeId, logger } = this.#options;
    this.#reconciling = this.#reconciling
      .then(async () => {
        const current = this.#records.known(record.tenantId, record.name) ?? record;
        for (let shard = 0; shard < current.shards; shard += 1) {
          const subject = shardSubjectOf(current.tenantId, current.name, shard);
          const serving = current.replicas[shard]?.includes(nodeId) ?? false;
          const moving = movesOf(current, shard).some((m) => m.to === nodeId);
          if (serving || moving) this.#held.hold(subject, current.startSeq ?? 1);
          if (moving) this.#catchUp(current.tenantId, current.name, shard);
          if (!serving && !moving && this.#held.holds(subject)) this.#releaseLater(current, shard);
          else if (serving || moving) this.#keepHeld(subject);
        }
      })
      .catch((error: unknown) =>
        logger.error({ err: error, collection: record.name }, 'cluster mode: a placement change was not followed here'),
      );
  }

  /**
   * Releases a shard this node no longer holds after a grace of NATS_PUBLISH_TIMEOUT_MS + 2 s, if the newest record
   * still says so: until then it keeps applying it, so a node whose record is a moment older (its KV watch behind,
   * or its search or acknowledgement already on the way) is answered from every document rather than from none.
   */
  #releaseLater(record: PlacementRecord, shard: number): void {
    const subject = shardSubjectOf(record.tenantId, record.name, shard);
    if (this.#releasing.has(subject)) return;
    const { nodeId, publishTimeoutMs, logger } = this.#options;
    const timer = setTimeout(() => {
      this.#releasing.delete(subject);
      this.#reconciling = this.#reconciling
        .then(async () => {
          const current = this.#records.known(record.tenantId, record.name) ?? record;
          const serving = current.replicas[shard]?.includes(nodeId) ?? false;
          const moving = movesOf(current, shard).some((m) => m.to === nodeId);
          if (!serving && !moving && this.#held.holds(subject)) await this.#release(current, shard);
        })
        .catch((error: unknown) => logger.error({ err: error, subject }, 'cluster mode: a shard was not released'));
    }, publishTimeoutMs + releaseGraceMs);
    timer.unref();
    this.#releasing.set(subject, timer);
  }

  /** A release still in its grace is called off: the shard came back to this node. */
  #keepHeld(subject: string): void {
    const timer = this.#releasing.get(subject);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.#releasing.delete(subject);
  }

  /**
   * Whether this node released `subject` as the newest record it knows says (neither serving nor moving into it):
   * a node that has not seen the record giving it the shard yet (a collection just created) waits for the write
   * instead, as before.
   */
  #releasedHere(subject: string): boolean {
    if (this.#held.holds(subject)) return false;
    const { nodeId } = this.#options;
    for (const record of this.#records.all()) {
      for (let shard = 0; shard < record.shards; shard += 1) {
        if (shardSubjectOf(record.tenantId, record.name, shard) !== subject) continue;
        const listed = record.replicas[shard]?.includes(nodeId) ?? false;
        return !listed && !movesOf(record, shard).some((m) => m.to === nodeId);
      }
    }
    return false;
  }

  /** Stops applying a shard this node no longer holds and removes its documents here. */
  async #release(record: PlacementRecord, shard: number): Promise<void> {
    const subject = shardSubjectOf(record.tenantId, record.name, shard);
    await this.#held.release(subject);
    // A node closing keeps the shard's rows: it releases them at its next start (see releaseStrays).
    if (this.#options.closing.aborted) return;
    const id = collectionId(record.tenantId, record.name);
    const removed = this.#options.applier.releaseSubject(
      subject,
      record.tenantId,
      record.name,
      (docId) => documentShard(id, docId, record.shards) === shard,
    );
    this.#options.logger.info(
      { collection: record.name, shard, removed, epoch: record.epoch },
      'cluster mode: released a collection shard this node no longer holds',
    );
  }

  /**
   * At the start: a subject the store applied some of but that no record gives this node (it was moved away while
   * this node was gone, or came with a cluster snapshot another node took) is released.
   */
  #releaseStrays(): void {
    const bySubject = new Map<string, { record: PlacementRecord; shard: number }>();
    for (const record of this.#records.all()) {
      for (let shard = 0; shard < record.shards; shard += 1) {
        bySubject.set(shardSubjectOf(record.tenantId, record.name, shard), { record, shard });
      }
    }
    // After the reconciliations of the start, which hold what this node holds.
    this.#reconciling = this.#reconciling
      .then(async () => {
        for (const subject of this.#options.applier.appliedSubjects()) {
          const found = bySubject.get(subject);
          if (found && !this.#held.holds(subject)) await this.#release(found.record, found.shard);
        }
      })
      .catch((error: unknown) =>
        this.#options.logger.error({ err: error }, 'cluster mode: a shard no longer held was not released'),
      );
  }

  /**
   * Watches a move into a shard until this node applied the subject's last sequence (as read once it got close),
   * then promotes itself to a serving replica by compare-and-set. Ends when the move leaves the record.
   */
  #catchUp(tenantId: string, name: string, shard: number): void {
    const subject = shardSubjectOf(tenantId, name, shard);
    if (this.#catchingUp.has(subject)) return;
    this.#catchingUp.add(subject);
    const { nodeId, closing, logger } = this.#options;
    const stillMoving = () => {
      const record = this.#records.known(tenantId, name);
      return record !== undefined && movesOf(record, shard).some((m) => m.to === nodeId);
    };
    void (async () => {
      while (!closing.aborted && stillMoving()) {
        const last = await this.lastOfSubject(subject).catch(() => Number.POSITIVE_INFINITY);
        if (this.#held.applied(subject) >= last) {
          // A promotion that lost every compare-and-set (other nodes changing the record) is tried at the next check.
          const written = await this.#records
            .change(tenantId, name, (fresh) => promoted(fresh, shard, nodeId))
            .catch((error: unknown) => {
              logger.warn({ err: error, subject }, 'cluster mode: a promotion was not written; trying again');
              return null;
            });
          if (written) {
            logger.info(
              { collection: name, shard, applied: last, epoch: written.epoch },
              'cluster mode: caught up with a collection shard; it serves it now',
            );
            this.#reconcile(written);
          }
          if (written || !stillMoving()) break;
        }
        await sleep(catchUpCheckMs, undefined, { signal: closing }).catch(() => undefined);
      }
    })()
      .catch((error: unknown) => logger.error({ err: error, subject }, 'cluster mode: a move into a shard stopped'))
      .finally(() => this.#catchingUp.delete(subject));
  }

  /** The next sequence of the stream of collection shards: where a collection created now starts. */
  async #nextSeq(): Promise<number> {
    const info = await this.#jsm.streams.info(collectionStream).catch((error: unknown) => {
      throw createError('CLUSTER_UNAVAILABLE', {
        timeout_ms: this.#options.publishTimeoutMs,
        reason: `the stream ${collectionStream} could not be read: ${(error as Error).message}`,
      });
    });
    return info.state.last_seq + 1;
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
        // Asked by a node whose record is older than this one's (the shard moved away): it asks the next holder.
        if (this.#releasedHere(subject)) return void message.respond(encodeReply(notHeldHere(subject, nodeId)));
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
        const holders = replicas.filter((n) => live.includes(n));
        const holder = holders[0];
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
          : await this.#outcomeFrom(holders, one.id, subject, seq);
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

  /**
   * The outcome of a write from the first of `holders` that answers: a holder that does not (it died since it last
   * reported) gives way to the next, which applies the same operation (and keeps its outcome a while: Outcomes.keep).
   */
  async #outcomeFrom(holders: readonly string[], id: string, subject: string, seq: number): Promise<Outcome> {
    const { nc, nodeId, outcomes, publishTimeoutMs } = this.#options;
    const failures: string[] = [];
    for (const holder of holders) {
      if (holder === nodeId) return this.#localOutcome(outcomes.expect(id), subject, seq);
      try {
        const reply = await nc.request(`godb.outcome.${holder}`, encodeJson({ id, subject, seq }), {
          // The holder answers within the same bound; a little more, so its own answer comes first.
          timeout: publishTimeoutMs + 1_000,
        });
        const outcome = decodeReply(reply.data);
        if ('error' in outcome && isNotHeld(outcome.error)) {
          failures.push(`${holder}: no longer holds ${subject}`);
          continue;
        }
        return outcome;
      } catch (error) {
        failures.push(`${holder}: ${(error as Error).message}`);
      }
    }
    return {
      error: createError('CLUSTER_LAGGING', {
        applied: 0,
        wanted: seq,
        timeout_ms: publishTimeoutMs,
        detail: `The write is stored in the log (${subject}, sequence ${seq}) but no holder answered (${failures.join('; ')}). Send it again with the same Idempotency-Key (applied once).`,
      }),
    };
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
