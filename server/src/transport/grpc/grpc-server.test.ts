import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { credentials, status, type Client, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { bearer, type TestServer } from '../../test-support/server.js';

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let search: GrpcClient;
let adminClient: GrpcClient;
let reflection: Client & { ServerReflectionInfo: () => NodeJS.ReadWriteStream };

const call = <T>(client: GrpcClient, method: string, request: unknown, token?: string): Promise<T> =>
  grpcCall<T>(client, method, request, token ? { authorization: `Bearer ${token}` } : {});

async function rest(path: string, body: unknown, token = admin.token) {
  const res = await server.app.inject({ method: 'POST', url: path, headers: bearer(token), payload: body as object });
  return res.json() as { results: { document_id: string; score: number }[] };
}

before(async () => {
  server = await startGrpcTestServer();
  admin = await server.registerTenant();
  await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/batch',
    headers: bearer(admin.token),
    payload: [
      {
        id: 'bl',
        title: 'Boundary layer transition',
        content: 'Laminar boundary layer transition on a flat plate.',
        metadata: { year: 1958 },
        embedding_options: { model_name: 'glove-100' },
      },
      {
        id: 'shock',
        title: 'Shock waves',
        content: 'Shock waves interacting with the boundary layer cause separation.',
        metadata: { year: 1970 },
        embedding_options: { model_name: 'glove-100' },
      },
      {
        id: 'heat',
        title: 'Heat transfer',
        content: 'Convective heat transfer in pipes.',
        metadata: { year: 1962 },
        embedding_options: { model_name: 'glove-100' },
      },
    ],
  });
  search = grpcClient(server, 'SearchService');
  adminClient = grpcClient(server, 'AdminService');
});
after(async () => {
  search?.close();
  adminClient?.close();
  reflection?.close();
  await server.close();
});

type Reply = {
  results: { document_id: string; score: number; metadata: Record<string, string> }[];
  total_hits: number;
};
const ids = (r: { results: { document_id: string }[] }) => r.results.map((x) => x.document_id);

