import type { TObject, TSchema } from '@sinclair/typebox';
import type { ErrorCode } from './errors.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Category =
  | 'auth'
  | 'collections'
  | 'documents'
  | 'indexes'
  | 'embeddings'
  | 'search'
  | 'graph'
  | 'jobs'
  | 'mail'
  | 'snapshots'
  | 'cluster';
/** Who may call: anyone, any signed-in user, a tenant admin, or the server's super admin. */
export type Access = 'public' | 'user' | 'admin' | 'superadmin';
export type FieldKind = 'text' | 'number' | 'textarea' | 'select' | 'file';

/** Playground hints for one field; everything not given is derived from the schema. */
export interface FieldHint {
  readonly kind?: FieldKind;
  readonly label?: string;
  readonly placeholder?: string;
  readonly default?: string | number | boolean;
  readonly options?: readonly string[];
  readonly required?: boolean;
  /** Accept attribute for file fields. */
  readonly accept?: string;
  /** What the playground shows when this required field is empty, instead of '<label> is required'. */
  readonly requiredMessage?: string;
  /**
   * A value the form starts with that only the browser knows: the current time in Unix seconds, the server's
   * default embedding model, or `{"model_name": <that model>}`.
   */
  readonly initial?: 'now' | 'default-model' | 'default-model-options';
}

export interface OperationExample {
  readonly summary: string;
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  readonly response: { readonly status: number; readonly body: unknown };
}

export interface GrpcBinding {
  readonly service: 'SearchService' | 'AdminService' | 'DocumentService';
  readonly method: string;
}

export interface OperationSpec {
  /** Stable kebab-case id, also the file name under operations/. */
  readonly id: string;
  /** Name as shown in the playground sidebar and the reference. */
  readonly name: string;
  readonly category: Category;
  readonly summary: string;
  readonly description: string;
  readonly http: {
    readonly method: HttpMethod;
    /** Canonical path in OpenAPI form (`/api/v1/documents/{id}`). */
    readonly path: string;
    /** Other paths serving the same operation (the bare forms the specification also lists). */
    readonly aliases: readonly string[];
  };
  readonly access: Access;
  readonly params?: TObject;
  readonly query?: TObject;
  readonly body?: TSchema;
  /**
   * A streamed body of NDJSON (`application/x-ndjson`): one JSON value per line, each validated against `line` by
   * the use case, which reads the lines as they arrive. Such an operation has no `body` schema.
   */
  readonly ndjson?: { readonly line: TSchema; readonly description: string };
  /**
   * A streamed binary body of `contentType` (e.g. a snapshot's `application/x-tar`), handed to the use case as it
   * arrives and bounded by IMPORT_BODY_LIMIT_BYTES. Such an operation has no `body` schema.
   */
  readonly binary?: { readonly contentType: string; readonly description: string };
  readonly success: { readonly status: 200 | 201 | 202; readonly schema: TSchema; readonly description: string };
  /** Other success answers, e.g. 202 Accepted when work continues in the background. */
  readonly alternatives?: readonly {
    readonly status: 200 | 201 | 202;
    readonly schema: TSchema;
    readonly description: string;
  }[];
  /** Work that may take longer than the answer deadline (WRITE_TIMEOUT_MS), which is then not applied. */
  readonly longRunning?: boolean;
  /** Error codes this operation can answer with, besides the ones every operation can (see commonErrors). */
  readonly errors: readonly ErrorCode[];
  readonly examples: readonly [OperationExample, ...OperationExample[]];
  readonly playground?: {
    readonly hints?: Readonly<Record<string, FieldHint>>;
    /** Fields the playground shows that are not part of the request schema (e.g. a file to upload). */
    readonly extraFields?: readonly PlaygroundExtraField[];
    /** Schema fields the playground does not show. */
    readonly hidden?: readonly string[];
    /**
     * The operation's own checks before sending (api-spec §5), on the form's converted values: answers the message
     * to show (nothing is sent), or undefined. `ignore` drops a field the server would not use, with a console note.
     */
    readonly check?: (
      values: Readonly<Record<string, unknown>>,
      ignore: (field: string, note: string) => void,
    ) => string | undefined;
  };
  readonly grpc?: GrpcBinding;
}

export interface PlaygroundExtraField extends FieldHint {
  readonly name: string;
  readonly kind: FieldKind;
  readonly description: string;
  /** A file that is sent as it is as the request body (an operation with `ndjson` or `binary`). */
  readonly sends?: 'body';
  /**
   * A file whose text the browser extracts into form fields before sending: `text` gets its text, `type` its
   * MIME type and `name` its file name, each only where the visitor left the field empty.
   */
  readonly fills?: { readonly text: string; readonly type?: string; readonly name?: string };
}

/** Errors any operation may answer with, documented once. */
export const commonErrors: readonly ErrorCode[] = [
  'VALIDATION_FAILED',
  'INVALID_URL',
  'INVALID_JSON_BODY',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'OVERLOADED',
  'INTERNAL',
  'NOT_IMPLEMENTED',
  'CLUSTER_NOT_REPLICATED',
  'CLUSTER_UNAVAILABLE',
  'SHARD_UNAVAILABLE',
  'CLUSTER_NOT_DURABLE',
  'CLUSTER_LAGGING',
  'CLUSTER_CATCHING_UP',
];

/** Errors of operations that need a token. */
export const authErrors: readonly ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN'];

/**
 * Categories whose operations read or change a tenant's data: while that tenant is being restored from a snapshot
 * they answer `TENANT_RESTORING` (jobs, snapshots, accounts and embeddings still answer).
 */
export const tenantDataCategories: readonly Category[] = ['documents', 'collections', 'search', 'graph', 'indexes'];

/**
 * Declares one operation of the API. The object is the single source of truth for the server's routes and
 * validation, the OpenAPI document, the reference pages and the playground forms.
 */
export function defineOperation<const T extends OperationSpec>(spec: T): T {
  return spec;
}
