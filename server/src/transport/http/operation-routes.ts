import { operations, type CatalogueOperation } from '@godb/contract';
import { createError } from '@godb/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type { Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { PassThrough, pipeline } from 'node:stream';
import { byteLimit } from '../../service/documents/import-documents.js';
import { NdjsonResult } from '../../service/ndjson-result.js';
import type { Principal } from '../../service/context.js';
import { consistencyOf } from '../../service/read-consistency.js';
import { idempotencyKeyOf } from '../../service/idempotency-key.js';
import { createReadStream } from 'node:fs';
import { FileResult } from '../../service/file-result.js';
import { StatusResult } from '../../service/status-result.js';
import type { Services } from '../../service/use-cases.js';
import { credentialsOf } from './credentials.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    operationId?: string;
    longRunning?: boolean;
    /** The media type the route's body must have (a 415 says to send it). */
    bodyType?: string;
  }
}

/** What a handler's work resolves to when its caller has gone (see RequestContext.signal). */
const abandoned = Symbol('abandoned');

/**
 * A Content-Disposition naming the file (RFC 6266): a plain ASCII name for every client, and the exact name
 * (a document id may hold any character) in `filename*` for those that read it.
 */
export function attachment(name: string): string {
  const plain = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return plain === name
    ? `attachment; filename="${name}"`
    : `attachment; filename="${plain}"; filename*=UTF-8''${exact}`;
}

/** `/api/v1/documents/{id}` → `/api/v1/documents/:id` */
export function toFastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * The query of an operation that declares no query parameters: none, so that an unknown one is refused as on the
 * operations that declare some (`?consistency=strong` is not silently ignored), with the same VALIDATION_FAILED.
 */
const noQuery = Type.Object({}, { additionalProperties: false });

function schemaOf(operation: CatalogueOperation) {
  return {
    ...('params' in operation && { params: operation.params }),
    querystring: ('query' in operation && operation.query) || noQuery,
    ...('body' in operation && { body: operation.body }),
    response: Object.fromEntries(
      [operation.success, ...(operation.alternatives ?? [])].map((r) => [r.status, r.schema]),
    ),
    tags: [operation.category],
    operationId: operation.id,
  };
}

/**
 * Registers every operation of the catalogue, at its path and at each alias. Handlers are thin: authenticate
 * (before validation, so anonymous callers learn nothing about payloads), then one call to the service layer.
 */
