import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { status, type ServiceError } from '@grpc/grpc-js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { bearer, type TestServer } from '../../test-support/server.js';

// Issue #42: RM3 feedback (`feedback: {docs, terms, original_weight}`) on text search and on the query pipeline's
// text stage, over REST and gRPC alike: explain answers the feedback documents and the weighted terms, and bad values
// are 400 naming the field.

type Feedback = { documents: string[]; terms: { term: string; weight: number }[] };
type Answer = {
  results: { document_id: string; score: number }[];
  notes?: string[];
  plan?: { feedback?: Feedback };
  explain?: { stage: string; kind: string; hits: { document_id: string; score: number }[]; feedback?: Feedback }[];
};
type ErrorBody = { code: string; field?: string; message: string };

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let search: GrpcClient;
const auth = () => ({ authorization: `Bearer ${admin.token}` });

const docs = [
  {
    id: 'w1',
    title: 'Shock waves',
    content: 'Shock wave over wedges: the shock stands off the nose, standoff distance.',
  },
  { id: 'w2', title: 'Blunt bodies', content: 'The shock ahead of blunt nose and its standoff distance.' },
  { id: 'w3', title: 'Standoff', content: 'Standoff distance of detached bow waves at hypersonic speed.' },
  { id: 'w4', title: 'Boundary layers', content: 'Laminar boundary layer on flat plates, heat transfer.' },
  { id: 'w5', title: 'Heat', content: 'Heat transfer in turbulent boundary layers with pressure gradients.' },
  { id: 'w6', title: 'Wedges', content: 'Attached oblique waves on wedges at supersonic speed.' },
];

