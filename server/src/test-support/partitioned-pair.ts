import assert from 'node:assert/strict';
import { bearer, startTestServer, type TestServer } from './server.js';
import { startTestCluster, type TestCluster } from './test-cluster.js';
import { until } from './until.js';

/** An answer of a node as the partitioned-collection tests read it. */
export interface Called {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly raw: string;
  readonly headers: Record<string, unknown>;
}

/** A call to a node through app.inject() with a token (and any other headers). */
export async function call(
  node: TestServer,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  token: string,
  payload?: object,
  headers: Record<string, string> = {},
): Promise<Called> {
  const res = await node.app.inject({
    method,
    url,
    headers: { ...bearer(token), ...headers },
    ...(payload && { payload }),
  });
  const raw = res.body;
  return { status: res.statusCode, body: raw ? res.json<Record<string, unknown>>() : {}, raw, headers: res.headers };
}

/**
 * Issue #41's fixture: GoDB nodes (three unless named) on three real nats-server processes, and one embedded node to
 * compare with (the reference: it holds everything), each with a tenant of its own.
 */
export interface PartitionedPair {
  readonly cluster: TestCluster;
  readonly single: TestServer;
  /** The nodes of the cluster, in order (a, b, c …). */
  readonly nodes: readonly TestServer[];
  /** The cluster's tenant and the embedded node's. */
  readonly tenant: { readonly token: string; readonly tenantId: string };
  readonly alone: { readonly token: string; readonly tenantId: string };
  close(): Promise<void>;
}

/**
 * Starts the cluster (nodes `names`, with `env` besides a 5 s publish timeout) and the embedded node, and a tenant on
 * each.
 */
export async function startPartitionedPair(
  prefix: string,
  env: Record<string, string> = {},
  names: readonly string[] = ['a', 'b', 'c'],
): Promise<PartitionedPair> {
  const cluster = await startTestCluster({ prefix, names, env: { NATS_PUBLISH_TIMEOUT_MS: '5000', ...env } });
  const single = await startTestServer();
  const nodes = cluster.nodes;
  const tenant = await nodes[0]!.registerTenant();
  const alone = await single.registerTenant();
  return {
    cluster,
    single,
    nodes,
    tenant,
    alone,
    close: async () => {
      await single.close();
      await cluster.close();
    },
  };
}

/**
 * Creates the collection `settings` names in the cluster (with `partition`, e.g. `{ shards: 6, replication_factor: 2
 * }`) and on the embedded node (without), writes `documents` through the cluster's nodes in turn and into the
 * embedded node, and waits until the cluster holds every document `copies` times (the replication factor; counted
 * by GET /collections/<name> on each node).
 */
export async function writeBoth(
  pair: PartitionedPair,
  settings: { readonly name: string } & Record<string, unknown>,
  partition: Record<string, unknown>,
  documents: readonly object[],
  copies: number,
): Promise<void> {
  const { nodes, single, tenant, alone } = pair;
  const created = await call(nodes[0]!, 'POST', '/api/v1/collections', tenant.token, { ...settings, ...partition });
  assert.equal(created.status, 201, created.raw);
  const plain = await call(single, 'POST', '/api/v1/collections', alone.token, settings);
  assert.equal(plain.status, 201, plain.raw);
  for (const [i, doc] of documents.entries()) {
    const res = await call(nodes[i % nodes.length]!, 'POST', '/api/v1/documents', tenant.token, doc);
    assert.equal(res.status, 201, res.raw);
    const ref = await call(single, 'POST', '/api/v1/documents', alone.token, doc);
    assert.equal(ref.status, 201, ref.raw);
  }
  let counts: number[] = [];
  await until(
    async () => {
      counts = await Promise.all(
        nodes.map(
          async (n) =>
            (await call(n, 'GET', `/api/v1/collections/${settings.name}`, tenant.token)).body.documents as number,
        ),
      );
      return counts.reduce((x, y) => x + y, 0) === documents.length * copies;
    },
    () => `every document of ${settings.name} is held ${copies} times: ${counts.join(', ')}`,
  );
}
