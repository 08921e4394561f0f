import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rerankCandidates } from '@godb/contract';
import { seededRandom } from '../../test-support/fuzz-inputs.js';
import { grpcCall, grpcClient, startGrpcTestServer, type GrpcClient } from '../../test-support/grpc.js';
import { overlapScore, tokenOverlap, writeOverlapCrossEncoder } from '../../test-support/overlap-cross-encoder.js';
import type { TestServer } from '../../test-support/server.js';

// The query pipeline's rerank step (issue #42, docs/decisions/0060) against real rerankers: a cross-encoder folder
// the test builds (an ONNX graph scoring the token overlap of the pair, with a word-level tokenizer) and a real HTTP
// server speaking TEI's /rerank and Cohere's /v1/rerank that scores the texts it is sent by the same overlap. Each
// reranked order and score must equal the overlap computed here from what the test wrote.

type Hit = { document_id: string; score: number };
type Answer = {
  results: Hit[];
  total_hits: number;
  explain?: { stage: string; kind: string; hits: Hit[] }[];
  error?: { code: string; message: string; field?: string };
};

const words = ['shock', 'wave', 'boundary', 'layer', 'flow', 'heat', 'plate', 'jet', 'wing', 'vortex', 'drag', 'lift'];
const table = 'rr';
const total = 60;
// Long enough for the local ONNX model's first load and the 4 MiB answer on a loaded machine; the slow one takes 5 s.
const timeoutMs = 1_500;
const next = seededRandom(6060);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
const docs = new Map<string, { title: string; content: string; note: string }>();
/** What the HTTP reranker was sent, per protocol path, last call. */
const received = new Map<string, Record<string, unknown>>();
/** The authorization header each path was last sent ('' for none). */
const authorization = new Map<string, string>();
/** RERANK_API_KEY, configured for the Cohere entry only (RERANK_API_KEY_MODELS). */
const apiKey = 'rk-test-secret';

let server: TestServer;
let admin: Awaited<ReturnType<TestServer['registerTenant']>>;
let grpc: GrpcClient;
let reranker: Server;
let dir: string;

/** A TEI and Cohere reranker scoring by token overlap, and a slow one, and ones answering garbage. */
function answer(req: IncomingMessage, res: ServerResponse, raw: string) {
  const body = JSON.parse(raw) as { query: string; texts?: string[]; documents?: string[]; model?: string };
  received.set(req.url!, body);
  authorization.set(req.url!, req.headers.authorization ?? '');
  const send = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof value === 'string' ? value : JSON.stringify(value));
  };
  const scored = (texts: string[]) =>
    texts.map((t, index) => ({ index, score: tokenOverlap(words, body.query, t) })).sort((a, b) => b.score - a.score);
  if (req.url === '/tei/rerank') return send(200, scored(body.texts!));
  if (req.url === '/cohere/v1/rerank')
    return send(200, {
      id: 'x',
      results: scored(body.documents!)
        .slice(0, 1000)
        .map((s) => ({ index: s.index, relevance_score: s.score / 10 })),
    });
  if (req.url === '/slow/rerank') return setTimeout(() => send(200, scored(body.texts!)), 5_000).unref();
  if (req.url === '/garbage/rerank') return send(200, { hello: 'world' });
  if (req.url === '/short/rerank') return send(200, scored(body.texts!).slice(1));
  if (req.url === '/down/rerank') return send(500, { error: 'model crashed' });
  if (req.url === '/moved/rerank') {
    res.writeHead(307, { location: '/tei/rerank' });
    return res.end();
  }
  if (req.url === '/huge/rerank') return send(200, `[${'0,'.repeat(3 << 20)}0]`);
  return send(404, 'no such route');
}

async function query(body: Record<string, unknown>): Promise<{ status: number; body: Answer; ms: number }> {
  const started = performance.now();
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/search/query',
    headers: { authorization: `Bearer ${admin.token}` },
    payload: { primary_table: table, ...body },
  });
  return { status: res.statusCode, body: res.json() as Answer, ms: performance.now() - started };
}