const post = async (path: string, body: Record<string, unknown>) => {
  const res = await server.app.inject({ method: 'POST', url: path, headers: bearer(admin.token), payload: body });
  return { status: res.statusCode, body: res.json() as Answer & { error: ErrorBody } };
};
const ok = async (path: string, body: Record<string, unknown>) => {
  const res = await post(path, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

before(async () => {
  server = await startGrpcTestServer({ RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000' });
  admin = await server.registerTenant();
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/documents/batch',
    headers: bearer(admin.token),
    payload: docs.map((d) => ({ ...d, embedding_options: { enabled: false } })),
  });
  assert.equal(res.statusCode, 200, res.body);
  search = grpcClient(server, 'SearchService');
});
after(async () => {
  search?.close();
  await server.close();
});

const text = { query: 'shock nose', query_type: 'match', limit: 10 };

describe('RM3 feedback over REST and gRPC (issue #42)', () => {
  test('text search with feedback: expansion terms in explain, documents a plain search does not find', async () => {
    const plain = await ok('/api/v1/search/text', text);
    assert.deepEqual(plain.results.map((r) => r.document_id).sort(), ['w1', 'w2']);
    const fed = await ok('/api/v1/search/text', { ...text, feedback: { docs: 2, terms: 5 }, explain: true });
    const feedback = fed.plan?.feedback;
    assert.ok(feedback, JSON.stringify(fed));
    assert.deepEqual([...feedback.documents].sort(), ['w1', 'w2']);
    // Both feedback documents speak of the standoff distance: the expansion finds w3, which holds neither word.
    assert.ok(
      feedback.terms.some((t) => t.term === 'standoff'),
      JSON.stringify(feedback.terms),
    );
    assert.ok(
      fed.results.some((r) => r.document_id === 'w3'),
      JSON.stringify(fed.results),
    );
    const sum = feedback.terms.reduce((s, t) => s + t.weight, 0);
    assert.ok(Math.abs(sum - 1) < 1e-9, String(sum));
    // The query's own terms carry the original weight (0.5 by default) and more.
    assert.ok(feedback.terms.find((t) => t.term === 'shock')!.weight >= 0.25);
    assert.ok(
      fed.notes?.some((n) => n.startsWith('feedback: ')),
      JSON.stringify(fed.notes),
    );
    // Without explain, no plan; the defaults (5, 10, 0.5) apply to an empty object.
    const defaults = await ok('/api/v1/search/text', { ...text, feedback: {} });
    assert.equal(defaults.plan, undefined);
    const spelled = await ok('/api/v1/search/text', {
      ...text,
      feedback: { docs: 5, terms: 10, original_weight: 0.5 },
    });
    assert.deepEqual(defaults.results, spelled.results);
  });

  test('gRPC TextSearch answers what REST answers, explain included', async () => {
    const body = { ...text, feedback: { docs: 2, terms: 5, original_weight: 0.6 }, explain: true };
    const rest = await ok('/api/v1/search/text', body);
    const grpc = await grpcCall<Answer>(search, 'TextSearch', body, auth());
    assert.deepEqual(
      grpc.results.map((r) => [r.document_id, r.score]),
      rest.results.map((r) => [r.document_id, r.score]),
    );
    assert.deepEqual(grpc.plan?.feedback, rest.plan?.feedback);
    // Fields left out take the defaults over gRPC too (an empty message is not sent at all, as for every nested
    // message: give one field; original_weight 0 is a value, so it is sent only when given).
    const defaults = { ...text, feedback: { docs: 5 }, explain: true };
    const restDefaults = await ok('/api/v1/search/text', { ...defaults, feedback: {} });
    const grpcDefaults = await grpcCall<Answer>(search, 'TextSearch', defaults, auth());
    assert.deepEqual(grpcDefaults.plan?.feedback, restDefaults.plan?.feedback);
    const zero = { ...text, feedback: { original_weight: 0 }, explain: true };
    const restZero = await ok('/api/v1/search/text', zero);
    // Only the expansion is ranked: a word the query lacks weighs twice what it weighs at the default 0.5.
    const weight = (a: Answer, term: string) => a.plan!.feedback!.terms.find((t) => t.term === term)!.weight;
    assert.ok(Math.abs(weight(restZero, 'standoff') - 2 * weight(restDefaults, 'standoff')) < 1e-12);
    assert.deepEqual(
      (await grpcCall<Answer>(search, 'TextSearch', zero, auth())).plan?.feedback,
      restZero.plan?.feedback,
    );
  });

  test('the pipeline text stage takes feedback and ranks as text search does', async () => {
    const feedback = { docs: 2, terms: 5, original_weight: 0.5 };
    const body = { prefetch: [{ kind: 'text', query: 'shock nose', feedback, limit: 10 }], limit: 10, explain: true };
    const piped = await ok('/api/v1/search/query', body);
    const direct = await ok('/api/v1/search/text', { ...text, feedback, explain: true });
    assert.deepEqual(
      piped.results.map((r) => [r.document_id, r.score]),
      direct.results.map((r) => [r.document_id, r.score]),
    );
    const stage = piped.explain?.find((s) => s.stage === 'body.prefetch[0]');
    assert.equal(stage?.kind, 'text');
    assert.deepEqual(stage?.feedback, direct.plan?.feedback);
    const grpc = await grpcCall<Answer>(search, 'Query', body, auth());
    assert.deepEqual(
      grpc.results.map((r) => [r.document_id, r.score]),
      piped.results.map((r) => [r.document_id, r.score]),
    );
    assert.deepEqual(grpc.explain?.[0]?.feedback, stage?.feedback);
  });

  test('bad feedback values are 400 naming the field, over REST and gRPC', async () => {
    const refused = async (path: string, body: Record<string, unknown>, field: string, message: string) => {
      const res = await post(path, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'VALIDATION_FAILED');
      assert.equal(res.body.error.field, field, JSON.stringify(res.body.error));
      assert.equal(res.body.error.message, message);
    };
    const t = '/api/v1/search/text';
    await refused(t, { ...text, feedback: { docs: 0 } }, 'body.feedback.docs', 'body.feedback.docs must be >= 1');
    await refused(t, { ...text, feedback: { docs: 51 } }, 'body.feedback.docs', 'body.feedback.docs must be <= 50');
    await refused(t, { ...text, feedback: { terms: 0 } }, 'body.feedback.terms', 'body.feedback.terms must be >= 1');
    await refused(
      t,
      { ...text, feedback: { terms: 101 } },
      'body.feedback.terms',
      'body.feedback.terms must be <= 100',
    );
    await refused(
      t,
      { ...text, feedback: { original_weight: 1.5 } },
      'body.feedback.original_weight',
      'body.feedback.original_weight must be <= 1',
    );
    await refused(t, { ...text, feedback: { docs: 2.5 } }, 'body.feedback.docs', 'body.feedback.docs must be integer');
    await refused(
      t,
      { ...text, feedback: { rounds: 2 } },
      'body.feedback.rounds',
      'body.feedback.rounds is not a known field: check its spelling against the API reference',
    );
    await refused(
      t,
      { ...text, query_type: 'phrase', feedback: {} },
      'body.feedback',
      'body.feedback needs query_type match (it is phrase): feedback expands the query into a query of any of its words.',
    );
    const q = '/api/v1/search/query';
    await refused(
      q,
      { prefetch: [{ kind: 'text', query: 'shock', feedback: { terms: 200 } }] },
      'body.prefetch[0].feedback.terms',
      'body.prefetch[0].feedback.terms must be <= 100',
    );
    await refused(
      q,
      { prefetch: [{ kind: 'filter', feedback: {} }] },
      'body.prefetch[0].feedback',
      'body.prefetch[0].feedback is not read by a filter stage: remove it.',
    );
    await assert.rejects(
      grpcCall(search, 'TextSearch', { ...text, feedback: { docs: 51 } }, auth()),
      (e: ServiceError) => e.code === status.INVALID_ARGUMENT && /feedback\.docs/.test(e.message),
    );
  });
});
