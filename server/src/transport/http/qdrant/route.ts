import type { Call } from './godb-calls.js';

/** A Qdrant request as a handler sees it: the caller of GoDB operations and what the client sent. */
export interface QdrantRequest {
  readonly call: Call;
  // The path's parameters: every route names its collection; points and indexes their id or field.
  readonly params: Readonly<Record<'name' | 'id' | 'field', string>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly body: Record<string, unknown>;
}

/** One Qdrant endpoint: its handler answers the envelope's `result`. */
export interface QdrantRoute {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly url: string;
  readonly handler: (request: QdrantRequest) => Promise<unknown>;
}

let operations = 0;
/** What Qdrant answers for a write: done (GoDB answers writes once durable, whatever `wait` says). */
export const completed = () => ({ operation_id: (operations += 1), status: 'completed' });
