import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNatsCluster, type NatsCluster } from './nats-cluster.js';
import { startTestServer, type TestServer } from './server.js';

/** The JWT secret every node of a test cluster shares (a token from one node is accepted by all). */
export const clusterJwtSecret = 'a-cluster-wide-secret-of-32-characters-or-more';

/** A document with an uploaded PDF file of `bytes`: what cluster tests add to see a file in the shared store. */
export function documentWithFile(id: string, bytes: Buffer) {
  return {
    id,
    title: 'Report',
    content: 'A report with its file.',
    file_content: bytes.toString('base64'),
    file_type: 'application/pdf',
  };
}

/** Settings of every node of a test cluster, or of each by its name (a port of its own). */
export type NodeEnv =
  Record<string, string> | ((name: string) => Record<string, string> | Promise<Record<string, string>>);

export interface TestClusterOptions {
  /** The nodes started at once, in this order (NODE_ID = name): `['a', 'b', 'c']` unless given. */
  readonly names?: readonly string[];
  /** What the data folders are named after (`godb-cluster-<prefix>-<name>-…`), to tell leftovers apart. */
  readonly prefix?: string;
  /** Settings besides NATS_URL, NODE_ID, JWT_SECRET and DATA_DIR (NATS_PUBLISH_TIMEOUT_MS, CLUSTER_*, SMTP_* …). */
  readonly env?: NodeEnv;
}

/**
 * Three real nats-server processes and GoDB nodes on them, in this process (`startTestServer`, so tests read a node's
 * engine and log directly), each node on a data folder of its own that outlives its stops until `close()`.
 */
export interface TestCluster {
  readonly nats: NatsCluster;
  /** The nodes running now, in the order of their names (`const [a, b, c] = cluster.nodes`). */
  readonly nodes: readonly TestServer[];
  /** The names of the nodes, running or not, in their order. */
  readonly names: readonly string[];
  /** The running node `name`. */
  node(name: string): TestServer;
  /** The name (NODE_ID) of a running node. */
  nameOf(node: TestServer): string;
  /** The data folder (DATA_DIR) of node `name`, kept while it is stopped (the test server's own `dataDir` is another). */
  dir(name: string): string;
  /**
   * Starts node `name` on its data folder (again, after `stop` or `wipe`), with the cluster's settings; by default it
   * resolves once the node caught up and serves (`waitUntilStarted: false` to watch that).
   */
  start(name: string, options?: { waitUntilStarted?: boolean }): Promise<TestServer>;
  /** Stops node `name` (a graceful close); its data folder stays. */
  stop(name: string): Promise<void>;
  /** Removes the data folder of node `name`, stopped, as if its disk was replaced. */
  wipe(name: string): void;
  /** Waits until every running node applied everything the log holds now. */
  settle(): Promise<void>;
  /** Stops every node and the NATS servers and removes the data folders: for `after`. */
  close(): Promise<void>;
}

/**
 * Starts a three-server NATS JetStream cluster and GoDB nodes `a`, `b`, `c` on it (or `names`), one after the other,
 * each once it caught up and serves.
 *
 * @example
 *   let cluster: TestCluster;
 *   before(async () => (cluster = await startTestCluster({ prefix: 'apply', env: { NATS_PUBLISH_TIMEOUT_MS: '3000' } })));
 *   after(() => cluster?.close());
 *   test('…', async () => { const [a, b] = cluster.nodes; … await cluster.settle(); … });
 */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const names = options.names ?? ['a', 'b', 'c'];
  const prefix = options.prefix ?? 'node';
  const nats = await startNatsCluster();
  const dirs = new Map(names.map((name) => [name, mkdtempSync(join(tmpdir(), `godb-cluster-${prefix}-${name}-`))]));
  const running = new Map<string, TestServer>();
  const dir = (name: string) => {
    const found = dirs.get(name);
    if (found === undefined) throw new Error(`no node ${name} in this test cluster: ${names.join(', ')}`);
    return found;
  };
  const nodes = () => names.flatMap((name) => running.get(name) ?? []);
  const cluster: TestCluster = {
    nats,
    names,
    get nodes() {
      return nodes();
    },
    node(name) {
      const node = running.get(name);
      if (!node) throw new Error(`node ${name} is not running`);
      return node;
    },
    nameOf(node) {
      const found = [...running].find(([, n]) => n === node);
      if (!found) throw new Error('this node is not one of the test cluster’s running nodes');
      return found[0];
    },
    dir,
    async start(name, { waitUntilStarted = true } = {}) {
      const env = typeof options.env === 'function' ? await options.env(name) : options.env;
      const node = await startTestServer(
        { NATS_URL: nats.url, NODE_ID: name, JWT_SECRET: clusterJwtSecret, DATA_DIR: dir(name), ...env },
        undefined,
        { waitUntilStarted },
      );
      running.set(name, node);
      return node;
    },
    async stop(name) {
      const node = cluster.node(name);
      // Forgotten first: a node whose close fails is not closed again by `close()`.
      running.delete(name);
      await node.close();
    },
    wipe(name) {
      rmSync(dir(name), { recursive: true, force: true });
    },
    async settle() {
      const [first, ...others] = nodes();
      if (!first) return;
      // Asking JetStream for the shards' last sequences is retried (at most five times) when it times out: right after
      // NATS servers come back, a stream's leader election on a loaded machine can outlast one request's timeout.
      let last = 0;
      for (let attempt = 1; ; attempt += 1) {
        try {
          last = await first.cluster!.lastSequence();
          break;
        } catch (error) {
          if (attempt === 5 || (error as Error).name !== 'TimeoutError') throw error;
        }
      }
      await Promise.all([first, ...others].map((node) => node.cluster!.waitFor(last)));
    },
    async close() {
      await Promise.all([...running.values()].map((node) => node.close()));
      running.clear();
      await nats.stop();
      for (const folder of dirs.values()) rmSync(folder, { recursive: true, force: true });
    },
  };
  try {
    for (const name of names) await cluster.start(name);
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}