async function ok(body: Record<string, unknown>): Promise<Answer> {
  const res = await query(body);
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
  return res.body;
}

/** The text stage's candidates, as the request without rerank answers them (fusion order). */
async function candidatesOf(prefetch: Record<string, unknown>[], limit: number): Promise<string[]> {
  const found = await ok({ prefetch, limit });
  return found.results.map((r) => r.document_id);
}

/** Asserts the answer is the candidates by `score`, best first (ties in their earlier order), scores exact. */
function assertReranked(hits: readonly Hit[], candidates: readonly string[], score: (id: string) => number) {
  const expected = candidates
    .map((id, i) => ({ id, i, score: score(id) }))
    .sort((a, b) => b.score - a.score || a.i - b.i);
  assert.deepEqual(
    hits.map((h) => h.document_id),
    expected.map((e) => e.id),
  );
  hits.forEach((h, i) => assert.ok(Math.abs(h.score - expected[i]!.score) < 1e-5, `${h.document_id} score`));
}

const textOf = (id: string) => `${docs.get(id)!.title}\n\n${docs.get(id)!.content}`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'godb-rerank-'));
  writeOverlapCrossEncoder(join(dir, 'overlap'), words);
  // A folder with a tokenizer but no graph: listed, and failing clearly when used.
  mkdirSync(join(dir, 'no-graph'));
  writeFileSync(join(dir, 'no-graph', 'tokenizer.json'), '{}');
  reranker = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => answer(req, res, raw));
  });
  await new Promise<void>((done) => reranker.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(reranker.address() as AddressInfo).port}`;
  const http = ['tei', 'slow', 'garbage', 'short', 'down', 'moved', 'huge'].map((p) => `${p}=tei:${base}/${p}`);
  server = await startGrpcTestServer({
    RERANK_MODELS_DIR: dir,
    RERANK_MODELS: [...http, `cohere-overlap=cohere:${base}/cohere`, `gone=tei:http://127.0.0.1:9/x`].join(','),
    RERANK_TIMEOUT_MS: String(timeoutMs),
    RERANK_API_KEY: apiKey,
    RERANK_API_KEY_MODELS: 'cohere-overlap',
  });
  admin = await server.registerTenant();
  grpc = grpcClient(server, 'SearchService');
  const created = await server.call('POST', '/api/v1/collections', admin.token, { name: table });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const batch = Array.from({ length: total }, (_, i) => ({
    id: `r-${String(i).padStart(2, '0')}`,
    title: Array.from({ length: 2 + Math.floor(next() * 3) }, () => pick(words)).join(' '),
    content: Array.from({ length: 3 + Math.floor(next() * 6) }, () => pick(words)).join(' '),
    note: Array.from({ length: 2 }, () => pick(words)).join(' '),
  }));
  for (const d of batch) docs.set(d.id, d);
  const res = await server.call(
    'POST',
    '/api/v1/documents/batch',
    admin.token,
    batch.map((d) => ({
      id: d.id,
      title: d.title,
      content: d.content,
      primary_table: table,
      metadata: { note: d.note },
    })),
  );
  assert.ok(res.status < 300, JSON.stringify(res.body));
});

after(async () => {
  grpc?.close();
  await server?.close();
  await new Promise((done) => reranker?.close(done));
  reranker?.closeAllConnections();
  rmSync(dir, { recursive: true, force: true });
});

const prefetch = [{ kind: 'text', query: 'shock wave boundary layer', limit: 40 }];
const q = 'shock wave boundary layer';