describe('SearchService', () => {
  test('TextSearch answers what REST answers for the same query', async () => {
    const grpcReply = await call<Reply>(search, 'TextSearch', { query: 'boundary layer', limit: 10 }, admin.token);
    const restReply = await rest('/api/v1/search/text', { query: 'boundary layer', limit: 10 });
    assert.deepEqual(ids(grpcReply), ids(restReply));
    assert.ok(ids(grpcReply).length > 0);
    assert.deepEqual(
      grpcReply.results.map((r) => r.score),
      restReply.results.map((r) => r.score),
    );
    assert.equal(grpcReply.results[0]?.metadata.year !== undefined, true, 'metadata values travel as text');
    const paged = await call<Reply>(
      search,
      'TextSearch',
      { query: 'boundary layer', offset: 1, limit: 1 },
      admin.token,
    );
    assert.deepEqual(ids(paged), ids(restReply).slice(1, 2));
  });

  test('a field of the REST request reaches gRPC from the schema alone (issue #21)', async () => {
    // primary_table, query_type and require_geo were never written into the proto by hand: they come from the
    // TypeBox body of search-text, like every field added to it later.
    const added = await server.app.inject({
      method: 'POST',
      url: '/api/v1/documents',
      headers: bearer(admin.token),
      payload: {
        id: 'elsewhere',
        title: 'Boundary layer',
        content: 'A boundary layer, elsewhere.',
        primary_table: 'other',
      },
    });
    assert.equal(added.statusCode, 201, added.body);
    const body = { query: 'boundary layer', primary_table: 'other', query_type: 'match' };
    const grpcReply = await call<Reply>(search, 'TextSearch', body, admin.token);
    assert.deepEqual(ids(grpcReply), ids(await rest('/api/v1/search/text', body)));
    assert.deepEqual(ids(grpcReply), ['elsewhere']);
    const located = await call<Reply>(search, 'TextSearch', { ...body, require_geo: true }, admin.token);
    assert.deepEqual(located.results ?? [], [], 'no document of the table has a location');
  });

  test('VectorSearch and HybridSearch answer what REST answers', async () => {
    const doc = await server.app.inject({
      url: '/api/v1/documents/shock?include_embeddings=true',
      headers: bearer(admin.token),
    });
    const vector = (doc.json() as { document: { embeddings: { vector: number[] }[] } }).document.embeddings[0]!.vector;
    const body = { vector, threshold: 0, limit: 3, embedding_options: { model_name: 'glove-100' } };
    const grpcVector = await call<Reply>(search, 'VectorSearch', body, admin.token);
    const restVector = await rest('/api/v1/search/vector', body);
    assert.deepEqual(ids(grpcVector), ids(restVector));
    assert.equal(ids(grpcVector)[0], 'shock');
    const defaultThreshold = await call<Reply>(
      search,
      'VectorSearch',
      { vector, limit: 3, embedding_options: { model_name: 'glove-100' } },
      admin.token,
    );
    // 0.7 is glove-100's calibrated relevance: a cosine of 0.59 + 0.7 × 0.13 = 0.681.
    assert.ok(
      defaultThreshold.results.every((r) => r.score >= 0.681),
      'an absent threshold takes the REST default 0.7',
    );
    const restDefault = await rest('/api/v1/search/vector', {
      vector,
      limit: 3,
      embedding_options: { model_name: 'glove-100' },
    });
    assert.deepEqual(ids(defaultThreshold), ids(restDefault));
    const hybridBody = { query: 'shock separation', limit: 3 };
    const grpcHybrid = await call<Reply>(search, 'HybridSearch', hybridBody, admin.token);
    const restHybrid = await rest('/api/v1/search/hybrid', hybridBody);
    assert.deepEqual(ids(grpcHybrid), ids(restHybrid));
  });

  test('VectorSearch searches a collection’s own vectors by vector_name, as REST does (issue #15)', async () => {
    const post = (url: string, payload: unknown) =>
      server.app.inject({ method: 'POST', url, headers: bearer(admin.token), payload: payload as object });
    await post('/api/v1/collections', {
      name: 'grpc-own',
      vectors: { a: { dimensions: 3 }, b: { dimensions: 3, distance: 'dot', storage: 'f32' } },
    });
    await post('/api/v1/documents/batch', [
      { id: 'own-x', primary_table: 'grpc-own', vectors: { a: [1, 0, 0], b: [0, 0, 2] } },
      { id: 'own-y', primary_table: 'grpc-own', vectors: { a: [0, 1, 0], b: [3, 0, 0] } },
    ]);
    const body = { vector: [1, 0, 0], threshold: 0, primary_table: 'grpc-own', vector_name: 'b' };
    const grpcReply = await call<Reply>(search, 'VectorSearch', body, admin.token);
    const restReply = await rest('/api/v1/search/vector', body);
    assert.deepEqual(ids(grpcReply), ['own-y', 'own-x']);
    assert.deepEqual(ids(grpcReply), ids(restReply));
    assert.equal(grpcReply.results[0]?.score, 3);
    const hybrid = { query: 'x', vector: [1, 0, 0], alpha: 1, primary_table: 'grpc-own', vector_name: 'b' };
    assert.deepEqual(ids(await call<Reply>(search, 'HybridSearch', hybrid, admin.token)), ['own-y', 'own-x']);
    assert.deepEqual(ids(await rest('/api/v1/search/hybrid', hybrid)), ['own-y', 'own-x']);
    const byDefault = await call<Reply>(search, 'VectorSearch', { ...body, vector_name: '' }, admin.token);
    assert.deepEqual(ids(byDefault), ['own-x', 'own-y']);
    await assert.rejects(
      call(search, 'VectorSearch', { ...body, vector: [1, 0] }, admin.token),
      (e: ServiceError) =>
        e.code === status.INVALID_ARGUMENT && e.metadata.get('godb-error-code')[0] === 'INVALID_VECTOR_FORMAT',
    );
  });

  test('validation errors and missing or forged tokens map to gRPC status codes', async () => {
    await assert.rejects(call(search, 'TextSearch', { query: '' }, admin.token), (e: ServiceError) => {
      assert.equal(e.code, status.INVALID_ARGUMENT);
      assert.equal(e.details, "query parameter 'query' is required");
      assert.equal(e.metadata.get('godb-error-code')[0], 'QUERY_REQUIRED');
      return true;
    });
    await assert.rejects(
      call(search, 'VectorSearch', { vector: [1, 2], threshold: 3 }, admin.token),
      (e: ServiceError) => e.code === status.INVALID_ARGUMENT && e.details === 'Threshold must be between 0 and 1',
    );
    // Filters that are not JSON are the caller's mistake (they answered INTERNAL): INVALID_ARGUMENT with the code,
    // message and field REST answers with its 400.
    const badFilters = '[{"field": ';
    const restAnswer = await server.app.inject({
      method: 'POST',
      url: '/api/v1/search/text',
      headers: bearer(admin.token),
      payload: { query: 'x', filters: badFilters },
    });
    assert.equal(restAnswer.statusCode, 400);
    const restError = (restAnswer.json() as { error: { code: string; message: string; field: string } }).error;
    assert.equal(restError.code, 'INVALID_FILTERS_JSON');
    for (const [method, request] of [
      ['VectorSearch', { query: 'x', filters: badFilters }],
      ['TextSearch', { query: 'x', filters: badFilters }],
      ['HybridSearch', { query: 'x', filters: badFilters }],
    ] as const)
      await assert.rejects(call(search, method, request, admin.token), (e: ServiceError) => {
        assert.equal(e.code, status.INVALID_ARGUMENT, method);
        assert.equal(e.details, restError.message, method);
        assert.equal(e.metadata.get('godb-error-code')[0], 'INVALID_FILTERS_JSON', method);
        assert.equal(e.metadata.get('godb-field')[0], restError.field, method);
        return true;
      });
    await assert.rejects(
      call(search, 'TextSearch', { query: 'x' }),
      (e: ServiceError) => e.code === status.UNAUTHENTICATED && /^Unauthorized: /.test(e.details),
    );
    await assert.rejects(
      call(search, 'TextSearch', { query: 'x' }, 'forged.token.value'),
      (e: ServiceError) => e.code === status.UNAUTHENTICATED,
    );
  });

  test('requested roles and groups narrow, never widen', async () => {
    const user = await server.addUser(admin);
    await assert.rejects(
      call(search, 'TextSearch', { query: 'shock', roles: ['admin'] }, user.token),
      (e: ServiceError) => e.code === status.PERMISSION_DENIED,
    );
    const narrowed = await call<Reply>(search, 'TextSearch', { query: 'shock', roles: ['user'] }, admin.token);
    assert.deepEqual(ids(narrowed), ['shock']);
  });
});

