import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ConfigError } from '../config/env.js';

/** The oldest nats-server GoDB runs on: the consumer API the client uses (named consumers) came with 2.9. */
export const minNatsVersion = [2, 9, 0] as const;
/**
 * The first nats-server that syncs each write before acknowledging it when asked (`jetstream { sync_interval:
 * always }`): 2.9 has no such setting and syncs streams on a 2-minute timer.
 */
export const syncAlwaysNatsVersion = [2, 10, 0] as const;

/** How long a probe of one NATS server's version waits for it to answer (with NATS_SYNC_ALWAYS, or a server joining). */
const probeTimeoutMs = 2_000;

/** True when `version` (`2.9.10`, `v2.10.22`, `2.11.0-beta.1`) is older than `min`; no version counts as older. */
export function olderThan(version: string | undefined, min: readonly number[]): boolean {
  const parts = /^v?(\d+)\.(\d+)\.(\d+)/
    .exec(version ?? '')
    ?.slice(1)
    .map(Number);
  if (!parts) return true;
  // The first part that differs decides (2.10 is newer than 2.9).
  return min.reduce<number>((sign, part, i) => sign || Math.sign((parts[i] ?? 0) - part), 0) < 0;
}

/**
 * Refuses a nats-server older than {@link minNatsVersion}: it would ignore or reject what the log asks of it
 * (consumers made by name, the stream's settings) in ways that surface only later.
 *
 * @example checkNatsVersion('2.9.10'); // passes; checkNatsVersion('2.8.4') throws a ConfigError
 */
export function checkNatsVersion(version: string | undefined): void {
  if (olderThan(version, minNatsVersion)) {
    throw new ConfigError(
      `Cluster mode needs nats-server ${minNatsVersion.join('.')} or newer with JetStream; the server at NATS_URL reports ${version ?? 'no version'}. Upgrade it (Debian bookworm ships 2.9, trixie 2.10; 2.10+ with sync_interval: always also makes acknowledgements survive a power loss).`,
    );
  }
}

/** One NATS server as a node found it at start: its client address and the version it reported (null: no answer). */
export interface NatsServerVersion {
  readonly server: string;
  readonly version: string | null;
}

/**
 * Refuses NATS_SYNC_ALWAYS=true when a NATS server is older than {@link syncAlwaysNatsVersion}: such a server
 * accepts no `sync_interval: always` and syncs on its 2-minute timer, so the durability the setting promises (an
 * acknowledged write survives a power loss of every NATS server) would silently not hold. Servers that did not answer
 * are not judged here (see checkNatsServers).
 *
 * @example checkSyncAlways([{ server: '10.0.0.1:4222', version: '2.10.22' }]); // passes; with '2.9.10' it throws
 */
export function checkSyncAlways(servers: readonly NatsServerVersion[]): void {
  const old = servers.filter((s) => s.version !== null && olderThan(s.version, syncAlwaysNatsVersion));
  if (old.length === 0) return;
  throw new ConfigError(
    `Cluster mode: NATS_SYNC_ALWAYS=true says every NATS server syncs each write to disk before acknowledging it (jetstream { sync_interval: always }), which nats-server ${syncAlwaysNatsVersion.join('.')} added; ${old.map((s) => `${s.server} reports ${s.version}`).join(', ')}, which would ignore that and sync on a 2-minute timer, so a power loss of every NATS server could lose acknowledged writes. Upgrade the NATS servers to 2.10 or newer (Debian trixie ships 2.10) with sync_interval: always, or unset NATS_SYNC_ALWAYS to accept the timer.`,
  );
}

/** `nats://host:port`, `tls://host:port` or `host:port` as `host:port`. */
export const addressOf = (url: string) => url.replace(/^[a-z]+:\/\//, '').replace(/\/$/, '');

/** The version one NATS server reports, asked on a connection of its own (null: it did not answer). */
export async function probeVersion(server: string): Promise<string | null> {
  try {
    const probe = await connect({
      servers: server,
      name: 'godb-version-probe',
      reconnect: false,
      timeout: probeTimeoutMs,
    });
    const version = probe.info?.version ?? null;
    await probe.close();
    return version;
  } catch {
    return null;
  }
}

/**
 * The version of every NATS server a node can find at start: the one `nc` is connected to, the others of NATS_URL
 * and those the connected server names as its cluster's (`connect_urls`), each asked with a connection of its own.
 */
export async function natsServerVersions(nc: NatsConnection, servers: readonly string[]): Promise<NatsServerVersion[]> {
  const connected = addressOf(nc.getServer());
  const others = [...new Set([...servers, ...(nc.info?.connect_urls ?? [])].map(addressOf))].filter(
    (server) => server !== connected,
  );
  const probed = await Promise.all(
    others.map(async (server): Promise<NatsServerVersion> => ({ server, version: await probeVersion(server) })),
  );
  return [{ server: connected, version: nc.info?.version ?? null }, ...probed];
}

/**
 * What a node checks of the NATS servers at its first contact, before it restores or applies anything: the connected
 * server's version (≥ {@link minNatsVersion}) and, with NATS_SYNC_ALWAYS, every server's (≥
 * {@link syncAlwaysNatsVersion}); a server that does not answer then is logged as not checked (a node must start
 * with one NATS server of three down), and the setting itself, which no client can read, is logged as the
 * operator's to keep.
 */
export async function checkNatsServers(
  nc: NatsConnection,
  options: {
    readonly servers: readonly string[];
    readonly syncAlways: boolean;
    readonly logger: { info(obj: object, message: string): void; error(obj: object, message: string): void };
  },
): Promise<void> {
  checkNatsVersion(nc.info?.version);
  if (!options.syncAlways) return;
  const versions = await natsServerVersions(nc, options.servers);
  checkSyncAlways(versions);
  const unchecked = versions.filter((s) => s.version === null).map((s) => s.server);
  if (unchecked.length > 0) {
    options.logger.error(
      { unchecked },
      'cluster mode: NATS_SYNC_ALWAYS: these NATS servers did not answer, so their version was not checked (2.10+ is needed)',
    );
  }
  options.logger.info(
    { servers: versions.filter((s) => s.version !== null) },
    'cluster mode: NATS_SYNC_ALWAYS: the NATS servers are 2.10 or newer; each must run with jetstream { sync_interval: always } (a client cannot read it)',
  );
}
