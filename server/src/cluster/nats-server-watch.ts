import type { NatsConnection } from '@nats-io/transport-node';
import { addressOf, minNatsVersion, olderThan, probeVersion, syncAlwaysNatsVersion } from './nats-version.js';

/** Why this node refuses writes now: a NATS server it cannot trust with them, and its version. */
export interface ServerRefusal {
  /** `host:port`, as the cluster advertises it to clients. */
  readonly server: string;
  readonly version: string | null;
  /** One sentence for the error, /readyz and the log. */
  readonly reason: string;
}

export interface NatsServerWatchOptions {
  /** NATS_SYNC_ALWAYS: every NATS server must be 2.10+ (else only the connected one must be 2.9+). */
  readonly syncAlways: boolean;
  readonly logger: { info(obj: object, message: string): void; error(obj: object, message: string): void };
}

interface Failing extends ServerRefusal {
  /** Judged as the server this node is connected to (the 2.9 rule), which holds only while it stays connected. */
  readonly connected: boolean;
}

const version = (v: readonly number[]) => v.join('.');

/**
 * The start-up checks of the NATS servers' versions (nats-version.ts), applied to the servers a running node learns
 * of later, from its connection's status events: the server it reconnects to (2.9+, and 2.10+ with NATS_SYNC_ALWAYS)
 * and, with NATS_SYNC_ALWAYS, every server that joins the cluster or comes back (2.10+, asked on a connection of its
 * own). A server that fails them makes the node refuse writes (503 CLUSTER_NOT_DURABLE, and /readyz 503) until it
 * leaves the cluster's list of servers (stopped, or replaced by an upgraded one, which is checked in turn): with
 * NATS_SYNC_ALWAYS, an acknowledgement must mean every replica synced the write, and a 2.9 server syncs on a 2-minute
 * timer. Reads and applying the log go on. Each change is logged once.
 *
 * @example const watch = NatsServerWatch.start(nc, { syncAlways: true, logger }); watch.refusal(); // null: writes go
 */
export class NatsServerWatch {
  readonly #nc: NatsConnection;
  readonly #options: NatsServerWatchOptions;
  readonly #failing = new Map<string, Failing>();
  /** The checks of the events seen so far (each event's in turn). */
  #checks: Promise<void> = Promise.resolve();

  private constructor(nc: NatsConnection, options: NatsServerWatchOptions) {
    this.#nc = nc;
    this.#options = options;
  }

  /** Watches `nc`'s status events until it closes (the servers present now were checked at start). */
  static start(nc: NatsConnection, options: NatsServerWatchOptions): NatsServerWatch {
    const watch = new NatsServerWatch(nc, options);
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'reconnect') watch.#then(() => watch.#reconnected(addressOf(status.server)));
        if (status.type === 'update') {
          const { added = [], deleted = [] } = status;
          watch.#then(async () => {
            for (const server of deleted) watch.#forget(addressOf(server), 'it left the cluster');
            for (const server of added) await watch.#joined(addressOf(server));
            watch.#dropGone();
          });
        }
      }
    })().catch((error: unknown) =>
      options.logger.error({ err: error }, 'cluster mode: the watch of the NATS servers stopped'),
    );
    return watch;
  }

  /** The server that makes this node refuse writes now, or null. */
  refusal(): ServerRefusal | null {
    const first = this.#failing.values().next().value;
    return first ? { server: first.server, version: first.version, reason: first.reason } : null;
  }

  /** Resolves once the checks of the events seen so far ended (a probe takes up to 2 s). */
  settled(): Promise<void> {
    return this.#checks;
  }

  #then(check: () => void | Promise<void>): void {
    this.#checks = this.#checks
      .then(check)
      .catch((error: unknown) =>
        this.#options.logger.error({ err: error }, 'cluster mode: a check of a NATS server failed'),
      );
  }

  /** The connection moved to `server` (its INFO is the connection's now). */
  #reconnected(server: string): void {
    for (const [other, failing] of this.#failing)
      if (failing.connected && other !== server) this.#forget(other, 'this node is no longer connected to it');
    const reported = this.#nc.info?.version ?? null;
    const reason = olderThan(reported ?? undefined, minNatsVersion)
      ? `the NATS server this node reconnected to, ${server}, reports nats-server ${reported ?? 'no version'}; cluster mode needs ${version(minNatsVersion)} or newer with JetStream`
      : this.#options.syncAlways && olderThan(reported ?? undefined, syncAlwaysNatsVersion)
        ? this.#syncReason(server, reported, 'this node reconnected to')
        : null;
    if (reason) this.#refuse({ server, version: reported, reason, connected: !this.#options.syncAlways });
    else {
      this.#forget(server, `it now reports ${reported}`);
      this.#options.logger.info(
        { server, version: reported },
        'cluster mode: checked the NATS server this node reconnected to',
      );
    }
    this.#dropGone();
  }

  /** `server` joined the cluster's list (new, or back after it stopped): asked for its version. */
  async #joined(server: string): Promise<void> {
    const { syncAlways, logger } = this.#options;
    const reported = await probeVersion(server);
    if (reported === null) {
      (syncAlways ? logger.error : logger.info).call(
        logger,
        { server },
        `cluster mode: a NATS server joined the cluster but did not answer, so its version was not checked${syncAlways ? ' (NATS_SYNC_ALWAYS needs 2.10+)' : ''}`,
      );
      return;
    }
    if (syncAlways && olderThan(reported, syncAlwaysNatsVersion)) {
      this.#refuse({
        server,
        version: reported,
        reason: this.#syncReason(server, reported, 'joined the cluster'),
        connected: false,
      });
      return;
    }
    this.#forget(server, `it now reports ${reported}`);
    if (olderThan(reported, minNatsVersion)) {
      logger.error(
        { server, version: reported },
        `cluster mode: a NATS server that joined the cluster is older than ${version(minNatsVersion)}, which cluster mode needs: this node refuses writes if it reconnects to it`,
      );
    } else
      logger.info(
        { server, version: reported },
        'cluster mode: a NATS server joined the cluster; its version was checked',
      );
  }

  #syncReason(server: string, reported: string | null, how: string): string {
    return `NATS_SYNC_ALWAYS=true, and the NATS server ${server}, which ${how} after this node started, reports nats-server ${reported ?? 'no version'}, older than ${version(syncAlwaysNatsVersion)}: it has no sync_interval: always and syncs acknowledged writes to disk on a 2-minute timer, so an acknowledgement would not survive a power loss of every NATS server`;
  }

  #refuse(failing: Failing): void {
    const known = this.#failing.get(failing.server);
    this.#failing.set(failing.server, failing);
    if (known?.reason === failing.reason) return;
    this.#options.logger.error(
      { server: failing.server, version: failing.version },
      `cluster mode: this node refuses writes (503 CLUSTER_NOT_DURABLE, /readyz 503) until that server is upgraded or leaves the cluster: ${failing.reason}`,
    );
  }

  #forget(server: string, why: string): void {
    if (!this.#failing.delete(server)) return;
    this.#options.logger.info(
      { server, still_refusing: this.refusal()?.server ?? null },
      `cluster mode: NATS server ${server} no longer stops writes here (${why})`,
    );
  }

  /** Servers no longer in the list the connected server advertises (a deletion the client did not report). */
  #dropGone(): void {
    const listed = this.#nc.info?.connect_urls;
    if (!listed || listed.length === 0) return;
    const present = new Set([...listed.map(addressOf), addressOf(this.#nc.getServer())]);
    for (const server of [...this.#failing.keys()])
      if (!present.has(server)) this.#forget(server, 'it is no longer in the cluster');
  }
}
