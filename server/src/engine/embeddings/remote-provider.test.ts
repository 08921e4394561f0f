import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isGoDBError } from '@godb/contract';
import { embedRemote, parseRemoteModels, type RemoteModel } from './remote-provider.js';

type Handler = (body: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
const seen: { url: string; auth: string | undefined; body: Record<string, unknown> }[] = [];
const sleeps: number[] = [];
const http = { timeoutMs: 300, retries: 2, sleep: async (ms: number) => void sleeps.push(ms) };

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      handler(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
const vector = (seed: number) => Array.from({ length: 4 }, (_v, i) => seed + i / 10);

const openai = (): RemoteModel => ({
  name: 'text-embedding-3-small',
  kind: 'openai',
  baseUrl: `${baseUrl}/v1`,
  apiKey: 'sk-test',
  dimensions: 4,
});
const ollama = (): RemoteModel => ({ name: 'nomic-embed-text', kind: 'ollama', baseUrl, dimensions: 4 });

test('OpenAI-compatible: the wire format, bearer key, order by index, usage tokens', async () => {
  seen.length = 0;
  handler = (body, _req, res) => {
    const input = body.input as string[];
    json(res, 200, {
      object: 'list',
      data: input.map((_t, i) => ({ object: 'embedding', index: i, embedding: vector(i) })).reverse(),
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
  };
  const answer = await embedRemote(openai(), ['a', 'b'], http);
  assert.deepEqual(answer.vectors, [vector(0), vector(1)]);
  assert.equal(answer.promptTokens, 7);
  assert.equal(seen[0]?.url, '/v1/embeddings');
  assert.equal(seen[0]?.auth, 'Bearer sk-test');
  assert.deepEqual(seen[0]?.body, { model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'float' });
});

test('Ollama: /api/embed and its answer shape', async () => {
  seen.length = 0;
  handler = (body, _req, res) =>
    json(res, 200, {
      model: body.model,
      embeddings: (body.input as string[]).map((_t, i) => vector(i)),
      prompt_eval_count: 3,
    });
  const answer = await embedRemote(ollama(), ['x'], http);
  assert.deepEqual(answer.vectors, [vector(0)]);
  assert.equal(answer.promptTokens, 3);
  assert.equal(seen[0]?.url, '/api/embed');
  assert.equal(seen[0]?.auth, undefined);
});

test('429 and 5xx are retried with backoff; Retry-After is honoured', async () => {
  seen.length = 0;
  sleeps.length = 0;
  let calls = 0;
  handler = (_body, _req, res) => {
    calls += 1;
    if (calls === 1) return json(res, 429, { error: { message: 'Rate limit reached' } }, { 'retry-after': '1' });
    if (calls === 2) return json(res, 503, { error: 'loading model' });
    return json(res, 200, { embeddings: [vector(0)] });
  };
  const answer = await embedRemote(ollama(), ['x'], http);
  assert.deepEqual(answer.vectors, [vector(0)]);
  assert.equal(calls, 3);
  assert.deepEqual(sleeps, [1000, 200, 400]);
});

test('a 4xx fails at once with the provider’s own message', async () => {
  let calls = 0;
  handler = (_body, _req, res) => {
    calls += 1;
    json(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
  };
  await assert.rejects(embedRemote(openai(), ['x'], http), (e: unknown) => {
    assert.ok(isGoDBError(e));
    assert.equal(e.code, 'EMBEDDING_PROVIDER_FAILED');
    assert.equal(e.status, 502);
    assert.match(e.message, /OpenAI-compatible .* failed: HTTP 401: Incorrect API key provided/);
    return true;
  });
  assert.equal(calls, 1);
});

test('a provider that does not answer in time fails after the retries with a timeout reason', async () => {
  let calls = 0;
  handler = () => {
    calls += 1; // never answers
  };
  await assert.rejects(embedRemote(ollama(), ['x'], http), /no answer within 300 ms/);
  assert.equal(calls, 3);
});

test('an unreachable provider and a wrong dimension are clear errors', async () => {
  const down: RemoteModel = { ...ollama(), baseUrl: 'http://127.0.0.1:9' };
  await assert.rejects(
    embedRemote(down, ['x'], { ...http, retries: 0 }),
    /cannot reach http:\/\/127\.0\.0\.1:9\/api\/embed/,
  );
  handler = (_body, _req, res) => json(res, 200, { embeddings: [[1, 2]] });
  await assert.rejects(embedRemote(ollama(), ['x'], http), /not a list of 4 numbers/);
});

test('model list settings are parsed or rejected with the bad entry named', () => {
  assert.deepEqual(parseRemoteModels('a:3, b-c:768', 'ollama', 'http://h'), [
    { name: 'a', kind: 'ollama', baseUrl: 'http://h', dimensions: 3 },
    { name: 'b-c', kind: 'ollama', baseUrl: 'http://h', dimensions: 768 },
  ]);
  assert.equal(
    parseRemoteModels('oops', 'openai', 'http://h'),
    '"oops" must be name:dimensions, e.g. text-embedding-3-small:1536',
  );
  assert.deepEqual(parseRemoteModels('', 'openai', 'http://h'), []);
});
