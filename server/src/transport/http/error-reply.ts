import { createError, errorCatalogue, isGoDBError, type ErrorBody, type GoDBError } from '@godb/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../../service/validation.js';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function fromValidation(error: FastifyError): GoDBError {
  const context = error.validationContext ?? 'body';
  return validationError(
    (error.validation as AjvIssue[] | undefined)?.[0],
    context === 'querystring' ? 'query' : context,
  );
}

/**
 * Maps anything thrown while serving a request to a catalogue error; Fastify's own client errors keep their 4xx,
 * and anything else becomes INTERNAL.
 */
export function toGoDBError(
  error: unknown,
  requestId: string,
  request: { bodyLimit: number; contentType?: string | undefined; bodyType?: string | undefined },
): GoDBError {
  if (isGoDBError(error)) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return fromValidation(fastifyError);
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return createError('PAYLOAD_TOO_LARGE', { limit: request.bodyLimit });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return createError('UNSUPPORTED_MEDIA_TYPE', {
        type: request.contentType ?? 'none',
        expected: request.bodyType ?? 'application/json',
      });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return createError(
        'VALIDATION_FAILED',
        { detail: 'body must not be empty when Content-Type is application/json' },
        { field: 'body' },
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return createError('INVALID_JSON_BODY', { reason: fastifyError.message });
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return createError('INVALID_JSON_BODY', { reason: error.message });
  }
  // Any other error of Fastify's about the request itself (content length, a body on GET, …) stays a 400.
  const status = fastifyError.statusCode;
  // `code` is Fastify's string, or anything another library put there (NATS errors carry numbers).
  const code: unknown = fastifyError.code;
  if (typeof code === 'string' && code.startsWith('FST_') && status !== undefined && status >= 400 && status < 500) {
    return createError('MALFORMED_REQUEST', { reason: fastifyError.message });
  }
  return createError('INTERNAL', { request_id: requestId });
}

export function errorBody(error: GoDBError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      status: error.status,
      ...(error.field !== undefined && { field: error.field }),
      ...(error.details !== undefined && { details: { ...error.details } }),
      request_id: requestId,
    },
  };
}

/** Sends a catalogue error with its status (and Retry-After for 429/503). */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: GoDBError): FastifyReply {
  const retryAfter = error.details?.retry_after;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  return reply
    .code(errorCatalogue[error.code].http)
    .type('application/json; charset=utf-8')
    .send(errorBody(error, request.id));
}
