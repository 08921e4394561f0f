import type { Operation } from '@godb/contract';
import type { Static, TSchema } from '@sinclair/typebox';
import type { ImportMethod } from './ndjson.js';
import type { operationTable } from './operations.generated.js';

/** The generated table of operations: group → method → how to send it. */
export type OperationTable = typeof operationTable;
export type GroupName = keyof OperationTable;
export type MethodName<G extends GroupName> = keyof OperationTable[G] & string;
/** One row of the table: how to send one operation. */
export interface TableEntry {
  readonly id: string;
  readonly method: string;
  /** In OpenAPI form: `/api/v1/documents/{id}`. */
  readonly path: string;
  readonly query: readonly string[];
  /**
   * The input's fields are the JSON body, or its `body` is, or the body is NDJSON, or raw bytes (the input's
   * `body`: a snapshot archive), or there is none.
   */
  readonly body: 'none' | 'fields' | 'value' | 'ndjson' | 'binary';
  /** The type of a raw body, e.g. `application/x-tar`. */
  readonly contentType?: string;
  readonly response: 'json' | 'ndjson' | 'binary';
  readonly idempotent: boolean;
  readonly defaults: readonly string[];
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Leaf<P extends string> = P extends `${string}.${string}` ? never : P;
export type Rest<P extends string, H extends string> = P extends `${H}.${infer R}` ? R : never;

/**
 * `T` with the fields at the dotted paths `P` made optional: the fields the server fills in with a default. TypeBox
 * types do not carry defaults, so the generated table lists them (`[]` is an array's items, `*` a record's values).
 */
export type Loosen<T, P extends string> = [P] extends [never]
  ? T
  : T extends readonly (infer E)[]
    ? Loosen<E, Rest<P, '[]'>>[]
    : T extends object
      ? Simplify<
          { [K in keyof T as K extends Leaf<P> ? never : K]: Loosen<T[K], Rest<P, K & string> | Rest<P, '*'>> } & {
            [K in keyof T as K extends Leaf<P> ? K : never]?: Loosen<T[K], Rest<P, K & string> | Rest<P, '*'>>;
          }
        >
      : T;

/** The contract's operation behind a table row, with its TypeBox schemas. */
export type OperationOf<E extends { readonly id: string }> = Extract<Operation, { readonly id: E['id'] }>;
type Part<O, K extends string> = O extends { readonly [P in K]: infer S extends TSchema } ? Static<S> : unknown;
type BodyPart<E extends TableEntry> = E['body'] extends 'fields'
  ? Part<OperationOf<E>, 'body'>
  : E['body'] extends 'value'
    ? { body: Part<OperationOf<E>, 'body'> }
    : E['body'] extends 'binary'
      ? { body: Blob | Uint8Array | ReadableStream<Uint8Array> }
      : unknown;

/**
 * What a method takes: its path parameters, query parameters and body fields in one object (an array body is
 * `body`). Fields the server defaults are optional.
 */
export type InputOf<E extends TableEntry> = Loosen<
  Part<OperationOf<E>, 'params'> & Part<OperationOf<E>, 'query'> & BodyPart<E>,
  E['defaults'][number]
>;

type Alternatives<O> = O extends { readonly alternatives: readonly (infer A)[] }
  ? A extends { readonly schema: infer S extends TSchema }
    ? Static<S>
    : never
  : never;
type Success<O> = O extends { readonly success: { readonly schema: infer S extends TSchema } } ? Static<S> : never;

/** What a method answers: the success body, or one of its alternatives (e.g. 202 with a job for `async: true`). */
export type OutputOf<E extends TableEntry> = E['response'] extends 'binary'
  ? Response
  : Success<OperationOf<E>> | Alternatives<OperationOf<E>>;

/** Per-call settings, the last argument of every method. */
export interface CallOptions {
  /** Aborts the call (and its retries); the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Gives up on each attempt after this long (default: the client's `timeoutMs`); 0 waits for ever. */
  readonly timeoutMs?: number;
  /** Extra headers for this call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Overrides the client's retry settings for this call; `false` sends it once. */
  readonly retry?: Partial<RetryOptions> | false;
}

/** Retries of refused or failed calls with exponential backoff and full jitter; see retry.ts for what is retried. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries: number;
  /** First backoff ceiling in ms, doubled each retry (default 250). */
  readonly baseDelayMs: number;
  /** Longest wait before a retry, in ms (default 10,000); a longer Retry-After is not waited for: the error is thrown. */
  readonly maxDelayMs: number;
}

type Method<E extends TableEntry> = [Record<string, never>] extends [InputOf<E>]
  ? (input?: InputOf<E>, options?: CallOptions) => Promise<OutputOf<E>>
  : (input: InputOf<E>, options?: CallOptions) => Promise<OutputOf<E>>;

/** The methods of one group, typed per operation. */
export type GroupMethods<G extends GroupName> = {
  readonly [M in MethodName<G>]: OperationTable[G][M] extends TableEntry
    ? OperationTable[G][M]['body'] extends 'ndjson'
      ? ImportMethod
      : Method<OperationTable[G][M]>
    : never;
};

/** Input and output of a method by group and name, e.g. `Input<'search', 'hybrid'>`. */
export type Input<G extends GroupName, M extends MethodName<G>> = OperationTable[G][M] extends TableEntry
  ? InputOf<OperationTable[G][M]>
  : never;
export type Output<G extends GroupName, M extends MethodName<G>> = OperationTable[G][M] extends TableEntry
  ? OutputOf<OperationTable[G][M]>
  : never;
