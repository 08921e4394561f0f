import { defineOperation } from '../define-operation.js';
import { ClusterView } from '../schemas/cluster.js';

export const getCluster = defineOperation({
  id: 'get-cluster',
  name: 'Get Cluster',
  category: 'cluster',
  summary: 'The nodes, the shard streams and this node’s place in each',
  description:
    'Admin only. In cluster mode: the nodes heard from (id, address, last report, alive), every shard stream with the NATS server leading it and the GoDB nodes applying it, the answering node’s applied sequence and lag per shard, the partitioned collections (created with `shards`) with the nodes holding each of their shards, and the replicas being moved: a node that joins takes its share of the shards, a holder gone past CLUSTER_NODE_GONE_S has its replicas made again elsewhere, each new holder replaying the shard before it serves (decision 0082). An embedded node answers what is true there: itself, no streams, no moves.',
  http: { method: 'GET', path: '/api/v1/cluster', aliases: [] },
  access: 'admin',
  success: { status: 200, schema: ClusterView, description: 'The cluster as the answering node sees it.' },
  errors: [],
  examples: [
    {
      summary: 'A three-node cluster (one shard shown)',
      response: {
        status: 200,
        body: {
          mode: 'cluster',
          node: 'a',
          nodes: [
            { id: 'a', address: 'http://127.0.0.1:8081', last_seen: 1795474301, alive: true },
            { id: 'b', address: 'http://127.0.0.1:8082', last_seen: 1795474300, alive: true },
            { id: 'c', address: 'http://127.0.0.1:8083', last_seen: 1795474299, alive: true },
          ],
          shards: [
            {
              shard: 0,
              stream: 'godb-shard-00',
              leader: 'n1',
              replicas: ['n1', 'n2', 'n3'],
              first_seq: 1,
              last_seq: 42,
              applied_seq: 42,
              lag: 0,
              holders: [
                { node: 'a', applied_seq: 42 },
                { node: 'b', applied_seq: 42 },
                { node: 'c', applied_seq: 40 },
              ],
            },
          ],
          collections: [
            {
              tenant_id: 't-1',
              name: 'papers',
              epoch: 1,
              replication_factor: 2,
              shards: [
                {
                  shard: 0,
                  subject: 'godb.cshard.dC0xAHBhcGVycw.0',
                  replicas: ['b', 'a'],
                  holders: [
                    { node: 'b', applied_seq: 310 },
                    { node: 'a', applied_seq: 310 },
                  ],
                },
                {
                  shard: 1,
                  subject: 'godb.cshard.dC0xAHBhcGVycw.1',
                  replicas: ['c'],
                  holders: [
                    { node: 'c', applied_seq: 296 },
                    { node: 'a', applied_seq: 120 },
                  ],
                },
              ],
            },
          ],
          moves: [
            {
              shard: 1,
              from: 'b',
              to: 'a',
              started_at: 1795474290,
              tenant_id: 't-1',
              collection: 'papers',
              applied_seq: 120,
              last_seq: 296,
              lag: 176,
            },
          ],
        },
      },
    },
    {
      summary: 'An embedded node',
      response: {
        status: 200,
        body: {
          mode: 'embedded',
          node: 'local',
          nodes: [{ id: 'local', address: 'http://localhost:8080', last_seen: 1795474301, alive: true }],
          shards: [],
          collections: [],
          moves: [],
        },
      },
    },
  ],
  grpc: { service: 'AdminService', method: 'GetCluster' },
});
