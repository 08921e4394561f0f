import { setTimeout as sleep } from 'node:timers/promises';
import { createError } from '@godb/contract';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { retryAtStart, type StartLogger } from '../start-retries.js';
import { placeCollection } from './rendezvous.js';

/** The KV bucket of partitioned collections' placements (decision 0062). */
export const placementBucket = 'godb-placement';

/** A partitioned collection's placement, as `godb-placement` records it. */
export interface PlacementRecord {
  readonly tenantId: string;
  readonly name: string;
  /** 1 at creation; every change of its replicas or moves writes the next, by compare-and-set (decision 0082). */
  readonly epoch: number;
  readonly shards: number;
  readonly replicationFactor: number;
  /** The nodes the placement was computed over. */
  readonly nodes: readonly string[];
  /**
   * The serving holders of each shard (index = shard), in the order searches and acknowledgements ask them: caught up
   * with the shard's subject.
   */
  readonly replicas: readonly (readonly string[])[];
  /** Replicas being made: each `to` node replays its shard's subject, then serves it (absent: none). */
  readonly moves?: readonly ReplicaMove[];
  /**
   * The first sequence of the stream `godb-collections` that can be this collection's: a new holder replays its
   * subjects from there, past the writes of a collection of the same name deleted earlier (absent: 1).
   */
  readonly startSeq?: number;
}

/** A replica of a shard being made on a node (decision 0082). */
export interface ReplicaMove {
  readonly shard: number;
  /** The node replaying the shard's subject to serve it. */
  readonly to: string;
  /** The holder it replaces (gone, or leaving once it serves), or empty. */
  readonly from: string;
  /** Unix seconds. */
  readonly startedAt: number;
}

/** The collection's id in subjects and keys: its tenant and name, base64url (KV keys and subjects take few characters). */
export const collectionToken = (tenantId: string, name: string): string =>
  Buffer.from(`${tenantId}\0${name}`).toString('base64url');

/** The id the document shards and the rendezvous weights hash: the tenant and the collection's name. */
export const collectionId = (tenantId: string, name: string): string => `${tenantId}\0${name}`;

const keyOf = (tenantId: string, name: string) => `collection.${collectionToken(tenantId, name)}`;

/**
 * The placements of partitioned collections in KV, cached here: written by the node that takes a collection's
 * creation (before it publishes it, so every node that applies the creation finds it), read by every node.
 *
 * @example
 *   const records = await PlacementRecords.open(nc, jsm, 3, logger);
 *   await records.create('t', 'papers', { shards: 6, replicationFactor: 2 }, ['a', 'b', 'c']);
 *   records.known('t', 'papers')?.replicas[0]; // ['b', 'a']
 */
export class PlacementRecords {
  readonly #kv: KV;
  readonly #jsm: JetStreamManager;
  readonly #cache = new Map<string, PlacementRecord>();
  /** Collections read and found not partitioned, while they exist here (cleared when one is created again). */
  readonly #plain = new Set<string>();

  private constructor(kv: KV, jsm: JetStreamManager) {
    this.#kv = kv;
    this.#jsm = jsm;
  }

