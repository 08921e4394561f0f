import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { bearer, startTestServer, type TestServer } from '../../test-support/server.js';

// Issue #22: clients that gave up on slow requests kept their in-flight slots for ever, so every later API request
// answered 503 OVERLOADED until a restart; and their work went on. These tests use a real port and real sockets.

/** An OpenAI-compatible embedding provider that never answers; it reports each call and when its caller hangs up. */
class SilentProvider {
  readonly server: Server;
  readonly calls: { closed: Promise<void> }[] = [];
  #onCall: (() => void) | null = null;

  constructor() {
    this.server = createServer((request, response) => {
      request.resume();
      this.calls.push({ closed: once(response, 'close').then(() => undefined) });
      this.#onCall?.();
    });
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Resolves once `n` calls have arrived. */
  async called(n: number): Promise<{ closed: Promise<void> }> {
    while (this.calls.length < n) await new Promise<void>((resolve) => (this.#onCall = resolve));
    return this.calls[n - 1]!;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Fails (instead of hanging) when `promise` has not settled after a generous while: a hang detector, not a timing. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  const timeout = delay(30_000, 'hung' as const, { ref: false });
  const outcome = await Promise.race([promise, timeout]);
  if (outcome === 'hung') assert.fail(`still waiting after 30 s: ${what}`);
  return outcome as T;
}

/** Sends raw bytes of a request on a fresh connection and leaves it open. */
async function rawRequest(port: number, text: string): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.on('error', () => undefined);
  socket.write(text);
  return socket;
}

function embeddingRequest(
  token: string,
  body: string,
  declaredLength = Buffer.byteLength(body),
  path = '/api/v1/embeddings',
): string {
  return [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/json',
    `Content-Length: ${declaredLength}`,
    '',
    body,
  ].join('\r\n');
}

describe('abandoned requests (issue #22)', () => {
  const provider = new SilentProvider();
  let server: TestServer;
  let token: string;
  let base: string;
  let port: number;

  before(async () => {
    const providerUrl = await provider.start();
    server = await startTestServer({
      MAX_CONCURRENT_OPERATIONS: '2',
      WRITE_TIMEOUT_MS: '5000',
      OPENAI_BASE_URL: providerUrl,
      OPENAI_EMBEDDING_MODELS: 'silent-model:8',
      EMBEDDING_TIMEOUT_MS: '600000',
      EMBEDDING_RETRIES: '0',
    });
    token = (await server.registerTenant()).token;
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    port = (server.app.server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    await server.close();
    await provider.close();
  });

  /** Status of a cheap API request: 503 while every in-flight slot is taken. */
  async function probe(): Promise<number> {
    const res = await fetch(`${base}/api/v1/embeddings/models`, { headers: bearer(token) });
    await res.arrayBuffer();
    return res.status;
  }

  async function slotsFree(): Promise<void> {
    await within(
      (async () => {
        while ((await probe()) === 503) await delay(20);
      })(),
      'the abandoned requests to release their in-flight slots',
    );
    assert.equal(await probe(), 200);
  }

  test('clients that hang up mid-body release their slots: later requests are served, not 503', async () => {
    const body = JSON.stringify({ text: 'never finished' });
    const sockets = [
      await rawRequest(port, embeddingRequest(token, body.slice(0, 5), body.length)),
      await rawRequest(port, embeddingRequest(token, body.slice(0, 5), body.length)),
    ];
    await within(
      (async () => {
        while ((await probe()) !== 503) await delay(20);
      })(),
      'both unfinished requests to take their slots',
    );
    for (const socket of sockets) socket.destroy();
    await slotsFree();
  });

  test('a client that hangs up during an embedding frees its slot and stops the provider call', async () => {
    const socket = await rawRequest(
      port,
      embeddingRequest(token, JSON.stringify({ text: 'slow remote embedding', model_name: 'silent-model' })),
    );
    const call = await within(provider.called(provider.calls.length + 1), 'the embedding to reach the provider');
    socket.destroy();
    await within(call.closed, 'the provider call to be aborted (before: it ran until EMBEDDING_TIMEOUT_MS)');
    await slotsFree();
  });

  test('a client that hangs up while its document is embedded stops the provider call; nothing is written', async () => {
    const document = {
      id: 'abandoned-doc',
      title: 'Abandoned',
      content: 'a document whose author gave up',
      embedding_options: { model_name: 'silent-model' },
    };
    const body = JSON.stringify(document);
    const socket = await rawRequest(port, embeddingRequest(token, body, Buffer.byteLength(body), '/api/v1/documents'));
    const call = await within(provider.called(provider.calls.length + 1), 'the embedding to reach the provider');
    socket.destroy();
    await within(call.closed, 'the provider call to be aborted');
    await slotsFree();
    const read = await fetch(`${base}/api/v1/documents/abandoned-doc`, { headers: bearer(token) });
    assert.equal(read.status, 404);
  });

  test('the answer deadline (504) aborts the work too', async () => {
    const answer = fetch(`${base}/api/v1/embeddings`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'past its deadline', model_name: 'silent-model' }),
    });
    const call = await within(provider.called(provider.calls.length + 1), 'the embedding to reach the provider');
    const res = await within(answer, 'the 504');
    assert.equal(res.status, 504);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'REQUEST_TIMEOUT');
    await within(call.closed, 'the provider call to be aborted at the deadline');
    await slotsFree();
  });

  test('/metrics counts requests in flight', async () => {
    const socket = await rawRequest(port, embeddingRequest(token, '{"te', 100));
    const inFlight = async () =>
      Number(/^godb_http_requests_in_flight (\d+)$/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1]);
    await within(
      (async () => {
        while ((await inFlight()) !== 1) await delay(20);
      })(),
      'the unfinished request to show in godb_http_requests_in_flight',
    );
    socket.destroy();
    await within(
      (async () => {
        while ((await inFlight()) !== 0) await delay(20);
      })(),
      'godb_http_requests_in_flight to return to 0',
    );
  });
});
