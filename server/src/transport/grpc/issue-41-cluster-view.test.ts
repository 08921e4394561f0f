import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { status, type ServiceError } from '@grpc/grpc-js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { superAdmin, type TestServer } from '../../test-support/server.js';

// Issue #41, the cluster view: GET /api/v1/cluster on an embedded node answers what is true there (one node, no
// shard streams, no moves; decision 0057), to admins only, over REST and gRPC alike (here, beside the gRPC tests,
// which may import the gRPC client).

describe('GET /api/v1/cluster on an embedded node (issue #41)', () => {
  let server: TestServer;
  let admin: GrpcClient;
  before(async () => {
    server = await startGrpcTestServer({ NODE_ID: 'solo' });
    admin = grpcClient(server, 'AdminService');
  });
  after(async () => {
    admin?.close();
    await server?.close();
  });

  test('a tenant admin and the super admin see one node, no streams and no moves', async () => {
    const tenant = await server.registerTenant();
    const root = await server.login(superAdmin.email, superAdmin.password);
    for (const token of [tenant.token, root]) {
      const { status: code, body } = await server.call('GET', '/api/v1/cluster', token);
      assert.equal(code, 200, JSON.stringify(body));
      const { nodes, ...rest } = body as { nodes: { id: string; address: string; alive: boolean }[] };
      assert.deepEqual(rest, { mode: 'embedded', node: 'solo', shards: [], collections: [], moves: [] });
      assert.deepEqual(
        nodes.map((n) => [n.id, n.alive]),
        [['solo', true]],
      );
      assert.match(nodes[0]!.address, /^http:\/\//);
    }
    const answer = await grpcCall<{ mode: string; node: string; nodes: unknown[]; shards?: unknown[] }>(
      admin,
      'GetCluster',
      {},
      { authorization: `Bearer ${tenant.token}` },
    );
    assert.deepEqual([answer.mode, answer.node, answer.nodes.length, answer.shards ?? []], ['embedded', 'solo', 1, []]);
  });

  test('a plain user gets 403 FORBIDDEN, over REST and gRPC; no token gets 401', async () => {
    const tenant = await server.registerTenant();
    const user = await server.addUser(tenant);
    const refused = await server.call('GET', '/api/v1/cluster', user.token);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error?.code, 'FORBIDDEN');
    assert.equal((await server.call('GET', '/api/v1/cluster')).status, 401);
    await assert.rejects(
      grpcCall(admin, 'GetCluster', {}, { authorization: `Bearer ${user.token}` }),
      (error: ServiceError) => error.code === status.PERMISSION_DENIED,
    );
  });
});
