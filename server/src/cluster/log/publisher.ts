import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createError } from '@godb/contract';
import type { JetStreamClient } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import type { Clock } from '../../engine/clock.js';
import type { Outcome } from '../../engine/operations/operation-applier.js';
import {
  encodeOperation,
  type Operation,
  type OperationBody,
  type SubmitOptions,
  rankedByRequest,
} from '../../engine/operations/operation.js';
import { directoryShard, homeOf } from '../../engine/operations/operation-shard.js';
import type { ServerRefusal } from '../nats-server-watch.js';
import type { Outcomes } from './outcomes.js';
import type { Placement } from './placement.js';
import { maxOperationBytes, retryPauseMs } from './shard-streams.js';
import type { Shard, Shards } from './shards.js';

/** The header naming the directory shard's sequence an operation was decided on (see operation-shard.ts). */
export const afterHeader = 'GoDB-After-Directory';

/** A request's Idempotency-Key, scoped, and how many operations the request has submitted so far. */
interface Idempotency {
  readonly scope: string;
  readonly key: string;
  submitted: number;
}

export interface PublisherOptions {
  readonly js: JetStreamClient;
  /** This node's name (NODE_ID): operations it publishes carry it. */
  readonly nodeId: string;
  /** The time an operation carries (the engine's clock). */
  readonly clock: Clock;
  /** How long a publish waits for JetStream's acknowledgement, and then for this node to apply it. */
  readonly publishTimeoutMs: number;
  readonly shards: Shards;
  readonly placement: Placement;
  readonly outcomes: Outcomes;
  /** Why this node refuses writes now (a NATS server that cannot keep the durability promised), if it does. */
  readonly refusal: () => ServerRefusal | null | undefined;
  /** Aborted when the log closes: a publish then stops retrying. */
  readonly closing: AbortSignal;
}

/**
 * Publishes operations to their home shard (with their id as `Nats-Msg-Id`, retried until acknowledged) and answers
 * each one's outcome once this node applied it: read-your-writes on the node that took the write.
 *
 * @example
 *   const publisher = new Publisher({ js, nodeId: 'a', clock, publishTimeoutMs: 5000, shards, placement, outcomes, refusal, closing });
 *   await publisher.idempotent('acme', key)(() => publisher.submit(body)); // what applying it answered
 */
export class Publisher {
  readonly #options: PublisherOptions;
  readonly #idempotency = new AsyncLocalStorage<Idempotency>();

  constructor(options: PublisherOptions) {
    this.#options = options;
  }

  /**
   * A runner for a request's work: the operations submitted inside it get message ids made from `key`, scoped by
   * `scope` (the tenant), and from their rank in the request: the same request sent again with the same key makes the
   * same ids, which JetStream drops within its duplicate window, and is answered what the first one answered.
   */
  idempotent(scope: string, key: string): <R>(work: () => R) => R {
    const request: Idempotency = { scope, key, submitted: 0 };
    return (work) => this.#idempotency.run(request, work);
  }

