import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadConfig, type Config } from '../config/env.js';
import { createServer, type GoDBServer } from '../compose/create-server.js';
import type { Clock } from '../engine/clock.js';
import { sharedGloveReady, sharedModelCacheDir } from './model-cache.js';

export interface TestServer extends GoDBServer {
  readonly dataDir: string;
  /** Registers a fresh tenant with its admin and returns the admin's token and ids. */
  registerTenant(
    email?: string,
  ): Promise<{ token: string; userId: string; tenantId: string; email: string; password: string }>;
  /** Logs in and returns the token. */
  login(email: string, password: string): Promise<string>;
  /**
   * A plain user in the tenant of `admin`, made the only way the API allows: the super admin creates it, the
   * tenant admin demotes it to `user`.
   */
  addUser(admin: { token: string; tenantId: string }): Promise<{ userId: string; email: string; token: string }>;
  /** Listens on a free loopback port (for clients that speak real HTTP) and answers its base URL. */
  listen(): Promise<string>;
  /**
   * One request through `app.inject()`, as `token`'s bearer (none without it), with `payload` as its JSON body.
   *
   * @example const { status, body } = await server.call('POST', '/api/v1/documents', admin.token, { id: 'a' });
   */
  call(method: HttpMethod, url: string, token?: string, payload?: unknown): Promise<Answer>;
  /**
   * Asks GET /api/v1/jobs/{id} as `token`'s user until the job is done or failed, and answers it.
   *
   * @example assert.equal((await server.finishedJob(admin.token, accepted.body.job_id)).status, 'done');
   */
  finishedJob(token: string, jobId: unknown): Promise<Job>;
}

/** A background job as GET /api/v1/jobs/{id} answers it. */
export interface Job {
  status: 'queued' | 'running' | 'done' | 'failed';
  processed: number;
  total: number;
  error?: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A JSON answer's body: any object, with the catalogue's error when the request failed. */
export type JsonBody = Record<string, unknown> & { error?: { code: string; message: string; field?: string } };

/** What {@link TestServer.call} answers: the status, the parsed body (`{}` when empty), the headers and raw text. */
export interface Answer {
  status: number;
  body: JsonBody;
  text: string;
  /** The body's bytes, for answers that are not JSON (a snapshot's archive). */
  raw: Buffer;
  headers: Record<string, string | string[] | number | undefined>;
}

export const superAdmin = { email: 'root@godb.test', password: 'super-secret-password' };

/**
 * A real GoDB server on a temporary data folder, driven through `app.inject()`. Rate limits are raised so the
 * suite is not throttled; the rate-limit test sets its own.
 */
export async function startTestServer(
  overrides: Record<string, string> = {},
  clock?: Clock,
  { waitUntilStarted = true } = {},
): Promise<TestServer> {
  // Servers convert GloVe lazily; the tests that name glove-100 expect it ready (a test of the lazy conversion gives
  // a MODEL_CACHE_DIR of its own).
  if (overrides.MODEL_CACHE_DIR === undefined) await sharedGloveReady();
  const dataDir = mkdtempSync(join(tmpdir(), 'godb-test-'));
  const config: Config = loadConfig({
    DATA_DIR: dataDir,
    // GODB_TEST_LOG_LEVEL=info prints a failing test's server logs (the cluster tests' timelines).
    LOG_LEVEL: process.env.GODB_TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMIT_RPS: '100000',
    RATE_LIMIT_BURST: '100000',
    // The suite logs in far more often than a person would, and its fuzz test fails logins on purpose.
    LOGIN_MAX_CLIENT_FAILURES: '1000000',
    SUPERADMIN_EMAIL: superAdmin.email,
    SUPERADMIN_PASSWORD: superAdmin.password,
    WEB_DIST: join(dataDir, 'no-web'),
    MODEL_CACHE_DIR: sharedModelCacheDir,
    MODELS_DIR: join(dataDir, 'models'),
    RERANK_MODELS_DIR: join(dataDir, 'rerankers'),
    WRITE_TIMEOUT_MS: '120000',
    GRPC_PORT: '0',
    ...overrides,
  });
  const server = await createServer(config, clock);
  // Cluster mode: the node caught up with the log (its API answers 503 until then), unless the test watches that.
  if (waitUntilStarted) await server.started;
  const login = async (email: string, password: string) => {
    const res = await server.app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
    if (res.statusCode !== 200) throw new TypeError(`login failed in test: ${res.body}`);
    return (res.json() as { token: string }).token;
  };
  const call: TestServer['call'] = async (method, url, token, payload) => {
    const res = await server.app.inject({
      method,
      url,
      headers: token ? bearer(token) : {},
      ...(payload !== undefined && { payload: payload as object }),
    });
    const json = res.body !== '' && String(res.headers['content-type']).startsWith('application/json');
    const body = (json ? res.json() : {}) as JsonBody;
    return { status: res.statusCode, body, text: res.body, raw: res.rawPayload, headers: res.headers };
  };
  return {
    ...server,
    dataDir,
    login,
    call,
    async finishedJob(token, jobId) {
      for (;;) {
        const job = (await call('GET', `/api/v1/jobs/${String(jobId)}`, token)).body as unknown as Job;
        if (job.status === 'done' || job.status === 'failed') return job;
        await new Promise((done) => setTimeout(done, 20));
      }
    },
    async listen() {
      await server.app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
    },
    async registerTenant(email = `admin-${randomUUID()}@example.com`) {
      const password = 'password-1234';
      const tenantId = randomUUID();
      const res = await server.app.inject({
        method: 'POST',
        url: '/auth/register',
        payload: { email, password, tenant_id: tenantId },
      });
      if (res.statusCode !== 201) throw new TypeError(`register failed in test: ${res.body}`);
      const token = await login(email, password);
      return { token, userId: (res.json() as { user_id: string }).user_id, tenantId, email, password };
    },
    async addUser(admin) {
      const rootToken = await login(superAdmin.email, superAdmin.password);
      const email = `user-${randomUUID()}@example.com`;
      const created = await server.app.inject({
        method: 'POST',
        url: '/auth/admin/users',
        headers: bearer(rootToken),
        payload: { email, password: 'password-1234', tenant_id: admin.tenantId },
      });
      if (created.statusCode !== 201) throw new TypeError(`create user failed in test: ${created.body}`);
      const userId = (created.json() as { user_id: string }).user_id;
      const demoted = await server.app.inject({
        method: 'POST',
        url: '/auth/role/assign',
        headers: bearer(admin.token),
        payload: { user_id: userId, role_id: 'user' },
      });
      if (demoted.statusCode !== 200) throw new TypeError(`demote failed in test: ${demoted.body}`);
      return { userId, email, token: await login(email, 'password-1234') };
    },
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
