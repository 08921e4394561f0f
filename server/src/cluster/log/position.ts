import { createError } from '@godb/contract';
import type { NatsConnection } from '@nats-io/transport-node';
import { abortAfter } from '../abort-after.js';
import type { Consistency } from '../../engine/operations/operation.js';
import { directoryShard } from '../../engine/operations/operation-shard.js';
import type { Placement } from './placement.js';
import type { ShardStreams } from './shard-streams.js';
import type { Shard, Shards } from './shards.js';
import { watchdogMs } from './watchdog.js';

/**
 * How long a shard's last confirmation holds (its stream's leader answered reaching a majority of its replicas, or
 * acknowledged a write): four watchdog checks. Past it, with no answer since, reads depending on the shard are marked
 * stale (see staleness()); a failed answer marks them at once.
 */
const confirmedForMs = 4 * watchdogMs;

/**
 * Why reads answered by this node may be stale (see NatsLog.staleness), for the X-GoDB-Stale header and /readyz: the
 * node cannot confirm it holds every write a majority of the NATS servers accepted, for these shards.
 */
export interface Staleness {
  readonly reason: string;
  readonly shards: readonly number[];
}

/** Where a starting node is: what it applied, where it started, and what the log held then. */
export interface StartingUp {
  applied: number;
  target: number;
  from: number;
}

export interface LogPositionOptions {
  readonly shards: Shards;
  readonly streams: ShardStreams;
  readonly placement: Placement;
  /** NATS_PUBLISH_TIMEOUT_MS: how long a catch-up waits, and what its failures report. */
  readonly publishTimeoutMs: number;
}

/**
 * This node's place in the log as callers see it: the X-GoDB-Seq tokens it answers, the waits a caller's consistency
 * asks for (X-GoDB-Min-Seq, strong reads), whether its reads may be stale, and its progress while it starts.
 *
 * @example
 *   const position = new LogPosition({ shards, streams, placement, publishTimeoutMs: 5000 });
 *   await position.catchUp({ minSeq: { 0: 17 } }); position.token('acme'); // '0:17,5:42'
 */
export class LogPosition {
  readonly #options: LogPositionOptions;
  /** Since when (performance.now()) the connection has been down (the client reconnecting), or null. */
  #disconnectedAt: number | null = null;
  /** Where this node started and what the log held then, until it serves (see startingUp() and serve()). */
  #startedAt: { from: number; target: number } | null = null;

  constructor(options: LogPositionOptions) {
    this.#options = options;
  }

