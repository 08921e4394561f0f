import { ColumnHeads } from '../column-heads';

const features: [string, string][] = [
  [
    'Vector search',
    'HNSW (usearch) per tenant and model; cosine, euclidean or dot similarity (exact), scores calibrated to a 0–1 relevance for the shipped models with a threshold on them, filters, geo restriction and location-aware scoring.',
  ],
  [
    'Collections and your own vectors',
    'Declare a collection’s named vectors (size, cosine, euclidean or dot, f32, f16, i8 or b1 storage, HNSW parameters) and send them with each document, or let a model fill one from the text; scores stay exact.',
  ],
  [
    'Full-text search',
    'BM25 on per-tenant FTS5 indexes with Porter stemming; match, phrase and wildcard queries; chunk-level hits.',
  ],
  [
    'Hybrid search',
    'Text and vector candidates fused by alpha, each side normalised by its score distribution (DBSF, by default with the spread at least a sixth of the mean) or min-max, or by reciprocal rank fusion; optional learning to rank from engagement.',
  ],
  [
    'Geo search',
    'Radius queries in kilometres on an R*Tree, nearest first, with distances; geo filters on any search.',
  ],
  ['Faceted search', 'Counts per value of tags, categories or any metadata key over every matching document.'],
  [
    'Fuzzy search and autocomplete',
    'Levenshtein expansion (0–2 edits, with a fixed prefix) over the tenant’s vocabulary; completions ranked by frequency and engagement.',
  ],
  ['Smart search', 'A router that picks text, semantic, geo or hybrid search from the query, and says why.'],
  ['Multi-table search', 'Search across primary tables, or inner joins between them on any field.'],
  [
    'Embeddings',
    'Local models with nothing to download (USE Lite, GloVe), bring-your-own ONNX folders, OpenAI-compatible and Ollama endpoints; quantization.',
  ],
  [
    'Multi-tenancy and access control',
    'JWT authentication, roles, groups, permissions; public, private and shared documents with expiring ACL entries.',
  ],
  [
    'Documents',
    'Versions, chunking, child documents, engagement counters and events, batch and asynchronous imports, index maintenance.',
  ],
  [
    'Graph queries',
    'Paths of least weight (shortest_path, A*, Bellman-Ford) and of fewest edges (bidirectional, whose cost is still that path’s weight sum), depth-limited BFS and DFS, seven centralities, random-walk, TransE and GraphSAGE-style node embeddings — over the links the caller may see.',
  ],
  [
    'Recommendations',
    'Content (embedding similarity), collaborative (co-engagement), graph (neighbourhood) and hybrid strategies; each result says which contributed.',
  ],
  [
    'Operations',
    'Structured logs with request ids, Prometheus metrics, health and readiness, rate limits, concurrency limits, graceful shutdown.',
  ],
];

export default function CoreFeatures() {
  return (
    <>
      <p>
        Every feature below is served by the running server and documented in the API reference, generated from the same
        catalogue.
      </p>
      <table>
        <ColumnHeads names={['Feature', 'What it does']} />
        <tbody>
          {features.map(([name, text]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        REST and gRPC (SearchService, AdminService and DocumentService, whose client-streaming ImportDocuments takes any
        number of documents; with reflection and health checking) call the same use cases, so they validate, authorize
        and answer alike.
      </p>
    </>
  );
}
