import { GrpcSearchExtras, operationById, type OperationId } from '@godb/contract';
import type { Consistency, Principal } from '../../service/context.js';
import type { Services } from '../../service/use-cases.js';
import { NdjsonResult } from '../../service/ndjson-result.js';
import { validateJson } from '../../service/validation.js';
import { fromGrpc, toGrpc } from './grpc-mapping.js';
import { narrowPrincipal } from './narrow-principal.js';

type Json = Record<string, unknown>;
interface SearchAnswer extends Json {
  results: Json[];
}

/** One gRPC call as a use case sees it: its id, and a signal aborted when the client cancels. */
export interface GrpcCall {
  readonly requestId: string;
  readonly signal: AbortSignal;
  /** Cluster mode: the `idempotency-key` metadata of a replicated write (a retry with it is applied once). */
  readonly idempotencyKey?: string;
  /** Cluster mode: the `x-godb-consistency` / `x-godb-min-seq` metadata of a read. */
  readonly consistency?: Consistency;
}

/** The request context of a gRPC call, as REST builds it from a request. */
const contextOf = (principal: Principal, call: GrpcCall) => ({
  principal,
  requestId: call.requestId,
  signal: call.signal,
  ...(call.idempotencyKey !== undefined && { idempotencyKey: call.idempotencyKey }),
  ...(call.consistency && { consistency: call.consistency }),
});

/** Runs a REST operation's use case with a body built from a gRPC request, validated like REST. */
async function invoke(
  services: Services,
  id: OperationId,
  input: { body?: Json; params?: Json },
  principal: Principal,
  call: GrpcCall,
): Promise<unknown> {
  const op = operationById(id);
  if (op.body && input.body) validateJson(op.body, input.body, 'body');
  if (op.params && input.params) validateJson(op.params, input.params, 'params');
  return services.invoke(op, { params: input.params ?? {}, query: {}, body: input.body }, contextOf(principal, call));
}

/**
 * A search method: the request's REST fields are the body (a field added to the REST schema arrives here with no
 * edit), `offset` is applied here (REST has none: the body asks for offset + limit results and the first `offset`
 * are dropped), and roles and groups narrow the caller.
 */
function search(id: OperationId, request: string): GrpcMethodHandler {
  const extras = new Set(Object.keys(GrpcSearchExtras.properties));
  return async (services, message, principal, call) => {
    const fields = fromGrpc(request, message);
    const body = Object.fromEntries(Object.entries(fields).filter(([key]) => !extras.has(key)));
    const offset = typeof fields.offset === 'number' ? fields.offset : 0;
    if (typeof body.limit === 'number') body.limit += offset;
    const narrowed = narrowPrincipal(principal, fields.roles as string[], fields.groups as string[]);
    const answer = (await invoke(services, id, { body }, narrowed, call)) as SearchAnswer;
    return toGrpc('SearchResponse', { ...answer, results: answer.results.slice(offset) });
  };
}

/** The query pipeline: its REST body (with its own offset), roles and groups narrowing the caller. */
const query: GrpcMethodHandler = async (services, message, principal, call) => {
  const { roles, groups, ...body } = fromGrpc('QueryRequest', message);
  const narrowed = narrowPrincipal(principal, roles as string[], groups as string[]);
  return toGrpc('QueryResponse', (await invoke(services, 'search-query', { body }, narrowed, call)) as Json);
};

export type GrpcMethodHandler = (
  services: Services,
  request: Json,
  principal: Principal,
  call: GrpcCall,
) => Promise<unknown>;

export type GrpcStreamHandler = (
  services: Services,
  requests: AsyncIterable<Json>,
  principal: Principal,
  call: GrpcCall,
) => Promise<unknown>;

interface LineResult {
  line: number;
  success: boolean;
  document_id?: string;
  error?: { code: string; message: string; field?: string };
}

/**
 * The client-streaming methods. ImportDocuments is the NDJSON import with one message per line: the messages become
 * the lines of the same use case (so validation, transactions of batch_size and per-line errors are the same), and
 * the per-line results are answered together when the stream ends (about 100 bytes a line are held until then).
 */
export const grpcStreamMethods: Record<string, GrpcStreamHandler> = {
  ImportDocuments: async (services, requests, principal, call) => {
    const op = operationById('import-documents');
    const messages = requests[Symbol.asyncIterator]();
    const first = await messages.next();
    const { batch_size } = first.done ? {} : fromGrpc('ImportDocumentsRequest', first.value);
    const query: Json = { async: false, batch_size: batch_size ?? 500 };
    if (op.query) validateJson(op.query, query, 'query');
    // A document given over several lines (pretty-printed JSON) is one line: raw line breaks in JSON are spaces.
    const line = (message: Json) => `${String(message.line ?? '').replace(/\r?\n/g, ' ')}\n`;
    async function* body(): AsyncGenerator<string> {
      if (first.done) return;
      yield line(first.value);
      for (let next = await messages.next(); !next.done; next = await messages.next()) yield line(next.value);
    }
    const answer = await services.invoke(op, { params: {}, query, body: body() }, contextOf(principal, call));
    if (!(answer instanceof NdjsonResult)) throw new TypeError('import-documents answered no NDJSON result');
    const results: Json[] = [];
    for await (const r of (answer as NdjsonResult<LineResult>).lines)
      results.push({
        line: r.line,
        success: r.success,
        document_id: r.document_id,
        error_code: r.error?.code,
        error_message: r.error?.message,
        field: r.error?.field,
      });
    const written = results.filter((r) => r.success).length;
    return toGrpc('ImportDocumentsResponse', { results, written, failed: results.length - written });
  },
};

/** Each gRPC method, as a call of the REST operation that serves it (see contract/src/grpc.ts). */
export const grpcMethods: Record<string, GrpcMethodHandler> = {
  TextSearch: search('search-text', 'TextSearchRequest'),
  VectorSearch: search('search-vector', 'VectorSearchRequest'),
  HybridSearch: search('search-hybrid', 'HybridSearchRequest'),
  Query: query,
  GetUser: async (services, request, principal, call) => {
    const params = fromGrpc('GetUserRequest', request);
    const { user } = (await invoke(services, 'get-user', { params }, principal, call)) as { user: Json };
    return toGrpc('GetUserResponse', { ...user, roles: [user.role] });
  },
  CreateGroup: async (services, request, principal, call) => {
    const body = fromGrpc('CreateGroupRequest', request);
    return toGrpc('CreateGroupResponse', (await invoke(services, 'create-group', { body }, principal, call)) as Json);
  },
  GetCluster: async (services, _request, principal, call) =>
    toGrpc('GetClusterResponse', (await invoke(services, 'get-cluster', {}, principal, call)) as Json),
};
