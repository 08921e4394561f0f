/**
 * The whitepaper, as data: the page renders it and the build turns the same data into the downloadable PDF
 * (web/scripts/whitepaper-pdf.ts), so the two can never differ.
 */
export type Block = { readonly p: string } | { readonly list: readonly string[] } | { readonly h3: string };

export interface WhitepaperSection {
  readonly id: string;
  readonly title: string;
  readonly blocks: readonly Block[];
}

export const whitepaperTitle = 'GoDB: The Unified Intelligent Data Platform';
export const whitepaperSubtitle =
  'A vector database and search engine for AI applications — technical whitepaper, beta release';

export const whitepaperSections: readonly WhitepaperSection[] = [
  {
    id: 'executive-summary',
    title: 'Executive Summary',
    blocks: [
      {
        p: 'AI applications need more than nearest-neighbour lookups. A support assistant must find the paragraph that answers a question, respect who may read it, prefer what users found useful, and combine the meaning of a query with its exact words. Today that takes a vector store, a text engine, a geo index, a graph store and glue code between them. GoDB puts these behind one API.',
      },
      {
        p: 'GoDB stores documents, splits them into chunks, embeds them with local models that need no network access, and indexes every chunk for full-text (BM25), vector (HNSW) and geographic search in the same write. Every kind of search — text, vector, hybrid, geo, faceted, fuzzy, autocomplete, smart routing and multi-table joins — runs under one access rule, so no query can return a document its caller cannot read.',
      },
      {
        p: 'On the Cranfield collection, GoDB’s text ranking scores an nDCG@10 above raw SQLite FTS5, MiniSearch and PostgreSQL full-text search measured in the same run, and its hybrid ranking improves on its text ranking. The figures, and the scripts that produce them, are published with the code.',
      },
    ],
  },
  {
    id: 'introduction',
    title: 'Introduction',
    blocks: [
      {
        p: 'GoDB is written in TypeScript on Node.js. It runs embedded by default: one process serves the website, the REST API on port 8081 and the gRPC API on port 50051; data lives in one folder. By default GoDB runs as a single node; a cluster mode on NATS JetStream, in preview, replicates writes to every node through one log (the Deployment guide says what it covers so far). Nothing has to be installed beside it and nothing is downloaded at run time.',
      },
      { h3: 'Design principles' },
      {
        list: [
          'One catalogue of operations is the single source of truth: the server validates with it, and the documentation and the API playground are generated from it.',
          'The store is the truth; indexes are derived. A write is acknowledged once it is durable, and any index that is missing, stale or corrupt is rebuilt from the stored documents.',
          'Tenants are isolated at every layer, down to per-tenant text indexes, so ranking statistics and vocabularies never mix; within a tenant, ranking statistics count public documents only, so no score moves with a document its reader cannot see.',
          'Every error has a stable code and a message that says how to fix the problem.',
        ],
      },
      {
        p: 'GoDB is in beta. It is offered for evaluation and testing; this paper describes what the code does today and says where it is going.',
      },
    ],
  },
  {
    id: 'components',
    title: 'Components',
    blocks: [
      { h3: 'Storage engine' },
      {
        p: 'Documents, chunks, users and access lists live in SQLite in write-ahead-log mode with synchronous commits. Each tenant has its own FTS5 indexes: one with the Porter stemmer for BM25 ranking, one of unstemmed words whose vocabulary serves fuzzy matching and autocomplete. Word and phrase queries are ranked by an in-memory inverted index derived from them, with the same BM25 scores and MaxScore pruning. Locations are indexed in an R*Tree.',
      },
      { h3: 'Vector index' },
      {
        p: 'Each tenant and embedding model has an HNSW index (usearch, 16 links per node, construction breadth 200, search breadth 100) storing half-precision vectors. Candidates from the index are rescored exactly from float32 copies of the vectors kept in memory (read from the store when they do not fit the configured budget), so the scores returned are exact for cosine, euclidean and dot-product similarity. Filters are applied by widening the candidate set, and by an exact scan of the allowed documents when a filter is very selective.',
      },
      { h3: 'Embeddings' },
      {
        list: [
          'use-lite-512: Universal Sentence Encoder Lite, its TensorFlow.js graph translated to ONNX and run on onnxruntime’s native CPU kernels, in a pool of worker threads fed by a bounded queue.',
          'glove-100: averaged GloVe word vectors with smooth inverse-frequency weights — fast, for large imports.',
          'Bring-your-own models (such as mxbai-embed-large-v1) from a local folder, and OpenAI-compatible or Ollama endpoints.',
          'Long texts are windowed and pooled; results are cached; vectors can be quantized (linear, k-means or binary) with the reconstruction error reported.',
        ],
      },
      { h3: 'Search and ranking' },
      {
        p: 'Hybrid search fetches twice the requested results from the text and the vector side and fuses the two sides’ scores with a weight alpha, each normalised by its mean ± 3 standard deviations (distribution-based score fusion; by default with the deviation taken as at least a sixth of the mean, so scores a few per cent apart stay close), by min-max, or by reciprocal rank fusion. Optionally, a logistic model learned from the tenant’s engagement events re-ranks the fused candidates. The smart router chooses text, semantic, geo or hybrid search from the shape of a query and says why.',
      },
      { h3: 'Service and transports' },
      {
        p: 'One use case per operation is shared by REST and gRPC. Requests are authenticated with HS256 JSON Web Tokens, rate-limited per client, bounded in concurrency and timed out; answers carry a request id that is also in the structured log. Prometheus metrics, health and readiness endpoints come built in.',
      },
      { h3: 'Cluster design' },
      {
        p: 'Cluster mode, in preview today, builds on NATS JetStream rather than a home-made consensus protocol: every write is appended to a replicated log (shard streams with three replicas on file storage), and every node applies each shard in its order to its own embedded store and rebuilds its derived indexes from it, so a document written on one node is found on all. Reads are served locally; a caller that must see its own write sends back the log position the write answered (X-GoDB-Min-Seq) or asks for a strong read. A node that lost its data restores the newest cluster snapshot and replays the log after it. The single-node embedded mode described above remains the default; the README lists what the preview replicates.',
      },
    ],
  },
  {
    id: 'data-model',
    title: 'Data Model',
    blocks: [
      {
        p: 'A document has an id unique in its tenant, a title, content, string-keyed metadata, tags, categories, a location, a primary table (the logical collection it belongs to), a language, a visibility and an access list. Adding an existing id creates a new version; the previous one stays readable as id@v<n>.',
      },
      { h3: 'Chunks' },
      {
        p: 'Content is split into chunks of chunk_size characters (1,024 by default) that overlap by chunk_overlap characters (200), breaking between words. Chunks are child documents (doc#0, doc#1, …); each is embedded with its document’s title and indexed for text search, so search results name the chunk that matched.',
      },
      { h3: 'Access' },
      {
        list: [
          'public: every user of the tenant may read the document;',
          'private: its owners and the users or groups in its ACL;',
          'shared: additionally, the users or groups of its access list.',
          'ACL entries carry a role (owner, edit, view) and may expire; visibility changes need edit or owner, ACL changes need owner, and the last owner cannot be removed.',
        ],
      },
      { h3: 'Engagement' },
      {
        p: 'Clicks, likes, views and other counters accumulate; scores such as completion and quality are set. Every engagement call is also kept as an event with its user, which recommendations and learning to rank use.',
      },
    ],
  },
];
