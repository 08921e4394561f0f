import { Type } from '@sinclair/typebox';

const int = (fallback: number, description: string, minimum = 0) =>
  Type.Integer({ default: fallback, minimum, description });

/**
 * Every setting of the server, read from the environment once at start-up. Defaults are the specification's
 * (api-spec §9). This schema also generates the configuration table of the README and the sample configuration
 * of the deployment guide, so the three cannot disagree.
 */
export const ConfigSchema = Type.Object({
  PORT: int(8081, 'HTTP port for the website and the REST API.', 1),
  HOST: Type.String({
    default: 'localhost',
    description: 'Interface to listen on; 0.0.0.0 exposes the server on the network.',
  }),
  GRPC_PORT: int(50051, 'gRPC port (SearchService, AdminService, DocumentService). 0 disables gRPC.'),
  QDRANT_COMPAT_PORT: int(
    0,
    "Port of the Qdrant-compatible REST API at Qdrant's root paths (a Qdrant client's `url: http://host:PORT`); 0 serves it only under /qdrant on PORT.",
  ),
  DATA_DIR: Type.String({
    default: './data',
    description: 'Folder holding the database, index files and the generated JWT secret.',
  }),
  READ_TIMEOUT_MS: int(10000, 'Time allowed to receive a whole request.', 1),
  WRITE_TIMEOUT_MS: int(10000, 'Time allowed to produce an answer before 504; long work has asynchronous variants.', 1),
  WORKER_POOL_SIZE: int(10, 'Embedding worker threads (capped at the number of CPU cores).', 1),
  USE_LITE_RUNTIME: Type.Union([Type.Literal('native'), Type.Literal('wasm')], {
    default: 'native',
    description:
      'Where use-lite-512 runs: native (onnxruntime CPU kernels) or wasm (TensorFlow.js). Same weights, same vectors.',
  }),
  VECTOR_CACHE_MB: int(
    1024,
    'Memory for float32 copies of indexed vectors, so vector search rescores its candidates exactly without reading the store; indexes beyond it read the store (slower). 0 turns the copies off.',
  ),
  VECTOR_INDEX_MEMORY_MB: int(
    4096,
    'Memory for the HNSW vector indexes (estimated from their sizes), over all tenants and collections; beyond it the least recently used indexes are saved and leave memory, and are loaded from their files on next use. 0: no limit.',
  ),
  TEXT_INDEX_MEMORY_MB: int(
    2048,
    'Memory for the in-memory BM25 text indexes, over all tenants; beyond it the least recently queried leave memory (their queries are ranked by SQLite FTS5, with the same scores, while they are rebuilt). 0: no limit.',
  ),
  SEARCH_THREADS: int(
    0,
    "Search worker threads, and the threads vector queries arriving together may use. Workers: searches by a collection's own vector without filters run whole (rows, access rule, results) on this many threads beside the one that parses HTTP, when their index is saved as it is in memory; so do BM25 match and phrase searches without filters, each worker on its own copy of the tenant's text index (decision 0078). Batches: the queries that reach one large index (SEARCH_BATCH_MIN_VECTORS) in the same turn of the event loop are searched as one batch on up to this many threads. 0: for batches one per CPU core the process may use (taskset and CPU sets count), for workers one per core but the first (the HTTP thread's), so none on 2 cores, where workers cost more CPU than they free (decision 0051); 1: no workers, each query alone on the server thread.",
  ),
  IMPORT_THREADS: int(
    -1,
    'Worker threads that parse, validate, chunk and analyse the text of NDJSON import lines while the server thread writes them (decision 0056). -1: one per CPU core beyond the first, none on one or two cores (with no idle core a worker made imports slower); 0: every line prepared on the server thread.',
    -1,
  ),
  SEARCH_BATCH_MIN_VECTORS: int(
    250000,
    'Vector queries are searched together (SEARCH_THREADS) only on indexes of at least this many vectors: below, one search is too short for starting threads to pay (npm run bench:scale measures both ways).',
  ),
  CHECKPOINT_WRITES: int(
    10000,
    "A vector index is saved (checkpointed) once this many of its vectors changed since its last save, so a restart after a crash replays only the writes after it. A tenant's text (BM25) index, once this many of its chunks or a quarter of them changed, whichever is more.",
    1,
  ),
  CHECKPOINT_INTERVAL_S: int(
    60,
    'A vector index with any change is saved at the latest this many seconds after its last save; a text (BM25) index, five times this.',
    1,
  ),
  INDEX_WAIT_MS: int(
    10000,
    'How long a vector query waits for an index that is loading or catching up after a restart before answering 503 INDEX_LOADING.',
    1,
  ),
  RESTORE_SLICE_ROWS: int(
    100000,
    'At most this many rows a tenant restore deletes, copies or indexes per transaction (each is sized to about 40 ms of work, below this); other tenants are served between them, while the restored tenant answers 503 TENANT_RESTORING until the end.',
    1,
  ),
  RESTORE_DRAIN_TIMEOUT_MS: int(
    60000,
    'How long a tenant restore waits for the tenant’s requests and background writes under way before it gives up (RESTORE_DRAIN_TIMEOUT, the tenant left as it was).',
    1,
  ),
  QUEUE_SIZE: int(100, 'Embedding requests waiting for a worker before 503.', 1),
  CACHE_SIZE: int(1000, 'Entries in the text → vector LRU cache.'),
  RATE_LIMIT_RPS: int(
    100,
    'Requests per second allowed per client address, or per API key (token bucket refill rate).',
    1,
  ),
  RATE_LIMIT_BURST: int(50, 'Token bucket size: requests a client address, or an API key, may send at once.', 1),
  MAX_CONCURRENT_OPERATIONS: int(100, 'API requests in flight before 503.', 1),
  LOGIN_MAX_FAILURES: int(
    5,
    'Failed logins to one account from one client before that pair must wait (429 LOGIN_THROTTLED); other clients are unaffected.',
    1,
  ),
  LOGIN_MAX_CLIENT_FAILURES: int(50, 'Failed logins from one client, over all accounts, before it must wait.', 1),
  LOGIN_LOCKOUT_S: int(30, 'First wait after too many failed logins, in seconds; each further failure doubles it.', 1),
  LOGIN_LOCKOUT_MAX_S: int(
    900,
    'Longest wait after failed logins, in seconds; failures older than this with no new one are forgotten.',
    1,
  ),
  GRAPH_MAX_ELEMENTS: int(
    200000,
    'Nodes plus edges a graph query or graph recommendation may load; beyond it the query answers 400 GRAPH_BUDGET_EXCEEDED.',
    1,
  ),
  GRAPH_MAX_SUBGRAPH_NODES: int(
    20000,
    'Nodes a centrality or graph-embedding query may run on (their cost grows with nodes × edges); beyond it 400.',
    1,
  ),
  SIGNED_URL_EXPIRY_S: int(3600, 'Lifetime of signed download links, in seconds.', 1),
  STORAGE_PROVIDER: Type.Union([Type.Literal('internal'), Type.Literal('s3')], {
    default: 'internal',
    description:
      'Where uploaded files and release archives are kept: internal (DATA_DIR/files and RELEASE_DIR) or s3 (the S3_BUCKET; start-up checks it).',
  }),
  S3_ENDPOINT: Type.String({
    default: '',
    description:
      'S3 API base URL for STORAGE_PROVIDER=s3, e.g. http://127.0.0.1:8080 for OpenStack Swift, MinIO or Ceph; empty means AWS S3 in S3_REGION.',
  }),
  S3_REGION: Type.String({
    default: 'us-east-1',
    description: 'Region of the bucket (signing region for other stores).',
  }),
  S3_BUCKET: Type.String({
    default: '',
    description: 'Bucket that keeps the files (required with STORAGE_PROVIDER=s3); it must exist.',
  }),
  S3_PREFIX: Type.String({
    default: '',
    description:
      'Key prefix inside the bucket, e.g. godb/, so GoDB can share a bucket (files/ and releases/ go under it).',
  }),
  S3_ACCESS_KEY_ID: Type.String({
    default: '',
    description:
      'Access key of the bucket; empty uses the AWS SDK’s default chain (AWS_ACCESS_KEY_ID, an instance role …).',
  }),
  S3_SECRET_ACCESS_KEY: Type.String({ default: '', description: 'Secret key of S3_ACCESS_KEY_ID.' }),
  S3_FORCE_PATH_STYLE: Type.Boolean({
    default: false,
    description:
      'Address the bucket in the URL path (endpoint/bucket/key) rather than the host name: what Swift, MinIO and most stores other than AWS need.',
  }),
  CORS_ORIGINS: Type.String({
    default: '*',
    description: 'Comma-separated origins allowed to call the API, or * for any.',
  }),
  JWT_SECRET: Type.String({
    default: '',
    description: 'HS256 signing secret (32+ characters). Generated and kept in DATA_DIR/jwt-secret when empty.',
  }),
  JWT_TTL_S: int(86400, 'Lifetime of login tokens, in seconds.', 60),
  SUPERADMIN_EMAIL: Type.String({
    default: '',
    description: 'E-mail of the super admin created at start-up (with SUPERADMIN_PASSWORD).',
  }),
  SUPERADMIN_PASSWORD: Type.String({ default: '', description: 'Password of that super admin (8+ characters).' }),
  BODY_LIMIT_BYTES: int(10 * 1024 * 1024, 'Largest request body accepted before 413.', 1024),
  IMPORT_BODY_LIMIT_BYTES: int(
    10 * 1024 * 1024 * 1024,
    'Largest streamed body accepted before 413: an NDJSON import (POST /api/v1/documents/import) or an uploaded snapshot (POST /api/v1/snapshots/upload); neither is held in memory.',
    1024,
  ),
  IMPORT_IDLE_TIMEOUT_MS: int(
    30000,
    'An NDJSON import whose client sends nothing for this long is stopped (408 IMPORT_STALLED); the lines written so far stay written.',
    1,
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'Log level of the structured (JSON) log.' },
  ),
  WEB_DIST: Type.String({
    default: '',
    description: 'Folder of the built website; empty means web/dist of this checkout.',
  }),
  DEFAULT_EMBEDDING_MODEL: Type.String({
    default: 'mxbai-embed-large-v1',
    description:
      'Default embedding model; when it is not installed, use-lite-512 is used and /embeddings/models says so.',
  }),
  MODELS_DIR: Type.String({
    default: './models',
    description:
      'Bring-your-own local models: MODELS_DIR/<name>/ with config.json, tokenizer.json and onnx/model.onnx.',
  }),
  MODEL_CACHE_DIR: Type.String({
    default: '',
    description: 'Derived model files (the compact GloVe file); empty means DATA_DIR/model-cache.',
  }),
  OPENAI_BASE_URL: Type.String({
    default: '',
    description: 'OpenAI-compatible embeddings endpoint base, e.g. https://api.openai.com/v1 or a vLLM server.',
  }),
  OPENAI_API_KEY: Type.String({ default: '', description: 'Bearer key for OPENAI_BASE_URL.' }),
  OPENAI_EMBEDDING_MODELS: Type.String({
    default: '',
    description: 'Models served there, as name:dimensions,… e.g. text-embedding-3-small:1536.',
  }),
  OLLAMA_BASE_URL: Type.String({ default: '', description: 'Ollama server, e.g. http://localhost:11434.' }),
  OLLAMA_EMBEDDING_MODELS: Type.String({
    default: '',
    description: 'Models served there, as name:dimensions,… e.g. nomic-embed-text:768.',
  }),
  EMBEDDING_TIMEOUT_MS: int(30000, 'Timeout of one call to a remote embedding provider.', 1),
  RERANK_MODELS_DIR: Type.String({
    default: './models/rerankers',
    description:
      'Bring-your-own cross-encoders for the query pipeline’s rerank: RERANK_MODELS_DIR/<name>/ with tokenizer.json and model.onnx (or onnx/model.onnx).',
  }),
  RERANK_MODELS: Type.String({
    default: '',
    description:
      'HTTP rerankers, as name=tei:<base URL> (Text Embeddings Inference /rerank) or name=cohere:<base URL> (Cohere /v1/rerank, the name sent as its model), comma-separated.',
  }),
  RERANK_API_KEY: Type.String({
    default: '',
    description: 'Bearer key sent to the RERANK_MODELS entries RERANK_API_KEY_MODELS names, and to no other.',
  }),
  RERANK_API_KEY_MODELS: Type.String({
    default: '',
    description:
      'Comma-separated names of the RERANK_MODELS entries that receive RERANK_API_KEY; required when the key is set (a name RERANK_MODELS lacks stops the server).',
  }),
  RERANK_TIMEOUT_MS: int(
    5000,
    'Time one rerank call may take (capped at 80 % of WRITE_TIMEOUT_MS, so a slow reranker answers 503, not 504).',
    1,
  ),
  EMBEDDING_RETRIES: int(2, 'Retries of a remote embedding call on network errors, timeouts, 429 and 5xx.'),
  PUBLIC_URL: Type.String({
    default: '',
    description: 'Base URL used in e-mailed links; empty means http://localhost:PORT.',
  }),
  SMTP_HOST: Type.String({
    default: '',
    description: 'SMTP server that relays the outbox; empty keeps messages pending in the outbox.',
  }),
  SMTP_PORT: int(587, 'SMTP port.', 1),
  SMTP_SECURE: Type.Boolean({
    default: false,
    description: 'Use TLS from the start (port 465); otherwise STARTTLS when offered.',
  }),
  SMTP_USER: Type.String({ default: '', description: 'SMTP user name (empty: no authentication).' }),
  SMTP_PASSWORD: Type.String({ default: '', description: 'SMTP password.' }),
  MAIL_FROM: Type.String({ default: 'GoDB <no-reply@localhost>', description: 'Sender of the messages GoDB relays.' }),
  MAIL_TEAM_ADDRESS: Type.String({
    default: 'team@localhost',
    description: 'Where contact messages, issue reports and binary requests go.',
  }),
  MAIL_SERVICE_ID: Type.String({
    default: 'godb',
    description: 'Service ID the site must send to the e-mail service endpoint.',
  }),
  MAIL_PUBLIC_KEY: Type.String({
    default: 'godb-public-key',
    description: 'Public key the site must send to the e-mail service endpoint.',
  }),
  MAIL_BLOCKED_SENDERS: Type.String({
    default: '',
    description: 'Comma-separated e-mail addresses or @domains whose messages are refused (403).',
  }),
  MAIL_MAX_PER_HOUR: int(20, 'Messages a sender (address or client) may send per hour before 429.', 1),
  MAIL_RETRY_BASE_MS: int(
    5000,
    'First retry delay of a failed delivery; doubles each attempt (at most 10 minutes).',
    10,
  ),
  RELEASE_DIR: Type.String({
    default: './release',
    description:
      'Where the release tarball served by signed links is kept: `npm run package` writes it, or the first download builds it.',
  }),
  DOWNLOAD_SECRET: Type.String({
    default: '',
    description: 'HMAC key of download links; empty derives one from the JWT secret.',
  }),
  NATS_URL: Type.String({
    default: '',
    description:
      'Cluster mode (preview): comma-separated NATS server URLs (nats://host:4222) of a JetStream cluster; writes go through its replicated log and every node applies them. Empty: one embedded node. Needs a JWT_SECRET shared by every node.',
  }),
  NATS_PUBLISH_TIMEOUT_MS: int(
    8000,
    'Cluster mode: how long a write keeps trying to get its operation acknowledged by JetStream (a NATS node down means a few seconds of leader election) before it answers 503 CLUSTER_UNAVAILABLE. Keep it below WRITE_TIMEOUT_MS.',
    100,
  ),
  NATS_SYNC_ALWAYS: Type.Boolean({
    default: false,
    description:
      'Cluster mode: say that every NATS server syncs each write to disk before acknowledging it (`sync_interval: always` in its `jetstream` block, nats-server 2.10+), so an acknowledged write survives a power loss of every NATS server at once. A node then refuses to start when a NATS server it reaches is older than 2.10, which would ignore that and sync on a 2-minute timer, and a running node refuses writes (503 CLUSTER_NOT_DURABLE, /readyz 503) while such a server that joined or came back later is in the cluster. No client can read the server setting itself: set it on every server.',
  }),
  NODE_ID: Type.String({
    default: '',
    description: "Cluster mode: this node's name, unique in the cluster; empty uses the host name.",
  }),
  CLUSTER_NODE_GONE_S: int(
    900,
    'Cluster mode: a node that has not reported its progress (in the KV bucket godb-progress) for this long counts as gone: the log may be truncated past it, and when it comes back it restores the latest snapshot.',
    1,
  ),
  CLUSTER_LEASE_TTL_MS: int(
    15000,
    'Cluster mode: how long the lease on singleton work (cluster snapshots, log truncation) lives unless its holder renews it (every third of it); when the holder dies, another node takes over after at most this long.',
    1000,
  ),
  CLUSTER_SNAPSHOT_EVERY_OPS: int(
    100000,
    'Cluster mode: the lease holder takes a cluster snapshot (for new or wiped nodes to start from, and so the log can be truncated) once this many operations were applied since the last one. 0: not by count.',
  ),
  CLUSTER_SNAPSHOT_EVERY_MIN: int(
    60,
    'Cluster mode: the lease holder also takes a cluster snapshot when this many minutes passed since the last one and operations were applied meanwhile. 0: not by time.',
  ),
  CLUSTER_COLLECTION_SHARDS: Type.Integer({
    default: 1,
    minimum: 1,
    maximum: 64,
    description:
      'Cluster mode: how many shards a collection is split into when its creation names no `shards` (issue #41); 1 keeps every collection on every node.',
  }),
  CLUSTER_SHARDS: Type.Integer({
    default: 16,
    minimum: 1,
    maximum: 100,
    description:
      "Cluster mode: how many shard streams (godb-shard-00, -01 ...) the replicated log has; tenants are placed on them in the KV bucket godb-shards. Fixed for the cluster's life: a node configured with another count than the streams that exist refuses to start.",
  }),
});