  /**
   * Decides an operation (its id, this node, its time: `options.at` or the clock's) and publishes it (see publish).
   * `options.restore` is not observed here: a restore reports nothing on the way in a cluster.
   */
  submit(
    body: OperationBody,
    options?: SubmitOptions,
    publish: (op: Operation) => Promise<unknown> = (op) => this.publish(op),
  ): Promise<unknown> {
    const request = this.#idempotency.getStore();
    let id: string = randomUUID();
    // Only what the request itself writes takes a rank, so its operations get the same ids when it is sent again.
    if (request && rankedByRequest(body)) {
      const rank = request.submitted;
      request.submitted += 1;
      id = `idem-${createHash('sha256')
        .update(JSON.stringify([request.scope, request.key, rank]))
        .digest('hex')
        .slice(0, 40)}`;
    }
    return publish({ ...body, id, node: this.#options.nodeId, now: options?.at ?? this.#options.clock.now() });
  }

  /**
   * Publishes a decided operation to its home shard and answers its outcome here. Publishing the same operation again
   * (a retry after a lost acknowledgement) is applied once: JetStream drops the second copy, and this answers the
   * first's outcome.
   */
  async publish(op: Operation): Promise<unknown> {
    const { shards, placement, outcomes, publishTimeoutMs } = this.#options;
    // A NATS server that joined since this node started cannot keep the durability promised: nothing is published.
    const refusing = this.#options.refusal();
    if (refusing) throw createError('CLUSTER_NOT_DURABLE', { reason: refusing.reason });
    const home = homeOf(op);
    const tenantShard = 'directory' in home ? directoryShard : await placement.shardOf(home.tenantId, true);
    // Never reached: with `create`, a tenant's shard is read or made, or the call fails.
    if (tenantShard === null) throw new Error("the tenant's shard is not fixed");
    const shard = shards.get(tenantShard);
    const { kept, outcome, forget } = outcomes.expect(op.id);
    const data = encodeOperation(op);
    if (data.byteLength > maxOperationBytes) {
      forget();
      throw createError('PAYLOAD_TOO_LARGE', { limit: maxOperationBytes });
    }
    // The directory state this operation was decided on: another node applies it only once its shard 0 reached it.
    const envelope = headers();
    envelope.set(afterHeader, String(shards.get(directoryShard).applied));
    // While NATS elects a new stream leader (a NATS node died), publishes fail or time out: the same message again,
    // with the same id, until the deadline; JetStream stores it once however many attempts reached it.
    const deadline = performance.now() + publishTimeoutMs;
    let seq = 0;
    let duplicate = false;
    for (let attempt = 1; ; attempt += 1) {
      const remaining = Math.round(deadline - performance.now());
      try {
        const ack = await this.#options.js.publish(shard.subject, data, {
          msgID: op.id,
          timeout: Math.max(1, remaining),
          headers: envelope,
        });
        shard.known = Math.max(shard.known, ack.seq);
        // Acknowledged: a majority of the stream's replicas stored it.
        [shard.unconfirmed, shard.confirmedAt] = [null, performance.now()];
        seq = ack.seq;
        duplicate = ack.duplicate;
        break;
      } catch (error) {
        const left = deadline - performance.now();
        if (left <= 0 || this.#options.closing.aborted) {
          forget();
          throw createError('CLUSTER_UNAVAILABLE', {
            timeout_ms: publishTimeoutMs,
            reason: `${attempt} attempts; the last: ${(error as Error).message}`,
          });
        }
        await sleep(Math.min(retryPauseMs, left));
      }
    }
    if (!kept && duplicate && shard.applied >= seq && !outcomes.has(op.id)) {
      // A retry of an operation this node applied before it kept outcomes (it restarted since, or forgot it).
      forget();
      throw createError('IDEMPOTENCY_KEY_REPLAYED', { seq });
    }
    const settled = await this.#settled(outcome, shard, seq, forget);
    if ('error' in settled) throw settled.error;
    // A new tenant's shard is fixed now, at best: its first write then needs any replica of the bucket, not the
    // leader a create needs (its first write fixes it otherwise).
    if (op.kind === 'create-user' && op.register) void placement.shardOf(op.user.tenantId, true).catch(() => undefined);
    return settled.value;
  }

  /**
   * The outcome of the operation stored at `seq` of `shard`, once this node applied it, within
   * NATS_PUBLISH_TIMEOUT_MS: a node whose consumer is stuck answers 503 CLUSTER_LAGGING rather than hold the request
   * for ever (the operation is in the log all the same, and every node applies it).
   */
  async #settled(outcome: Promise<Outcome> | Outcome, shard: Shard, seq: number, forget: () => void): Promise<Outcome> {
    const { publishTimeoutMs } = this.#options;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), publishTimeoutMs);
    });
    const settled = await Promise.race([outcome, late]).finally(() => clearTimeout(timer));
    if (settled) return settled;
    forget();
    throw createError('CLUSTER_LAGGING', {
      applied: shard.applied,
      wanted: seq,
      timeout_ms: publishTimeoutMs,
      detail: `The write is stored in the log (shard ${shard.index}, sequence ${seq}) and every node applies it: read it on another node with X-GoDB-Min-Seq: ${shard.index}:${seq}, or send it again with the same Idempotency-Key (applied once).${shard.halted ? ` This node stopped at sequence ${shard.halted.seq} of that shard: ${shard.halted.reason}.` : ''}`,
    });
  }
}
