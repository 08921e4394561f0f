const features: [string, string][] = [
  [
    'Vector search',
    'HNSW (usearch) per tenant and model; cosine, euclidean or dot similarity, exact scores, threshold, filters, geo restriction and location-aware scoring.',
  ],
  [
    'Full-text search',
    'BM25 on per-tenant FTS5 indexes with Porter stemming; match, phrase and wildcard queries; chunk-level hits.',
  ],
  [
    'Hybrid search',
    'Text and vector candidates fused by alpha (min-max) or by reciprocal rank fusion; optional learning to rank from engagement.',
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
        <thead>
          <tr>
            <th scope="col">Feature</th>
            <th scope="col">What it does</th>
          </tr>
        </thead>
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
        Graph queries (paths, centralities, node embeddings) and recommendations are part of the API catalogue and
        answer <code>501</code> with the issue that tracks them until they land; the gRPC transport is in the same
        state.
      </p>
    </>
  );
}