describe('AdminService', () => {
  test('GetUser and CreateGroup for admins; non-admins and other tenants are refused', async () => {
    const user = await call<{ id: string; email: string; roles: string[]; groups: string[] }>(
      adminClient,
      'GetUser',
      { user_id: admin.userId },
      admin.token,
    );
    assert.deepEqual(
      { ...user, groups: user.groups ?? [] },
      { id: admin.userId, email: admin.email, roles: ['admin'], groups: [] },
    );
    const group = await call<{ group_id: string; message: string }>(
      adminClient,
      'CreateGroup',
      { name: `g-${randomUUID()}`, description: 'from gRPC' },
      admin.token,
    );
    assert.match(group.group_id, /^[0-9a-f-]{36}$/);
    const plain = await server.addUser(admin);
    await assert.rejects(
      call(adminClient, 'GetUser', { user_id: admin.userId }, plain.token),
      (e: ServiceError) => e.code === status.PERMISSION_DENIED,
    );
    const other = await server.registerTenant();
    await assert.rejects(
      call(adminClient, 'GetUser', { user_id: admin.userId }, other.token),
      (e: ServiceError) => e.code === status.NOT_FOUND,
    );
    await assert.rejects(
      call(adminClient, 'CreateGroup', { name: '' }, admin.token),
      (e: ServiceError) => e.code === status.INVALID_ARGUMENT && e.metadata.get('godb-field')[0] === 'body.name',
    );
    await assert.rejects(
      call(adminClient, 'GetUser', { user_id: 'not-a-uuid' }, admin.token),
      (e: ServiceError) => e.code === status.INVALID_ARGUMENT,
    );
  });
});

test('server reflection lists both services; the health service answers SERVING', async () => {
  const protoLoader = await import('@grpc/proto-loader');
  const grpcJs = await import('@grpc/grpc-js');
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const reflectionProto = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1alpha/reflection.proto');
  const definition = protoLoader.loadSync(reflectionProto, { keepCase: true });
  const loaded = grpcJs.loadPackageDefinition(definition) as unknown as {
    grpc: { reflection: { v1alpha: { ServerReflection: ServiceClientConstructor } } };
  };
  reflection = new loaded.grpc.reflection.v1alpha.ServerReflection(
    `127.0.0.1:${server.grpc!.port}`,
    credentials.createInsecure(),
  ) as unknown as typeof reflection;
  const stream = (
    reflection as unknown as {
      ServerReflectionInfo: () => NodeJS.ReadWriteStream & { write(m: unknown): void; end(): void };
    }
  ).ServerReflectionInfo();
  const services = await new Promise<string[]>((resolve, reject) => {
    stream.on('data', (m: { list_services_response?: { service: { name: string }[] } }) =>
      resolve(m.list_services_response?.service.map((s) => s.name) ?? []),
    );
    stream.on('error', reject);
    stream.write({ list_services: '' });
  });
  stream.end();
  assert.ok(services.includes('godb.v1.SearchService'), services.join(','));
  assert.ok(services.includes('godb.v1.AdminService'));
  const healthProto = require.resolve('grpc-health-check/proto/health/v1/health.proto');
  const health = grpcJs.loadPackageDefinition(
    protoLoader.loadSync(healthProto, { keepCase: true, enums: String }),
  ) as unknown as { grpc: { health: { v1: { Health: ServiceClientConstructor } } } };
  const client = new health.grpc.health.v1.Health(
    `127.0.0.1:${server.grpc!.port}`,
    credentials.createInsecure(),
  ) as unknown as { Check: (r: unknown, cb: (e: unknown, r: { status: string }) => void) => void; close(): void };
  const answer = await new Promise<{ status: string }>((resolve, reject) =>
    client.Check({ service: 'godb.v1.SearchService' }, (e, r) => (e ? reject(e) : resolve(r))),
  );
  assert.equal(answer.status, 'SERVING');
  client.close();
});
