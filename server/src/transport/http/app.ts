import cors from '@fastify/cors';
import { inputLimits } from '@godb/contract';
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../../config/env.js';
import { stdoutLogDestination } from '../../logging/log-destination.js';
import type { Services } from '../../service/use-cases.js';
import { credentialsOf } from './credentials.js';
import { registerGuards, type GuardOptions } from './guards.js';
import { sendError, toGoDBError } from './error-reply.js';
import { clientErrorHandler, frameworkErrors, maxParamLength } from './framework-errors.js';
import { htmlErrorPage } from './html-error-page.js';
import { createMetrics, emptyStatus, type NodeStatus } from './metrics.js';
import { registerOperationRoutes } from './operation-routes.js';
import { registerQdrantApi } from './qdrant/qdrant-api.js';
import { registerSite } from './site.js';
import { registerSystemRoutes } from './system-routes.js';
import { installValidators } from './validators.js';

export type HttpConfig = Pick<
  Config,
  | 'READ_TIMEOUT_MS'
  | 'WRITE_TIMEOUT_MS'
  | 'RATE_LIMIT_RPS'
  | 'RATE_LIMIT_BURST'
  | 'MAX_CONCURRENT_OPERATIONS'
  | 'LOGIN_MAX_FAILURES'
  | 'LOGIN_MAX_CLIENT_FAILURES'
  | 'LOGIN_LOCKOUT_S'
  | 'LOGIN_LOCKOUT_MAX_S'
  | 'CORS_ORIGINS'
  | 'BODY_LIMIT_BYTES'
  | 'IMPORT_BODY_LIMIT_BYTES'
  | 'IMPORT_IDLE_TIMEOUT_MS'
  | 'LOG_LEVEL'
>;

export interface AppOptions {
  readonly config: HttpConfig;
  readonly services: Services;
  readonly isReady: () => boolean;
  /** What /readyz and /metrics show of the node's indexes and memory. */
  readonly status?: () => NodeStatus;
  /** Folder of the built website, or null to serve the API only. */
  readonly webDist: string | null;
  readonly version: string;
  readonly now?: () => number;
}

const requestIdPattern = /^[\w.:-]{1,128}$/;

/**
 * The guards' settings from the server's configuration, for every HTTP listener (the main port and the
 * Qdrant-compatible one): one rate limit, in-flight cap, deadline and login lockout, API keys limited per key.
 */
export function guardOptionsOf(
  config: HttpConfig,
  services: Services,
  now: () => number = () => performance.now(),
): GuardOptions {
  return {
    rateLimitRps: config.RATE_LIMIT_RPS,
    rateLimitBurst: config.RATE_LIMIT_BURST,
    maxConcurrent: config.MAX_CONCURRENT_OPERATIONS,
    writeTimeoutMs: config.WRITE_TIMEOUT_MS,
    loginLimits: {
      maxFailures: config.LOGIN_MAX_FAILURES,
      maxClientFailures: config.LOGIN_MAX_CLIENT_FAILURES,
      lockoutS: config.LOGIN_LOCKOUT_S,
      lockoutMaxS: config.LOGIN_LOCKOUT_MAX_S,
    },
    now,
    apiKeys: {
      idOf: (request) => services.apiKeyIdOf(credentialsOf(request.headers)),
      take: (keyId) => services.throttleApiKey(keyId),
    },
  };
}

/**
 * Builds the HTTP server: the API routes generated from the contract, the website, health and metrics.
 *
 * @example const app = await buildApp({ config, services, isReady: () => true, webDist: null, version: '0.1.0' });
 */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const paramLength = maxParamLength(inputLimits.pathId);
  const streaming = new WeakSet<Socket>();
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, stream: stdoutLogDestination() },
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeout: config.READ_TIMEOUT_MS,
    requestIdHeader: 'x-request-id',
    routerOptions: { maxParamLength: paramLength },
    // Errors raised before a route (or any request) exists answer in the same envelope as every other error.
    frameworkErrors: frameworkErrors({ paramLength }),
    clientErrorHandler: clientErrorHandler({
      headerBytes: maxHeaderSize,
      readTimeoutMs: config.READ_TIMEOUT_MS,
      streaming,
    }),
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    },
  });
  app.decorateRequest('principal', null);
  installValidators(app);
  // Bodies are JSON: a JSON text sent as text/plain (what fetch() sends for a string body without a header)
  // answers 415 saying to send application/json, rather than "body must be object".
  app.removeContentTypeParser('text/plain');

  // A callback hook, not an async one: it runs on every answer (decision 0049).
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    void reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });

  app.setErrorHandler((error, request, reply) => {
    const godbError = toGoDBError(error, request.id, {
      bodyLimit: config.BODY_LIMIT_BYTES,
      contentType: request.headers['content-type'],
      bodyType: request.routeOptions.config.bodyType,
    });
    if (godbError.status >= 500) request.log.error({ err: error }, 'request failed');
    // People reach downloads by clicking an e-mailed link: answer them with a page, not JSON.
    if (
      request.routeOptions.config.operationId === 'download-release' &&
      request.headers.accept?.includes('text/html')
    ) {
      const title =
        godbError.code === 'DOWNLOAD_LINK_INVALID' ? 'This download link cannot be used' : 'Download unavailable';
      return reply
        .code(godbError.status)
        .type('text/html; charset=utf-8')
        .send(htmlErrorPage(title, godbError.message));
    }
    return sendError(request, reply, godbError);
  });

  const origins = config.CORS_ORIGINS.split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  await app.register(cors, {
    origin: origins.includes('*') ? true : origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    // Cluster mode's read options and position (X-GoDB-Min-Seq, X-GoDB-Consistency, X-GoDB-Seq, X-GoDB-Stale) and its writes'
    // Idempotency-Key cross origins too.
    allowedHeaders: [
      'authorization',
      'api-key',
      'content-type',
      'x-request-id',
      'x-godb-min-seq',
      'x-godb-consistency',
      'idempotency-key',
    ],
    exposedHeaders: ['x-request-id', 'retry-after', 'x-godb-seq', 'x-godb-stale'],
    maxAge: 600,
  });

  const guards = registerGuards(app, guardOptionsOf(config, options.services, options.now));
  const status = options.status ?? emptyStatus;
  const metrics = createMetrics({ inFlight: guards.inFlight, status });
  app.addHook('onClose', async () => metrics.close());
  registerSystemRoutes(app, { version: options.version, isReady: options.isReady, status, metrics });
  registerOperationRoutes(app, options.services, {
    importBodyLimit: config.IMPORT_BODY_LIMIT_BYTES,
    importIdleMs: config.IMPORT_IDLE_TIMEOUT_MS,
    streaming,
  });
  // Qdrant's REST API for its clients and integrations (decision 0052); also on QDRANT_COMPAT_PORT at its root.
  await app.register((scope) => registerQdrantApi(scope, options.services, { bodyLimit: config.BODY_LIMIT_BYTES }), {
    prefix: '/qdrant',
  });
  await registerSite(app, options.webDist, { paramLength });
  return app;
}
