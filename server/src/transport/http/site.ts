import fastifyStatic from '@fastify/static';
import { createError, isApiPath, isSitePath } from '@godb/contract';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sendError } from './error-reply.js';
import { requestPath } from './request-path.js';
import { paramTooLong } from './framework-errors.js';

const rawPath = requestPath;

/**
 * Serves the built website. Site routes answer the single-page app; other browser paths answer it with status
 * 404 (the app shows its error page); API paths never fall back to HTML nor reach the file server, and an API path
 * with a segment too long for the router is a 400 like any over-long path parameter.
 */
export async function registerSite(
  app: FastifyInstance,
  webDist: string | null,
  limits: { paramLength: number },
): Promise<void> {
  const indexFile = webDist ? join(webDist, 'index.html') : null;
  const hasSite = indexFile !== null && existsSync(indexFile);
  if (hasSite && webDist) {
    // API paths never reach the file server, whatever they look like once normalised (`/api/v1/jobs/../..`):
    // its own checks answer 403 or 500 for some of them before any of its options could say no.
    app.addHook('onRequest', async (request, reply) => {
      if (request.routeOptions.url === '/*' && isApiPath(rawPath(request.raw.url))) {
        reply.callNotFound();
        return reply;
      }
    });
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: true,
      index: 'index.html',
      redirect: false,
      setHeaders: (res, path) => {
        res.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const path = rawPath(request.url);
    if (isApiPath(path) && path.split('/').some((segment) => segment.length > limits.paramLength)) {
      return sendError(request, reply, paramTooLong(limits.paramLength));
    }
    if (isApiPath(path) || (request.method !== 'GET' && request.method !== 'HEAD')) {
      return sendError(request, reply, createError('ROUTE_NOT_FOUND', { method: request.method, path }));
    }
    if (!hasSite) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The GoDB website is not built. Run `npm run build` (or `npm start`, which builds it when needed).');
    }
    return reply
      .code(isSitePath(path) ? 200 : 404)
      .header('cache-control', 'no-cache')
      .sendFile('index.html');
  });
}
