import { createError, isGoDBError, type GoDBError } from '@godb/contract';
import type { FastifyReply } from 'fastify';

/**
 * Qdrant's answers: `{result, status: "ok", time}` with the seconds spent, and errors as
 * `{status: {error}, time}` with the HTTP status of the GoDB error behind them.
 */
export function sendResult(reply: FastifyReply, result: unknown, startedAt: number): FastifyReply {
  return reply.code(200).send({ result, status: 'ok', time: seconds(startedAt) });
}

export function sendQdrantError(reply: FastifyReply, error: GoDBError, startedAt: number): FastifyReply {
  const retryAfter = error.details?.retry_after;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  return reply.code(error.status).send({ status: { error: qdrantMessage(error) }, time: seconds(startedAt) });
}

/** Qdrant prefixes its messages with the kind of error; clients and people recognise them by it. */
function qdrantMessage(error: GoDBError): string {
  if (error.status === 404) return `Not found: ${error.message}`;
  if (error.status === 400 || error.status === 409 || error.status === 422) return `Bad request: ${error.message}`;
  return error.message;
}

const seconds = (startedAt: number) => Number(((performance.now() - startedAt) / 1000).toFixed(6));

/** A Qdrant feature GoDB does not have: 400 naming it, never silently ignored. */
export function unsupported(feature: string): GoDBError {
  return createError('VALIDATION_FAILED', { detail: `${feature} is not supported by GoDB's Qdrant-compatible API` });
}

/** Qdrant's 400 for a request it cannot read. */
export function badRequest(detail: string): GoDBError {
  return createError('VALIDATION_FAILED', { detail });
}

export function collectionNotFound(name: string): GoDBError {
  return createError('NOT_FOUND', { resource: 'Collection', id: `\`${name}\`` });
}

/** Any error as a GoDB error: Fastify's (a body that is not JSON, too large) keep their status. */
export function asGoDBError(error: unknown, bodyLimit: number): GoDBError | null {
  if (isGoDBError(error)) return error;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = (error as Error).message;
    if (status === 413) return createError('PAYLOAD_TOO_LARGE', { limit: bodyLimit });
    return createError('VALIDATION_FAILED', { detail: message });
  }
  return null;
}