export function registerOperationRoutes(
  app: FastifyInstance,
  services: Services,
  options: { importBodyLimit: number; importIdleMs: number; streaming: WeakSet<Socket> },
): void {
  // Routes that take no body: common clients (axios, fetch wrappers) send `Content-Type: application/json` with no
  // body on a DELETE, which Fastify's JSON parser refuses ("body must not be empty"); these accept it.
  const bodiless: RouteOptions[] = [];
  for (const operation of operations) {
    const routes: RouteOptions[] = [];
    // What a 415 tells the client to send instead.
    const bodyType = operation.ndjson
      ? 'application/x-ndjson'
      : operation.binary
        ? operation.binary.contentType
        : 'application/json';
    const authenticate =
      operation.access === 'public'
        ? undefined
        : async (request: FastifyRequest) => {
            request.principal = await services.authenticate(credentialsOf(request.headers));
          };
    for (const path of [operation.http.path, ...operation.http.aliases]) {
      routes.push({
        method: operation.http.method,
        url: toFastifyPath(path),
        schema: schemaOf(operation),
        config: {
          operationId: operation.id,
          longRunning: operation.longRunning === true,
          bodyType,
        },
        ...(authenticate && { onRequest: authenticate }),
        // Cluster mode: every answer of a read (errors too) says when this node cannot confirm it is current.
        // A callback hook, not an async one: it runs on every answer (decision 0049).
        onSend: (request, reply, payload, done) => {
          if (services.clusterStale(operation.id, request.principal?.tenantId ?? undefined) !== null)
            void reply.header('x-godb-stale', 'true');
          done(null, payload);
        },
        handler: async (request, reply) => {
          if ((operation.ndjson || operation.binary) && !isStream(request.body)) {
            throw createError('UNSUPPORTED_MEDIA_TYPE', {
              type: request.headers['content-type'] ?? '',
              expected: bodyType,
            });
          }
          const input = { params: request.params, query: request.query, body: request.body };
          const signal = request.godbAbort?.signal;
          const consistency = consistencyOf(
            request.headers['x-godb-consistency'],
            request.headers['x-godb-min-seq'],
            'headers',
          );
          const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key'], 'headers.idempotency-key');
          const result = await services
            .invoke(operation, input, {
              principal: request.principal,
              requestId: request.id,
              clientAddress: request.ip,
              ...(signal && { signal }),
              ...(consistency && { consistency }),
              ...(idempotencyKey !== undefined && { idempotencyKey }),
            })
            // Work stopped because its client went or its 504 was sent: nobody is left to answer, nothing to log.
            .catch((error: unknown) =>
              signal?.aborted && error === signal.reason ? abandoned : Promise.reject(error),
            );
          if (result === abandoned) return undefined;
          // Cluster mode: how far this node had applied the log when it answered (a write's own sequence at least).
          const position = services.clusterPosition(request.principal?.tenantId);
          if (position !== null) void reply.header('x-godb-seq', position);
          if (result instanceof StatusResult) return reply.code(result.status).send(result.body);
          if (result instanceof NdjsonResult) {
            return reply.type('application/x-ndjson').send(ndjsonStream(result, () => request.raw.destroy()));
          }
          if (result instanceof FileResult) {
            // WRITE_TIMEOUT_MS bounds the work of producing an answer; a download's transfer takes as long as its
            // client needs (a 200 MB release on a slow line), so the timer stops once the file is ready to stream.
            if (request.godbTimer) clearTimeout(request.godbTimer);
            request.godbTimer = null;
            if (result.size !== undefined) void reply.header('content-length', result.size);
            return reply
              .type(result.contentType)
              .header('content-disposition', attachment(result.name))
              .send(typeof result.source === 'string' ? createReadStream(result.source) : result.source);
          }
          return reply.code(operation.success.status).send(result);
        },
      });
    }
    const streamed = operation.ndjson ? 'application/x-ndjson' : operation.binary?.contentType;
    if (streamed === undefined) {
      if ('body' in operation) for (const route of routes) app.route(route);
      else bodiless.push(...routes);
      continue;
    }
    // A streamed body: only its type (NDJSON, a tar …) is accepted here, handed to the use case as the raw stream
    // (no buffering, so BODY_LIMIT_BYTES does not apply; IMPORT_BODY_LIMIT_BYTES is counted as the bytes arrive).
    void app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser(streamed, (request, payload, done) => {
        const limit = options.importBodyLimit;
        if (Number(request.headers['content-length'] ?? 0) > limit) {
          done(createError('PAYLOAD_TOO_LARGE', { limit }), undefined);
          return;
        }
        options.streaming.add(request.raw.socket);
        const body = pipeline(payload, byteLimit(limit), () => undefined);
        watchIdle(request.raw, options.importIdleMs, (error) => body.destroy(error));
        done(null, body);
      });
      // A keep-alive connection's next request is bounded by READ_TIMEOUT_MS again.
      scope.addHook('onResponse', async (request) => {
        options.streaming.delete(request.raw.socket);
      });
      for (const route of routes) scope.route(route);
    });
  }
  void app.register(async (scope) => {
    const json = scope.getDefaultJsonParser('error', 'error');
    scope.removeContentTypeParser('application/json');
    // A body that is there is parsed (and ignored) as before; only an empty one is taken as no body.
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = body.toString();
      if (text === '') done(null, undefined);
      else json(request, text, done);
    });
    for (const route of bodiless) scope.route(route);
  });
}

/**
 * Stops a streamed body whose client has sent nothing for `ms` (IMPORT_STALLED), checked every `ms`. Only the
 * client's silence counts: while bytes wait unread in the request (the import is behind, not the client), it is
 * not stalled.
 */
function watchIdle(raw: IncomingMessage, ms: number, stop: (error: Error) => void): void {
  let seen = raw.socket.bytesRead;
  const timer = setInterval(() => {
    const now = raw.socket.bytesRead;
    if (now === seen && raw.readableLength === 0 && !raw.complete) {
      clearInterval(timer);
      stop(createError('IMPORT_STALLED', { timeout_ms: ms }));
    }
    seen = now;
  }, ms);
  timer.unref();
  const clear = () => clearInterval(timer);
  raw.once('end', clear);
  raw.once('close', clear);
  raw.once('error', clear);
}

const isStream = (body: unknown): body is AsyncIterable<Uint8Array> =>
  typeof body === 'object' && body !== null && Symbol.asyncIterator in body;

/**
 * The lines of an NDJSON answer as a byte stream. Lines are written as they are produced, without waiting for the
 * client to read them (a client may send its whole body before it reads the answer: waiting would deadlock both).
 * When the answer ends before the body does (it was too large), the connection is closed once the answer is sent.
 */
function ndjsonStream(result: NdjsonResult, closeRequest: () => void): PassThrough {
  const out = new PassThrough();
  // The lines produced in one turn of the event loop (an import's group of results) go out as one write: a write
  // per line cost as much as writing the documents.
  let buffered = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffered === '' || out.destroyed) return;
    out.write(buffered);
    buffered = '';
  };
  void (async () => {
    try {
      for await (const line of result.lines) {
        if (out.destroyed) return;
        buffered += `${JSON.stringify(line)}\n`;
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }
      flush();
      out.end();
      out.once('close', closeRequest);
    } catch (error) {
      out.destroy(error as Error);
    }
  })();
  return out;
}
