import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A real NATS JetStream cluster of three `nats-server` processes (Debian's package) on loopback: client, cluster
 * route and monitoring ports picked free, one store folder each in a temporary folder. `stop()` ends every process
 * and removes the folder.
 *
 * @example
 *   const nats = await startNatsCluster();
 *   const server = await startTestServer({ NATS_URL: nats.url, NODE_ID: 'a' });
 *   await nats.kill(1); await nats.restart(1);
 *   await nats.stop();
 */
export interface NatsCluster {
  /** The client URLs of every node, comma-separated (GoDB's `NATS_URL`). */
  readonly url: string;
  /** One client URL per node. */
  readonly urls: readonly string[];
  /** Kills node `i` with SIGKILL (a crash: nothing flushed) and waits until it exited. */
  kill(i: number): Promise<void>;
  /** Starts node `i` again on the same ports and store, and waits until it serves JetStream. */
  restart(i: number): Promise<void>;
  /**
   * The node that leads JetStream's metadata now (it makes consumers and streams), as a running node reports it: the
   * hardest of the three to lose, since consumers cannot be made until another is elected.
   */
  metaLeader(): Promise<number>;
  /** Everything the servers logged, for a failing test to print. */
  logs(): string;
  /** Stops node `i` gracefully and waits until it exited; without `i`, stops every node and removes the folder. */
  stop(i?: number): Promise<void>;
}

/** What must be installed: `.ci/run` installs this Debian package when it is missing. */
export const natsPackage = 'nats-server';
const program = existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : '/usr/bin/nats-server';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Node {
  readonly name: string;
  readonly client: number;
  readonly route: number;
  readonly monitor: number;
  child: ChildProcess | null;
}

/** The cluster block; a single server runs without one (JetStream refuses a cluster without routes). */
const clusterBlock = (node: Node, all: readonly Node[]) => `cluster {
  name: godb-test
  listen: 127.0.0.1:${node.route}
  routes: [
${all
  .filter((n) => n !== node)
  .map((n) => `    nats-route://127.0.0.1:${n.route}`)
  .join('\n')}
  ]
}
`;

const config = (root: string, node: Node, all: readonly Node[]) => `server_name: ${node.name}
listen: 127.0.0.1:${node.client}
http: 127.0.0.1:${node.monitor}
max_payload: 8MB
jetstream {
  store_dir: "${join(root, node.name)}"
  max_memory_store: 64MB
  max_file_store: 2GB
}
${all.length === 1 ? '' : clusterBlock(node, all)}`;

/** True when the node answers its health check with JetStream current (meta leader known, streams caught up). */
async function healthy(node: Node): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${node.monitor}/healthz`);
    return response.ok;
  } catch {
    return false;
  }
}

