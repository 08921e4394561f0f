import { createError, operationById, type OperationId } from '@godb/contract';
import type { Principal } from '../../service/context.js';
import type { Services } from '../../service/use-cases.js';
import { NdjsonResult } from '../../service/ndjson-result.js';
import { validateJson } from '../../service/validation.js';
import { narrowPrincipal } from './narrow-principal.js';

type Json = Record<string, unknown>;
interface SearchAnswer {
  results: {
    document_id: string;
    title: string;
    chunks: { id: string; content: string; type: string; score: number }[];
    metadata: Json;
    score: number;
  }[];
  total_hits: number;
  time_taken: number;
}

const nonEmpty = (value: unknown) =>
  value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
const pick = (entries: [string, unknown][]) => Object.fromEntries(entries.filter(([, v]) => nonEmpty(v)));

/** One gRPC call as a use case sees it: its id, and a signal aborted when the client cancels. */
export interface GrpcCall {
  readonly requestId: string;
  readonly signal: AbortSignal;
}

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
  return services.invoke(
    op,
    { params: input.params ?? {}, query: {}, body: input.body },
    { principal, requestId: call.requestId, signal: call.signal },
  );
}

function searchReply(answer: SearchAnswer, offset: number) {
  return {
    results: answer.results.slice(offset).map((r) => ({
      document_id: r.document_id,
      title: r.title,
      chunks: r.chunks,
      metadata: Object.fromEntries(Object.entries(r.metadata ?? {}).map(([k, v]) => [k, String(v)])),
      score: r.score,
    })),
    total_hits: answer.total_hits,
    time_taken: answer.time_taken,
  };
}

/** VectorSearch's filters: JSON text, as REST takes it; text that is not JSON is INVALID_ARGUMENT, not INTERNAL. */
function filtersOf(raw: unknown): unknown {
  if (raw === undefined || raw === null || raw === '') return undefined;
  try {
    return JSON.parse(String(raw)) as unknown;
  } catch (error) {
    throw createError('INVALID_FILTERS_JSON', { reason: (error as Error).message }, { field: 'filters' });
  }
}

const window = (request: Json) => {
  const offset = Math.max(0, Number(request.offset ?? 0));
  const limit = Number(request.limit ?? 0);
  return { offset, limit: limit > 0 ? offset + limit : undefined };
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
    const batch = first.done ? 0 : Number(first.value.batch_size ?? 0);
    const query: Json = { async: false, batch_size: batch > 0 ? batch : 500 };
    if (op.query) validateJson(op.query, query, 'query');
    // A document given over several lines (pretty-printed JSON) is one line: raw line breaks in JSON are spaces.
    const line = (message: Json) => `${String(message.line ?? '').replace(/\r?\n/g, ' ')}\n`;
    async function* body(): AsyncGenerator<string> {
      if (first.done) return;
      yield line(first.value);
      for (let next = await messages.next(); !next.done; next = await messages.next()) yield line(next.value);
    }
    const answer = await services.invoke(
      op,
      { params: {}, query, body: body() },
      { principal, requestId: call.requestId, signal: call.signal },
    );
    if (!(answer instanceof NdjsonResult)) throw new TypeError('import-documents answered no NDJSON result');
    const results: Json[] = [];
    let written = 0;
    for await (const r of (answer as NdjsonResult<LineResult>).lines) {
      if (r.success) written += 1;
      results.push(
        pick([
          ['line', r.line],
          ['success', r.success],
          ['document_id', r.document_id],
          ['error_code', r.error?.code],
          ['error_message', r.error?.message],
          ['field', r.error?.field],
        ]),
      );
    }
    return { results, written, failed: results.length - written };
  },
};

/** Each gRPC method, as a call of the REST operation that serves it (see contract/src/grpc.ts). */
export const grpcMethods: Record<string, GrpcMethodHandler> = {
  TextSearch: async (services, request, principal, call) => {
    const { offset, limit } = window(request);
    const body = pick([
      ['query', request.query],
      ['limit', limit],
      ['filters', request.filters],
    ]);
    const narrowed = narrowPrincipal(principal, request.roles as string[], request.groups as string[]);
    return searchReply((await invoke(services, 'search-text', { body }, narrowed, call)) as SearchAnswer, offset);
  },
  VectorSearch: async (services, request, principal, call) => {
    const { offset, limit } = window(request);
    const options = (request.embedding_options ?? {}) as Json;
    const center = request.center as { lat?: number; lon?: number } | undefined;
    const body = pick([
      ['vector', request.vector],
      ['limit', limit],
      ['filters', filtersOf(request.filters)],
      ['similarity_method', request.similarity_method],
      ['threshold', request.threshold],
      ['primary_table', request.primary_table],
      ['vector_name', request.vector_name],
      [
        'embedding_options',
        nonEmpty(options.model) || nonEmpty(options.model_name)
          ? pick([
              ['model', options.model],
              ['model_name', options.model_name],
            ])
          : undefined,
      ],
      [
        'center',
        center && (center.lat !== undefined || center.lon !== undefined)
          ? { lat: center.lat ?? 0, lon: center.lon ?? 0 }
          : undefined,
      ],
      ['radius', Number(request.radius ?? 0) > 0 ? request.radius : undefined],
      ['combine_location_score', request.combine_location_score === true ? true : undefined],
    ]);
    const narrowed = narrowPrincipal(principal, request.roles as string[], request.groups as string[]);
    return searchReply((await invoke(services, 'search-vector', { body }, narrowed, call)) as SearchAnswer, offset);
  },
  HybridSearch: async (services, request, principal, call) => {
    const { offset, limit } = window(request);
    const body = pick([
      ['query', request.query],
      ['vector', request.vector],
      ['alpha', request.alpha],
      ['limit', limit],
      ['filters', request.filters],
      ['primary_table', request.primary_table],
      ['vector_name', request.vector_name],
    ]);
    const narrowed = narrowPrincipal(principal, request.roles as string[], request.groups as string[]);
    return searchReply((await invoke(services, 'search-hybrid', { body }, narrowed, call)) as SearchAnswer, offset);
  },
  GetUser: async (services, request, principal, call) => {
    const { user } = (await invoke(
      services,
      'get-user',
      { params: { userID: String(request.user_id ?? '') } },
      principal,
      call,
    )) as {
      user: { id: string; email: string; role: string; groups: string[] };
    };
    return { id: user.id, email: user.email, roles: [user.role], groups: user.groups };
  },
  CreateGroup: async (services, request, principal, call) =>
    invoke(
      services,
      'create-group',
      {
        body: pick([
          ['name', request.name],
          ['description', request.description ?? ''],
        ]),
      },
      principal,
      call,
    ),
};