  /** Follows the connection's state: while it is down (the client reconnecting), reads are marked stale. */
  watchConnection(nc: NatsConnection): void {
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'disconnect') this.#disconnectedAt ??= performance.now();
        if (status.type === 'reconnect') this.#disconnectedAt = null;
      }
    })().catch(() => undefined);
  }

  /** Records where this node started (`from` applied) and what the log held then (`target`), until it serves. */
  started(from: number, target: number): void {
    this.#startedAt = { from, target };
  }

  /** The node serves its API: it caught up and finished its start. */
  serve(): void {
    this.#startedAt = null;
  }

  /** While the node starts (until serve()): what it applied, where it started, and what the log held then. */
  startingUp(): StartingUp | undefined {
    const started = this.#startedAt;
    return started ? { applied: this.#options.shards.applied, ...started } : undefined;
  }

  /**
   * The shards an answer to a caller of `tenantId` depends on, and this node's place in each: the directory's (0) and
   * the tenant's once it has one here. As `X-GoDB-Seq`: `0:17,5:42` (shard:sequence pairs).
   */
  token(tenantId?: string): string {
    const shards = new Set([directoryShard]);
    const own = tenantId === undefined ? undefined : this.#options.placement.known(tenantId);
    if (own !== undefined) shards.add(own);
    return [...shards]
      .sort((a, b) => a - b)
      .map((shard) => `${shard}:${this.#options.shards.get(shard).applied}`)
      .join(',');
  }

  /**
   * Why an answer to a caller of `tenantId` may be stale, or null when this node is current for the shards it depends
   * on: the directory's, and the tenant's (every shard while the tenant's is not known here: its data may be on any).
   * "Current" is what JetStream confirmed: a shard counts as current while its stream's leader answered the
   * watchdog's last check (every 2.5 s) reaching a majority of its replicas, or acknowledged a write, within the last
   * 10 s, and this node applies it (not halted). It may not be current when that answer failed or is older, or the
   * connection to every NATS server is down: with a majority of the NATS servers down or out of reach, writes made
   * through them on other nodes would not reach this one, and it cannot tell. Lag while it applies what it was told
   * of is not staleness (`/readyz` shows it as `lag`; X-GoDB-Consistency waits for it).
   */
  staleness(tenantId?: string): Staleness | null {
    const { shards, placement } = this.#options;
    const own = tenantId === undefined ? undefined : placement.known(tenantId);
    const depends =
      tenantId === undefined
        ? [shards.get(directoryShard)]
        : own === undefined
          ? shards.all
          : [...new Set([shards.get(directoryShard), shards.get(own)])];
    return this.staleOn(depends);
  }

  /** Why reads depending on `shards` may be stale, or null (see staleness()). */
  staleOn(shards: readonly Shard[]): Staleness | null {
    const now = performance.now();
    const seconds = (since: number) => Math.max(1, Math.round((now - since) / 1000));
    if (this.#disconnectedAt !== null) {
      return {
        reason: `this node has been disconnected from every NATS server for ${seconds(this.#disconnectedAt)} s (reconnecting); writes other nodes made since may be missing here`,
        shards: shards.map((s) => s.index),
      };
    }
    const failing = shards.filter((s) => s.halted || s.unconfirmed !== null || now - s.confirmedAt > confirmedForMs);
    const first = failing[0];
    if (!first) return null;
    const named =
      failing.length === 1
        ? `shard ${first.index}`
        : `${failing.length} shards (${failing.map((s) => s.index).join(', ')})`;
    const reason = first.halted
      ? `this node stopped applying shard ${first.index} at sequence ${first.halted.seq} (${first.halted.reason}); writes after it are missing here`
      : `JetStream has not confirmed for ${seconds(first.confirmedAt)} s that this node is current on ${named} (stream ${first.stream}: ${first.unconfirmed ?? 'its leader has not answered since'}); a majority of the NATS servers may be down or out of reach, and writes other nodes made through them may be missing here`;
    return { reason, shards: failing.map((s) => s.index) };
  }

  /**
   * Resolves once this node applied what `want` asks (the sequences it names, or everything the shards of `tenantId`'s
   * answers hold now: the directory's and the tenant's), within NATS_PUBLISH_TIMEOUT_MS; else CLUSTER_LAGGING. Another
   * tenant's backlog is not waited for. A sequence beyond its shard's last is refused (it would never come, or not
   * from this cluster).
   */
  async catchUp(want: Consistency, tenantId?: string, signal?: AbortSignal): Promise<void> {
    const { shards, streams, placement, publishTimeoutMs } = this.#options;
    const wanted = new Map<number, number>();
    for (const [key, seq] of Object.entries(want.minSeq ?? {})) {
      const shard = Number(key);
      if (shard >= shards.count) {
        throw createError(
          'VALIDATION_FAILED',
          { detail: `X-GoDB-Min-Seq names shard ${shard}; the log has shards 0 to ${shards.count - 1}` },
          { field: 'headers.x-godb-min-seq' },
        );
      }
      wanted.set(shard, Math.max(wanted.get(shard) ?? 0, seq));
    }
    const strong = new Set<number>();
    if (want.strong) {
      strong.add(directoryShard);
      const own = tenantId === undefined ? null : await placement.shardOf(tenantId, false);
      if (own !== null) strong.add(own);
    }
    const ahead = [...wanted].some(([shard, seq]) => seq > shards.get(shard).known);
    if (strong.size > 0 || ahead) {
      // Only the shards asked for, each from its own stream's leader (listing every stream needs the meta leader).
      const needed = [...new Set([...wanted.keys(), ...strong])];
      const lasts = new Map(
        await Promise.all(needed.map(async (i) => [i, (await streams.boundsOf(i)).last] as const)).catch(
          (error: unknown) => {
            throw createError('CLUSTER_UNAVAILABLE', {
              timeout_ms: publishTimeoutMs,
              reason: `the shards' last sequences could not be read: ${(error as Error).message}`,
            });
          },
        ),
      );
      for (const [i, last] of lasts) shards.get(i).known = Math.max(shards.get(i).known, last);
      // A leader without a majority answers what it last had: no basis for a strong read (see staleness()).
      const doubtful = [...strong].map((i) => shards.get(i)).find((shard) => shard.unconfirmed !== null);
      if (doubtful) {
        throw createError('CLUSTER_UNAVAILABLE', {
          timeout_ms: publishTimeoutMs,
          reason: `shard ${doubtful.index}'s last sequence could not be confirmed: ${doubtful.unconfirmed}`,
        });
      }
      for (const [shard, seq] of wanted) {
        const last = lasts.get(shard) ?? 0;
        if (seq > last) {
          throw createError(
            'VALIDATION_FAILED',
            { detail: `X-GoDB-Min-Seq ${shard}:${seq} is beyond shard ${shard}'s last sequence, ${last}` },
            { field: 'headers.x-godb-min-seq' },
          );
        }
      }
      for (const shard of strong) wanted.set(shard, Math.max(wanted.get(shard) ?? 0, lasts.get(shard) ?? 0));
    }
    const behind = [...wanted].filter(([shard, seq]) => shards.get(shard).applied < seq);
    if (behind.length === 0) return;
    const bound = abortAfter(publishTimeoutMs, signal);
    const reached = await Promise.all(
      behind.map(([shard, seq]) => shards.reached(shards.get(shard), seq, bound.signal)),
    ).finally(() => bound.clear());
    if (reached.every(Boolean)) return;
    signal?.throwIfAborted();
    const [shard, seq] = behind.find(([s, q]) => shards.get(s).applied < q) ?? behind[0] ?? [0, 0];
    throw createError('CLUSTER_LAGGING', {
      applied: shards.get(shard).applied,
      wanted: seq,
      timeout_ms: publishTimeoutMs,
      detail: `Shard ${shard} is behind here. Retry, or read from another node.`,
    });
  }
}