/** The name of the JetStream meta leader `node` knows of, or null (none elected, or the node does not answer). */
async function metaLeaderOf(node: Node): Promise<string | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${node.monitor}/jsz`);
    if (!response.ok) return null;
    const body = (await response.json()) as { meta_cluster?: { leader?: string } };
    return body.meta_cluster?.leader || null;
  } catch {
    return null;
  }
}

/** True when some node reports a JetStream meta leader (the cluster can create streams). */
async function metaLeader(node: Node): Promise<boolean> {
  return (await metaLeaderOf(node)) !== null;
}

/**
 * Starts three JetStream nodes (or `size`; one runs as a standalone server) in a new temporary folder and waits until every one is healthy and the cluster has
 * a meta leader. Throws, naming the Debian package, when nats-server is not installed: a test that needs it fails
 * rather than passing without it.
 */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  if (!existsSync(program)) {
    throw new Error(`nats-server is not installed: apt-get install -y ${natsPackage} (.ci/run installs it)`);
  }
  // A port found free may be taken by another test process before nats-server binds it: start again on new ports.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(size);
    } catch (error) {
      if (attempt === 3 || !(error instanceof PortTaken)) throw error;
    }
  }
}

/** A node could not bind one of its ports (taken since freePort found it free). */
class PortTaken extends Error {}

async function startOnce(size: number): Promise<NatsCluster> {
  const root = mkdtempSync(join(tmpdir(), 'godb-nats-'));
  const nodes: Node[] = [];
  for (let i = 0; i < size; i += 1) {
    const [client, route, monitor] = [await freePort(), await freePort(), await freePort()];
    nodes.push({ name: `n${i + 1}`, client, route, monitor, child: null });
  }
  for (const node of nodes) {
    mkdirSync(join(root, node.name), { recursive: true });
    writeFileSync(join(root, `${node.name}.conf`), config(root, node, nodes));
  }
  const launch = (node: Node) => {
    const log = openSync(join(root, `${node.name}.log`), 'a');
    // A shell stands between: when this process dies without stopping the cluster, its end of the pipe closes, `cat`
    // returns and the server is stopped, so no nats-server outlives the test.
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        '"$@" & server=$!; cat > /dev/null; kill $server 2> /dev/null; wait $server',
        'sh',
        program,
        '-c',
        join(root, `${node.name}.conf`),
      ],
      { stdio: ['pipe', log, log], detached: true },
    );
    child.once('error', () => undefined);
    node.child = child;
  };
  const exited = (node: Node) => {
    const child = node.child;
    node.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => child.once('exit', () => resolve()));
  };
  const signal = async (node: Node, name: 'SIGTERM' | 'SIGKILL') => {
    const child = node.child;
    const done = exited(node);
    if (child?.pid !== undefined) {
      if (name === 'SIGTERM') child.stdin?.end();
      else {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
    await done;
  };
  const ready = async (which: readonly Node[]) => {
    // A bound for a broken installation, not an assertion on speed.
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const taken = which.find((n) => {
        const file = join(root, `${n.name}.log`);
        return existsSync(file) && readFileSync(file, 'utf8').includes('address already in use');
      });
      if (taken) throw new PortTaken(`NATS node ${taken.name} found a port taken:\n${logs()}`);
      const states = await Promise.all(
        which.map(async (n) => (await healthy(n)) && (nodes.length === 1 || (await metaLeader(n)))),
      );
      if (states.every(Boolean)) return;
      await sleep(100);
    }
    throw new Error(`the NATS cluster did not become ready in 60 s:\n${logs()}`);
  };
  const logs = () =>
    nodes
      .map((n) => {
        const file = join(root, `${n.name}.log`);
        return `--- ${n.name}\n${existsSync(file) ? readFileSync(file, 'utf8').slice(-4000) : ''}`;
      })
      .join('\n');
  const stopAll = async () => {
    await Promise.all(nodes.map((n) => signal(n, 'SIGTERM')));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    nodes.forEach(launch);
    await ready(nodes);
  } catch (error) {
    await stopAll();
    throw error;
  }
  const nodeAt = (i: number) => {
    const node = nodes[i];
    if (!node) throw new RangeError(`no NATS node ${i}`);
    return node;
  };
  const urls = nodes.map((n) => `nats://127.0.0.1:${n.client}`);
  return {
    url: urls.join(','),
    urls,
    logs,
    async stop(i?: number) {
      if (i === undefined) return stopAll();
      await signal(nodeAt(i), 'SIGTERM');
    },
    kill: (i) => signal(nodeAt(i), 'SIGKILL'),
    async metaLeader() {
      for (const node of nodes.filter((n) => n.child)) {
        const name = await metaLeaderOf(node);
        const index = nodes.findIndex((n) => n.name === name);
        if (index >= 0) return index;
      }
      throw new Error('no NATS node reports a JetStream meta leader');
    },
    async restart(i) {
      const node = nodeAt(i);
      await signal(node, 'SIGTERM');
      launch(node);
      await ready([node]);
    },
  };
}
