import fastifyStatic from '@fastify/static';
import { createError, isApiPath, isSitePath } from '@godb/contract';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sendError } from './error-reply.js';

/**
 * Serves the built website. Site routes answer the single-page app; other browser paths answer it with status
 * 404 (the app shows its error page); API paths never fall back to HTML.
 */
export async function registerSite(app: FastifyInstance, webDist: string | null): Promise<void> {
  const indexFile = webDist ? join(webDist, 'index.html') : null;
  const hasSite = indexFile !== null && existsSync(indexFile);
  if (hasSite && webDist) {
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
    const path = request.url.split('?')[0] ?? '/';
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