  static async open(
    nc: NatsConnection,
    jsm: JetStreamManager,
    replicas: number,
    logger: StartLogger,
  ): Promise<PlacementRecords> {
    const kv = await retryAtStart(
      `opening the KV bucket ${placementBucket}`,
      () => new Kvm(nc).create(placementBucket, { replicas, history: 1 }),
      logger,
    );
    const records = new PlacementRecords(kv, jsm);
    await retryAtStart(`reading the placements in ${placementBucket}`, () => records.#loadAll(), logger);
    return records;
  }

  /** Every placement known here. */
  all(): PlacementRecord[] {
    return [...this.#cache.values()];
  }

  /** The placement of a collection as known here (read at the start or since), or undefined. */
  known(tenantId: string, name: string): PlacementRecord | undefined {
    return this.#cache.get(keyOf(tenantId, name));
  }

  /** True when the collection was read here and is not partitioned (see find). */
  knownPlain(tenantId: string, name: string): boolean {
    return this.#plain.has(keyOf(tenantId, name));
  }

  /** Forgets what is known of a collection (it is being created or deleted): the next find reads KV. */
  forget(tenantId: string, name: string): void {
    this.#cache.delete(keyOf(tenantId, name));
    this.#plain.delete(keyOf(tenantId, name));
  }

  /**
   * The placement of a collection, read from KV when not known here; null when it has none. `exists`: the
   * collection exists here, so a "none" is final until it is created again (its placement is written before its
   * creation is published). A "none" from a replica that has not stored the entry yet is asked again of the
   * bucket's stream leader, as the tenants' shard map is (placement.ts).
   */
  async find(tenantId: string, name: string, exists: boolean): Promise<PlacementRecord | null> {
    const key = keyOf(tenantId, name);
    const cached = this.#cache.get(key);
    if (cached) return cached;
    if (this.#plain.has(key)) return null;
    try {
      const entry = await this.#kv.get(key).catch(() => null);
      let record = entry?.operation === 'PUT' ? entry.json<PlacementRecord>() : null;
      if (!record) {
        const stored = await this.#jsm.streams
          .getMessage(`KV_${placementBucket}`, { last_by_subj: `$KV.${placementBucket}.${key}` })
          .catch(() => null);
        record = stored && !stored.header?.get('KV-Operation') ? stored.json<PlacementRecord>() : null;
      }
      // Through #remember: a watch that delivered a newer epoch meanwhile is not undone by this read.
      if (record && !this.#remember(key, record)) return this.#cache.get(key) ?? record;
      if (!record && exists) this.#plain.add(key);
      return record;
    } catch (error) {
      throw createError('CLUSTER_UNAVAILABLE', {
        timeout_ms: 0,
        reason: `the collection's placement could not be read from the KV bucket ${placementBucket}: ${(error as Error).message}`,
      });
    }
  }

  /**
   * Places a new collection's shards on `nodes` and records it, epoch 1, or the next epoch over the record of a
   * collection of that name deleted earlier (compare-and-set on its revision: two creations racing, one wins and the
   * other's creation fails as a duplicate anyway).
   */
  async create(
    tenantId: string,
    name: string,
    settings: { readonly shards: number; readonly replicationFactor: number },
    nodes: readonly string[],
    startSeq: number,
  ): Promise<PlacementRecord> {
    const key = keyOf(tenantId, name);
    const sorted = [...new Set(nodes)].sort();
    const replicas = placeCollection(collectionId(tenantId, name), settings.shards, sorted, settings.replicationFactor);
    const previous = await this.#kv.get(key).catch(() => null);
    const before = previous?.operation === 'PUT' ? previous.json<PlacementRecord>() : null;
    const record: PlacementRecord = {
      tenantId,
      name,
      epoch: (before?.epoch ?? 0) + 1,
      shards: settings.shards,
      replicationFactor: Math.min(settings.replicationFactor, sorted.length),
      nodes: sorted,
      replicas,
      startSeq,
    };
    try {
      if (previous) await this.#kv.update(key, JSON.stringify(record), previous.revision);
      else await this.#kv.create(key, JSON.stringify(record));
    } catch (error) {
      throw createError('CLUSTER_UNAVAILABLE', {
        timeout_ms: 0,
        reason: `the collection's placement could not be written to the KV bucket ${placementBucket}: ${(error as Error).message}`,
      });
    }
    this.#plain.delete(key);
    this.#cache.set(key, record);
    return record;
  }

  /**
   * Changes a record by compare-and-set on its revision: `change` is given the record as KV holds it and answers the
   * next one, or null to leave it; another node's write in between makes it read and decide again (at most 5 times).
   * Answers the record written, or null.
   */
  async change(
    tenantId: string,
    name: string,
    change: (record: PlacementRecord) => PlacementRecord | null,
  ): Promise<PlacementRecord | null> {
    const key = keyOf(tenantId, name);
    for (let attempt = 1; ; attempt += 1) {
      const entry = await this.#kv.get(key);
      if (entry?.operation !== 'PUT') return null;
      const next = change(entry.json<PlacementRecord>());
      if (!next) return null;
      try {
        await this.#kv.update(key, JSON.stringify(next), entry.revision);
      } catch (error) {
        if (attempt === 5) throw error;
        // Nodes promoting shards of one collection write one key: a pause with jitter lets them take turns.
        await sleep(attempt * 20 + Math.random() * 40);
        continue;
      }
      this.#remember(key, next);
      return next;
    }
  }

  /**
   * Calls `changed` with every record written from now on (and those there now), by any node, until `signal` ends:
   * a KV watch, started again when it ends while the node runs.
   */
  watch(changed: (record: PlacementRecord) => void, signal: AbortSignal): void {
    void (async () => {
      while (!signal.aborted) {
        try {
          const entries = await this.#kv.watch({ key: 'collection.>' });
          signal.addEventListener('abort', () => entries.stop(), { once: true });
          for await (const entry of entries) {
            if (entry.operation !== 'PUT') continue;
            const record = entry.json<PlacementRecord>();
            if (this.#remember(entry.key, record)) changed(record);
          }
        } catch {
          // The connection is back soon (or the node is closing): watch again after a pause.
        }
        if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      }
    })();
  }

  /** Keeps a record unless an older epoch than the one known; true when it is new here. */
  #remember(key: string, record: PlacementRecord): boolean {
    const known = this.#cache.get(key);
    if (known && known.epoch >= record.epoch) return false;
    this.#plain.delete(key);
    this.#cache.set(key, record);
    return true;
  }

  /** Reads every record (the keys the bucket's stream holds, in one request: see ClusterProgress.live). */
  async #loadAll(): Promise<void> {
    const prefix = `$KV.${placementBucket}.`;
    const info = await this.#jsm.streams.info(`KV_${placementBucket}`, { subjects_filter: `${prefix}>` });
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      const key = subject.slice(prefix.length);
      const entry = await this.#kv.get(key);
      if (entry?.operation === 'PUT') this.#remember(key, entry.json<PlacementRecord>());
    }
  }
}
