const box = (x: number, y: number, w: number, h: number, title: string, lines: string[], fill: string) => (
  <g key={title}>
    <rect x={x} y={y} width={w} height={h} rx={12} fill={fill} stroke="#c7ceff" />
    <text x={x + 16} y={y + 26} fontWeight={700} fontSize={15} fill="#141a2e">
      {title}
    </text>
    {lines.map((line, i) => (
      <text key={line} x={x + 16} y={y + 48 + i * 18} fontSize={12.5} fill="#55607a">
        {line}
      </text>
    ))}
  </g>
);

const arrow = (x1: number, y1: number, x2: number, y2: number) => (
  <line
    key={`${x1}-${y1}-${x2}-${y2}`}
    x1={x1}
    y1={y1}
    x2={x2}
    y2={y2}
    stroke="#4f5dff"
    strokeWidth={2}
    markerEnd="url(#arrow)"
  />
);

export default function SystemArchitecture() {
  return (
    <>
      <p>
        GoDB is one Node.js process in four layers. The <strong>contract</strong> describes every operation once; the{' '}
        <strong>transports</strong> (REST, gRPC) validate against it and call one <strong>service</strong> function per
        operation; the <strong>engine</strong> is the database itself — a plain library with no knowledge of HTTP.
      </p>
      <figure>
        <svg
          viewBox="0 0 760 430"
          role="img"
          aria-labelledby="arch-title arch-desc"
          style={{ width: '100%', maxWidth: 760, height: 'auto' }}
        >
          <title id="arch-title">GoDB architecture</title>
          <desc id="arch-desc">
            Clients call REST or gRPC transports, which call shared services, which call the engine: storage, indexes
            and embeddings.
          </desc>
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0 0 10 5 0 10z" fill="#4f5dff" />
            </marker>
          </defs>
          {box(20, 20, 200, 80, 'Website & playground', ['React, rendered from', 'the contract'], '#ffffff')}
          {box(280, 20, 200, 80, 'REST :8081', ['Fastify, routes generated', 'from the contract'], '#eceeff')}
          {box(540, 20, 200, 80, 'gRPC :50051', ['SearchService, AdminService,', 'DocumentService'], '#eceeff')}
          {box(
            280,
            150,
            460,
            80,
            'Services',
            ['one use case per operation: authentication, roles, validation,', 'the same code for REST and gRPC'],
            '#f5f7fb',
          )}
          {box(20, 150, 200, 80, 'Contract', ['operations, schemas,', 'error catalogue, proto'], '#fff6e0')}
          {box(
            20,
            280,
            220,
            130,
            'Store (SQLite, WAL)',
            ['documents, chunks, vectors', 'users, groups, ACLs', 'engagement events, jobs', 'mail outbox'],
            '#ffffff',
          )}
          {box(
            270,
            280,
            220,
            130,
            'Derived indexes',
            ['FTS5 per tenant (BM25)', 'HNSW per tenant & model', 'R*Tree (geo)', 'rebuilt from the store'],
            '#ffffff',
          )}
          {box(
            520,
            280,
            220,
            130,
            'Embeddings',
            ['USE Lite (native workers)', 'GloVe, local ONNX', 'OpenAI-compatible, Ollama', 'LRU cache, quantization'],
            '#ffffff',
          )}
          {arrow(220, 60, 278, 60)}
          {arrow(380, 100, 380, 148)}
          {arrow(640, 100, 640, 148)}
          {arrow(220, 190, 278, 190)}
          {arrow(380, 230, 130, 278)}
          {arrow(450, 230, 380, 278)}
          {arrow(600, 230, 630, 278)}
        </svg>
        <figcaption>Requests flow down; the contract is read by every layer above the engine.</figcaption>
      </figure>
      <h2>A write</h2>
      <ol>
        <li>
          The transport authenticates the bearer token (before validation), then validates the body against the
          operation’s schema.
        </li>
        <li>
          The document is checked further (ids, file types, chunk sizes) and split into chunks of about 1,024
          characters.
        </li>
        <li>Every chunk is embedded by the worker pool, in batches of up to 32 texts.</li>
        <li>
          One SQLite transaction writes the document, its chunks and vectors, its access entries, its text-index rows
          and its location, and bumps the vector index’s generation. The answer is sent only after the commit is
          durable.
        </li>
        <li>
          The new vectors are searchable at once, exactly, from the index&apos;s tail, and move into the HNSW graph in
          the background. Vector indexes and each tenant&apos;s in-memory BM25 text index are checkpointed to files with
          the last write they hold, so a restart, even after kill -9, loads the last checkpoint and replays only the
          writes after it. Until a text index is back, FTS5 ranks its queries with the same scores.
        </li>
      </ol>
      <h2>A search</h2>
      <ol>
        <li>Candidates come from the index of the search kind: FTS5 for text, HNSW for vectors, the R*Tree for geo.</li>
        <li>
          Every candidate is loaded under the access rule, in SQL: public documents, or those whose ACL or access list
          names the caller.
        </li>
        <li>
          Filters and geo restrictions apply; vector scores are recomputed exactly from the stored float32 vectors.
        </li>
        <li>Chunks are grouped by document, and the results name the chunks that matched.</li>
      </ol>
      <h2>Cluster design</h2>
      <p>
        Cluster mode (a preview: set <code>NATS_URL</code>) uses NATS JetStream as the replicated log instead of a
        home-made consensus protocol. Each node keeps its own embedded store, and derived indexes follow it locally —
        the same property that makes the embedded mode crash-safe.
      </p>
      <ul>
        <li>
          <strong>Writes are operations.</strong> The node that takes a write decides its ids, times and embeddings,
          then appends it to one of 16 shard streams: the directory, jobs and mail on shard 0, each tenant&apos;s data
          on the shard a JetStream KV map fixed on its first write. A write retried with its Idempotency-Key is applied
          once.
        </li>
        <li>
          <strong>Every node applies every shard in order.</strong> An operation is applied in one SQLite transaction
          with its sequence; a tenant&apos;s operation waits for the directory sequence it was decided on. One that a
          node cannot apply for a reason of its own stops that node before it: it is never skipped.
        </li>
        <li>
          <strong>Everything is replicated:</strong> registration, users, groups, permissions, API keys, documents
          (visibility, ACLs, engagement, deletes by filter), collections, index maintenance, jobs, mail and snapshot
          restores. Files uploaded with documents and the snapshots users take live in a store every node reads (the
          JetStream object store or the S3 bucket); operations carry their keys, never their bytes.
        </li>
        <li>
          <strong>Singleton work runs under a lease.</strong> Nodes report how far they applied the log to a JetStream
          KV bucket. One node at a time, under a KV lease whose revision is its fencing token, relays the mail outbox (a
          stale holder&apos;s marks are refused when applied), fails the jobs of nodes that left, takes whole-node
          snapshots into the JetStream object store, verifies them, and truncates each shard below both the newest
          snapshot and the slowest live node.
        </li>
        <li>
          <strong>Catch-up.</strong> A restarted node replays from the sequence it applied; a new or wiped node restores
          the newest snapshot and replays the rest of the log.
        </li>
      </ul>
    </>
  );
}
