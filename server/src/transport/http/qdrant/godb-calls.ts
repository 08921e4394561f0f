import { operationById, type OperationId } from '@godb/contract';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../../service/context.js';
import type { Services } from '../../../service/use-cases.js';
import { validateJson } from '../../../service/validation.js';

/** One GoDB operation's input, as the HTTP routes hand it over. */
export interface CallInput {
  readonly params?: Record<string, unknown>;
  readonly query?: Record<string, unknown>;
  readonly body?: unknown;
}

/** Runs GoDB operations for one Qdrant request, as its caller, through the one service entry point. */
export type Call = <T = Record<string, unknown>>(id: OperationId, input?: CallInput) => Promise<T>;

/**
 * The caller of GoDB's operations for a request: each input is validated against the operation's own contract
 * schemas (filling the specification's defaults, as the HTTP routes do), then `services.invoke` checks access and
 * runs the use case, tenant-scoped by the principal like every GoDB call.
 *
 * @example const collection = await callerFor(services, request, principal)('get-collection', { params: { name } });
 */
export function callerFor(services: Services, request: FastifyRequest, principal: Principal): Call {
  return async <T>(id: OperationId, input: CallInput = {}) => {
    const operation = operationById(id);
    const params = { ...input.params };
    const query = { ...input.query };
    const body = structuredClone(input.body);
    if ('params' in operation && operation.params) validateJson(operation.params, params, 'params');
    if ('query' in operation && operation.query) validateJson(operation.query, query, 'query');
    if ('body' in operation && operation.body) validateJson(operation.body, body, 'body');
    const signal = request.godbAbort?.signal;
    return (await services.invoke(
      operation,
      { params, query, body },
      { principal, requestId: request.id, clientAddress: request.ip, ...(signal && { signal }) },
    )) as T;
  };
}
