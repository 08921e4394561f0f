import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { stdoutLogDestination } from '../../../logging/log-destination.js';
import type { Services } from '../../../service/use-cases.js';
import { guardOptionsOf, type HttpConfig } from '../app.js';
import { registerGuards } from '../guards.js';
import { registerQdrantApi } from './qdrant-api.js';

/**
 * The Qdrant-compatible API on a port of its own (QDRANT_COMPAT_PORT), at Qdrant's root paths, so a client's
 * `new QdrantClient({url: 'http://host:PORT'})` works unchanged. The same guards as the main port (rate limit per
 * client or API key, operations in flight, answer deadline) apply to every path but `/` and `/healthz`.
 *
 * @example const qdrant = await buildQdrantCompatApp({ config, services }); await qdrant.listen({ port: 6333 });
 */
export async function buildQdrantCompatApp(options: {
  readonly config: HttpConfig;
  readonly services: Services;
  readonly now?: () => number;
}): Promise<FastifyInstance> {
  const { config, services } = options;
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, stream: stdoutLogDestination() },
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestTimeout: config.READ_TIMEOUT_MS,
    genReqId: () => randomUUID(),
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    done(null, payload);
  });
  registerGuards(app, {
    ...guardOptionsOf(config, services, options.now),
    isApi: (path) => path !== '/' && path !== '/healthz',
  });
  await app.register((scope) => registerQdrantApi(scope, services, { bodyLimit: config.BODY_LIMIT_BYTES }));
  return app;
}