describe('a local ONNX cross-encoder', () => {
  test('reranks the best candidates by its scores, which equal the overlap computed directly', async () => {
    const candidates = (await candidatesOf(prefetch, 25)).slice(0, 25);
    assert.ok(candidates.length === 25);
    const answer = await ok({ prefetch, rerank: { model: 'overlap', candidates: 25 }, limit: 25, explain: true });
    assertReranked(answer.results, candidates, (id) => overlapScore(words, q, textOf(id)));
    const step = answer.explain?.find((s) => s.stage === 'body.rerank');
    assert.equal(step?.kind, 'rerank');
    assert.deepEqual(
      step?.hits,
      answer.results
        .map((r) => ({ document_id: r.document_id, score: r.score }))
        .map((h) => ({ ...h, score: Math.round(h.score * 1e6) / 1e6 })),
    );
  });

  test('scores a field and its own query when given, and leaves out the candidates beyond its count', async () => {
    const candidates = (await candidatesOf(prefetch, 10)).slice(0, 10);
    const answer = await ok({
      prefetch,
      rerank: { model: 'overlap', candidates: 10, field: 'metadata.note', query: 'heat flow jet' },
      limit: 50,
    });
    assert.equal(answer.results.length, 10);
    assertReranked(answer.results, candidates, (id) => overlapScore(words, 'heat flow jet', docs.get(id)!.note));
  });

  test('scores the best chunk or the title when asked', async () => {
    const candidates = (await candidatesOf(prefetch, 12)).slice(0, 12);
    // Each document here is one chunk: its content.
    const chunk = await ok({ prefetch, rerank: { model: 'overlap', candidates: 12, field: 'chunk' }, limit: 12 });
    assertReranked(chunk.results, candidates, (id) => overlapScore(words, q, docs.get(id)!.content));
    const title = await ok({ prefetch, rerank: { model: 'overlap', candidates: 12, field: 'title' }, limit: 12 });
    assertReranked(title.results, candidates, (id) => overlapScore(words, q, docs.get(id)!.title));
  });

  test('gRPC answers what REST answers, with the default candidates', async () => {
    const body = {
      primary_table: table,
      prefetch: [{ kind: 'filter', limit: total }],
      rerank: { model: 'overlap', query: q },
      limit: total,
    };
    const rest = await ok(body);
    const reply = await grpcCall<Answer>(grpc, 'Query', body, { authorization: `Bearer ${admin.token}` });
    assert.deepEqual(
      reply.results.map((r) => [r.document_id, r.score]),
      rest.results.map((r) => [r.document_id, r.score]),
    );
    assert.equal(rest.total_hits, total);
    assert.equal(rest.results.length, rerankCandidates.default);
    const auth = { authorization: `Bearer ${admin.token}` };
    await assert.rejects(
      grpcCall(grpc, 'Query', { ...body, rerank: { model: 'nope' } }, auth),
      (error: Error & { code?: number }) => error.code === 3 && /Reranker "nope" is not configured/.test(error.message),
    );
    await assert.rejects(
      grpcCall(grpc, 'Query', { ...body, rerank: { model: 'garbage', query: q } }, auth),
      (error: Error & { code?: number }) => error.code === 14 && /The reranker garbage failed/.test(error.message),
    );
  });
});

