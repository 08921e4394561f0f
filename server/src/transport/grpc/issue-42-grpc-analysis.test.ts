import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { status, type ServiceError } from '@grpc/grpc-js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { bearer, type TestServer } from '../../test-support/server.js';

// Issue #42 over gRPC: TextSearch takes `lang` and `highlight` from the schema and answers what REST answers,
// highlights included; an unknown language is INVALID_ARGUMENT.

type Reply = { results: { document_id: string; highlights?: string[] }[] };
let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let search: GrpcClient;

before(async () => {
  server = await startGrpcTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/batch',
    headers: bearer(admin.token),
    payload: [
      { id: 'h1', title: 'Häuser', content: 'Die Häuser & <Gärten>.', lang_code: 'de' },
      { id: 'h2', title: 'Haus', content: 'Ein Haus am See.', lang_code: 'de' },
    ].map((d) => ({ ...d, embedding_options: { enabled: false } })),
  });
  assert.equal(res.statusCode, 200, res.body);
  search = grpcClient(server, 'SearchService');
});
after(async () => {
  search?.close();
  await server.close();
});

test('TextSearch with lang and highlight answers what REST answers', async () => {
  const body = { query: 'hauser', query_type: 'match', lang: 'de', highlight: true, limit: 10 };
  const grpc = await grpcCall<Reply>(search, 'TextSearch', body, { authorization: `Bearer ${admin.token}` });
  const rest = (
    await server.app.inject({ method: 'POST', url: '/api/v1/search/text', headers: bearer(admin.token), payload: body })
  ).json() as Reply;
  const view = (r: Reply) => r.results.map((x) => [x.document_id, x.highlights]).sort();
  assert.deepEqual(view(grpc), view(rest));
  assert.deepEqual(view(rest), [
    ['h1', ['Die <em>Häuser</em> &amp; &lt;Gärten&gt;.']],
    ['h2', ['Ein <em>Haus</em> am See.']],
  ]);
  await assert.rejects(
    grpcCall(search, 'TextSearch', { ...body, lang: 'xx' }, { authorization: `Bearer ${admin.token}` }),
    (e: ServiceError) => e.code === status.INVALID_ARGUMENT && /lang/.test(e.message),
  );
});
