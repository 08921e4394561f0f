import { createError, errorCatalogue, inputLimits, type GoDBError } from '@godb/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, sendError } from './error-reply.js';

/**
 * The longest raw path parameter the router matches. The router measures the still percent-encoded text, and a
 * character of an id can take up to 9 encoded characters (a 3-byte UTF-8 character is %XX%XX%XX), so every id that
 * can be created can be read; longer parameters are refused before any route runs.
 */
export const maxParamLength = (maxIdLength: number) => maxIdLength * 9;

/** A path parameter longer than the router accepts, as a 400 naming the path. */
export function paramTooLong(limit: number): GoDBError {
  return createError(
    'VALIDATION_FAILED',
    { detail: `path has a segment longer than ${limit} characters (ids are at most ${inputLimits.id} characters)` },
    { field: 'path' },
  );
}

/**
 * Fastify's `frameworkErrors`: errors raised while routing, before a route's own error handler exists (a path
 * that is not valid percent-encoding, an over-long path parameter), answered in the one error envelope.
 */
export function frameworkErrors(limits: { paramLength: number }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const path = request.raw.url?.split('?')[0] ?? '/';
    const godbError =
      error.code === 'FST_ERR_BAD_URL'
        ? createError('INVALID_URL', { path }, { field: 'path' })
        : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? paramTooLong(limits.paramLength)
          : createError('INTERNAL', { request_id: request.id });
    if (godbError.status >= 500) request.log.error({ err: error }, 'routing failed');
    void sendError(request, reply, godbError);
  };
}

/**
 * Fastify's `clientErrorHandler`: Node's HTTP parser rejected the bytes before any request existed (headers too
 * large, a request too slow to arrive, malformed HTTP). The answer is written to the socket by hand, in the one
 * error envelope with a fresh request id, and the connection is closed as Node itself does.
 */
export function clientErrorHandler(limits: {
  headerBytes: number;
  readTimeoutMs: number;
  /** Sockets receiving a streamed body (an NDJSON import), which READ_TIMEOUT_MS does not bound. */
  streaming?: WeakSet<Socket>;
}) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has no one left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // A streamed import is read at the pace it is written, for as long as its body lasts: Node's whole-request
    // deadline would cut a large one off mid-way. (Node reports each request's deadline once.)
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && limits.streaming?.has(socket)) return;
    const godbError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? createError('HEADERS_TOO_LARGE', { limit: limits.headerBytes })
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? createError('READ_TIMEOUT', { timeout_ms: limits.readTimeoutMs })
          : createError('MALFORMED_REQUEST', { reason: error.code ?? 'parse error' });
    const requestId = randomUUID();
    const status = errorCatalogue[godbError.code].http;
    const body = JSON.stringify(errorBody(godbError, requestId));
    // As Node's own handler does: no answer once a response on this connection has begun (a keep-alive connection
    // would receive a second, stray response).
    const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !current?.headersSent) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestId}\r\n` +
          'Connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy(error);
  };
}