describe('HTTP rerankers', () => {
  test('TEI /rerank: sent the query and the texts, answered in its score order', async () => {
    const candidates = (await candidatesOf(prefetch, 30)).slice(0, 30);
    const answer = await ok({ prefetch, rerank: { model: 'tei', candidates: 30 }, limit: 30 });
    assert.deepEqual(received.get('/tei/rerank')?.texts, candidates.map(textOf));
    assert.equal(received.get('/tei/rerank')?.query, q);
    // RERANK_API_KEY is configured for the Cohere entry only: this endpoint is not sent it.
    assert.equal(authorization.get('/tei/rerank'), '');
    assertReranked(answer.results, candidates, (id) => tokenOverlap(words, q, textOf(id)));
  });

  test('Cohere /v1/rerank: sent its model and top_n, answered by relevance_score', async () => {
    const candidates = (await candidatesOf(prefetch, 20)).slice(0, 20);
    const answer = await ok({ prefetch, rerank: { model: 'cohere-overlap', candidates: 20 }, limit: 5 });
    const sent = received.get('/cohere/v1/rerank');
    assert.equal(sent?.model, 'cohere-overlap');
    assert.equal(sent?.top_n, 20);
    assert.equal(authorization.get('/cohere/v1/rerank'), `Bearer ${apiKey}`);
    assert.deepEqual(sent?.documents, candidates.map(textOf));
    const expected = candidates
      .map((id, i) => ({ id, i, score: tokenOverlap(words, q, textOf(id)) / 10 }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, 5);
    assert.deepEqual(
      answer.results.map((r) => [r.document_id, r.score]),
      expected.map((e) => [e.id, e.score]),
    );
  });
});

describe('reranker failures answer clearly, naming the model', () => {
  const cases: [string, string, number, string, RegExp][] = [
    ['a slow reranker', 'slow', 503, 'RERANKER_UNAVAILABLE', new RegExp(`did not answer within ${timeoutMs} ms`)],
    ['an answer that is not the protocol', 'garbage', 502, 'RERANKER_FAILED', /is not \[\{index, score\}\]/],
    ['an answer scoring fewer texts', 'short', 502, 'RERANKER_FAILED', /scores 9 of the 10 texts sent/],
    ['an HTTP error', 'down', 502, 'RERANKER_FAILED', /HTTP 500/],
    ['an address nothing listens on', 'gone', 503, 'RERANKER_UNAVAILABLE', /could not be reached/],
    ['a folder without a graph', 'no-graph', 503, 'RERANKER_UNAVAILABLE', /holds no model\.onnx/],
    ['a redirect (not followed)', 'moved', 503, 'RERANKER_UNAVAILABLE', /could not be reached/],
    ['an answer over 4 MiB', 'huge', 502, 'RERANKER_FAILED', /larger than 4194304 bytes/],
  ];
  for (const [what, model, status, code, message] of cases)
    test(`${what}: ${status} ${code}`, async () => {
      const res = await query({ prefetch, rerank: { model, candidates: 10 } });
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.error?.code, code);
      assert.equal(res.body.error?.field, 'body.rerank.model');
      assert.match(res.body.error?.message ?? '', new RegExp(`reranker ${model} `));
      assert.match(res.body.error?.message ?? '', message);
      // Searching users are told the model and what went wrong, not the configured address nor the reranker's words.
      assert.doesNotMatch(res.body.error?.message ?? '', /127\.0\.0\.1|model crashed/);
      // The deadline ends the call: no hang until the slow reranker's 5 s answer.
      assert.ok(res.ms < 4_500, `${res.ms} ms`);
    });
});

describe('bad input answers 400 naming the field', () => {
  test('an unknown model, listing the configured ones', async () => {
    const res = await query({ prefetch, rerank: { model: 'bge-reranker-base' } });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error?.code, 'RERANK_MODEL_NOT_AVAILABLE');
    assert.equal(res.body.error?.field, 'body.rerank.model');
    assert.match(res.body.error?.message ?? '', /RERANK_MODELS_DIR\/bge-reranker-base\//);
    assert.match(res.body.error?.message ?? '', /Available rerankers: tei, slow, .*no-graph, overlap/);
  });

  test(`candidates over ${rerankCandidates.max}`, async () => {
    const res = await query({ prefetch, rerank: { model: 'overlap', candidates: rerankCandidates.max + 1 } });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error?.field, 'body.rerank.candidates');
  });

  test('no query to score against', async () => {
    const res = await query({ prefetch: [{ kind: 'filter', limit: 10 }], rerank: { model: 'overlap' } });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error?.field, 'body.rerank.query');
  });

  test('a rerank stage kind is not a stage', async () => {
    const res = await query({ prefetch: [{ kind: 'rerank', limit: 10 }] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error?.field, 'body.prefetch[0].kind');
  });
});
