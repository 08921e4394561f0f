import { createError } from '@godb/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../../service/use-cases.js';
import { credentialsOf } from '../credentials.js';
import { collectionRoutes } from './collection-routes.js';
import { asGoDBError, sendQdrantError, sendResult } from './envelope.js';
import { callerFor } from './godb-calls.js';
import { pointRoutes } from './point-routes.js';
import type { QdrantRequest, QdrantRoute } from './route.js';
import { searchRoutes } from './search-routes.js';

/** The Qdrant REST API version whose shapes this layer answers (clients compare it with their own). */
export const qdrantApiVersion = '1.18.0';

export const qdrantRoutes: readonly QdrantRoute[] = [...collectionRoutes, ...pointRoutes, ...searchRoutes];

declare module 'fastify' {
  interface FastifyRequest {
    qdrantStartedAt?: number;
  }
}

/**
 * Registers Qdrant's REST API in a scope of its own (under `/qdrant` on the main server, at the root on
 * QDRANT_COMPAT_PORT): every answer in Qdrant's envelope, every call authenticated by a GoDB API key (`api-key`, or
 * `Authorization: Bearer`) or token and run through `services.invoke` as that caller. Decision 0052.
 *
 * @example await app.register((scope) => registerQdrantApi(scope, services, { bodyLimit }), { prefix: '/qdrant' });
 */
export async function registerQdrantApi(
  scope: FastifyInstance,
  services: Services,
  options: { bodyLimit: number },
): Promise<void> {
  const startOf = (request: FastifyRequest) => request.qdrantStartedAt ?? performance.now();
  scope.addHook('onRequest', async (request) => {
    request.qdrantStartedAt = performance.now();
  });
  // A DELETE or POST with `Content-Type: application/json` and no body (what clients send) is an empty body.
  const json = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') done(null, {});
    else json(request, text, done);
  });
  // The guards (rate limit, operations in flight, deadline) answer GoDB's envelope; here it becomes Qdrant's.
  scope.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode < 400 || typeof payload !== 'string' || !payload.startsWith('{"error"')) {
      done(null, payload);
      return;
    }
    const message = (JSON.parse(payload) as { error?: { message?: string } }).error?.message ?? 'error';
    done(null, JSON.stringify({ status: { error: message }, time: 0 }));
  });
  scope.setErrorHandler((error, request, reply) =>
    answerError(request, reply, error, options.bodyLimit, startOf(request)),
  );
  scope.setNotFoundHandler((request, reply) =>
    sendQdrantError(
      reply,
      createError('ROUTE_NOT_FOUND', { method: request.method, path: request.url.split('?')[0] ?? '' }),
      startOf(request),
    ),
  );
  scope.get('/', async () => ({ title: 'GoDB (Qdrant-compatible API)', version: qdrantApiVersion }));
  scope.get('/healthz', async (_request, reply) => reply.type('text/plain').send('healthz check passed'));
  for (const route of qdrantRoutes) {
    scope.route({
      method: route.method,
      url: route.url,
      handler: async (request, reply) => {
        const startedAt = startOf(request);
        const principal = await services.authenticate(credentialsOf(request.headers));
        const result = await route.handler({
          call: callerFor(services, request, principal),
          params: request.params as QdrantRequest['params'],
          query: request.query as Record<string, string | undefined>,
          body: bodyOf(request.body),
        });
        return sendResult(reply, result, startedAt);
      },
    });
  }
}

function bodyOf(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw createError('VALIDATION_FAILED', { detail: 'the body must be a JSON object' });
  }
  return body as Record<string, unknown>;
}

function answerError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  bodyLimit: number,
  startedAt: number,
): FastifyReply {
  // Catalogue errors (503 INDEX_LOADING, 429 …) keep their status and message; anything else is INTERNAL, logged.
  const known = asGoDBError(error, bodyLimit);
  if (known) return sendQdrantError(reply, known, startedAt);
  request.log.error({ err: error }, 'qdrant-compatible request failed');
  return sendQdrantError(reply, createError('INTERNAL', { request_id: request.id }), startedAt);
}
