/**
 * What GoDB's Qdrant-compatible REST API answers (issue #43, decision 0052): one row per Qdrant endpoint, shown in
 * the documentation's client libraries section and docs/qdrant-compatibility.md; the server's drift test checks that
 * every supported row is served and every served route has a row.
 */
export interface QdrantCompatibilityRow {
  /** Method and path as Qdrant documents them. */
  readonly endpoint: string;
  readonly supported: 'yes' | 'partly' | 'no';
  readonly notes: string;
}

export const qdrantCompatibility: readonly QdrantCompatibilityRow[] = [
  {
    endpoint: 'GET /',
    supported: 'yes',
    notes: 'Answers the Qdrant API version the shapes follow (1.18), so client version checks pass.',
  },
  { endpoint: 'GET /healthz', supported: 'yes', notes: 'No key needed.' },
  { endpoint: 'GET /collections', supported: 'yes', notes: 'The tenant’s collections.' },
  {
    endpoint: 'PUT /collections/{name}',
    supported: 'partly',
    notes:
      'Dense vectors, unnamed or named, Cosine, Euclid or Dot; hnsw_config m and ef_construct become GoDB’s HNSW m and ef_construction; scalar and binary quantization map to i8 and b1 index storage (scores stay exact). 400: sparse vectors, multivectors, Manhattan, uint8 vectors, product quantization, custom sharding, init_from.',
  },
  {
    endpoint: 'GET /collections/{name}',
    supported: 'yes',
    notes:
      'status green, points_count, indexed_vectors_count (tenant admins), vectors config, payload_schema from field indexes.',
  },
  { endpoint: 'GET /collections/{name}/exists', supported: 'yes', notes: '' },
  { endpoint: 'DELETE /collections/{name}', supported: 'yes', notes: 'Needs a tenant admin’s key, as in GoDB.' },
  {
    endpoint: 'PATCH /collections/{name}',
    supported: 'partly',
    notes: 'Settings that only tune Qdrant are accepted and ignored; changing m or ef_construct is 400.',
  },
  {
    endpoint: 'PUT /collections/{name}/index',
    supported: 'partly',
    notes:
      'keyword, integer, float, bool, datetime and uuid (as keyword) become GoDB field indexes on metadata.<key>; geo and text are 400. A later point whose value has another type than the index is refused (400), as GoDB field indexes do.',
  },
  { endpoint: 'DELETE /collections/{name}/index/{field}', supported: 'yes', notes: '' },
  { endpoint: 'GET /aliases, GET /collections/{name}/aliases', supported: 'yes', notes: 'Always empty.' },
  { endpoint: 'POST /collections/aliases', supported: 'no', notes: '400: aliases are not supported.' },
  {
    endpoint: 'PUT /collections/{name}/points',
    supported: 'yes',
    notes:
      'points or batch; integer and UUID ids (a UUID in any of its forms is answered lowercase with hyphens); a point replaces the one of its id. 400: shard_key, sparse vectors, multivectors, inference objects.',
  },
  { endpoint: 'GET /collections/{name}/points/{id}', supported: 'yes', notes: '' },
  {
    endpoint: 'POST /collections/{name}/points',
    supported: 'yes',
    notes: 'Retrieve by ids; with_payload and with_vector.',
  },
  { endpoint: 'POST /collections/{name}/points/delete', supported: 'yes', notes: 'By ids or by filter; permanent.' },
  {
    endpoint: 'POST /collections/{name}/points/payload',
    supported: 'yes',
    notes: 'Set (merge), with key for a nested object.',
  },
  { endpoint: 'PUT /collections/{name}/points/payload', supported: 'yes', notes: 'Overwrite.' },
  { endpoint: 'POST /collections/{name}/points/payload/delete', supported: 'yes', notes: 'Top-level keys.' },
  { endpoint: 'POST /collections/{name}/points/payload/clear', supported: 'yes', notes: '' },
  { endpoint: 'PUT /collections/{name}/points/vectors', supported: 'yes', notes: 'Existing points only (else 404).' },
  {
    endpoint: 'POST /collections/{name}/points/vectors/delete',
    supported: 'no',
    notes: '400: upsert the point without the vector.',
  },
  {
    endpoint: 'POST /collections/{name}/points/scroll',
    supported: 'yes',
    notes:
      'filter, offset (a point id), ids in Qdrant’s order (integers, then UUIDs); order_by a payload number or datetime, asc or desc, start_from.',
  },
  { endpoint: 'POST /collections/{name}/points/count', supported: 'yes', notes: 'Always exact.' },
  {
    endpoint: 'POST /collections/{name}/points/search',
    supported: 'yes',
    notes:
      'vector or {name, vector}, filter, limit, offset (limit + offset ≤ 1,000), score_threshold, with_payload, with_vector. Euclid scores are distances.',
  },
  { endpoint: 'POST /collections/{name}/points/search/batch', supported: 'yes', notes: '' },
  {
    endpoint: 'POST /collections/{name}/points/query',
    supported: 'partly',
    notes:
      'query: a vector, {nearest: vector or id}, a point id (its vector; the point left out) or {recommend}; using, filter, limit, offset, score_threshold. prefetch (one or a list, nested up to 3 levels, each with query, using, filter and limit, default 10) runs on GoDB’s query pipeline (decision 0063): {fusion: "rrf"} or {rrf: {k}} is Σ 1 / (k + rank), rank from 1, k 60 by default; {fusion: "dbsf"} normalises each prefetch by its mean ± 3 standard deviations; a vector or {nearest} beside a prefetch rescores its candidates exactly; a prefetch without a query passes its own. {nearest, mmr: {diversity, candidates_limit}} is MMR with λ = 1 − diversity over the candidates_limit nearest (default limit), relevance min-max normalised over them, so picks can differ from Qdrant’s at the same diversity. The top-level filter applies to every prefetch. Euclid scores are distances when the last step is a vector’s. 400: discover, context, order_by, formula, sample, rrf weights, mmr beside a prefetch or inside one, a prefetch score_threshold or lookup_from, several prefetches without a query, a query without query or prefetch.',
  },
  { endpoint: 'POST /collections/{name}/points/query/batch', supported: 'partly', notes: 'As query.' },
  {
    endpoint: 'POST /collections/{name}/points/search/groups',
    supported: 'partly',
    notes:
      'vector or {name, vector}, filter, group_by (a payload key; a list value joins a group per element), group_size (1–100), limit (groups), score_threshold, with_payload, with_vector: the pipeline’s group_by over the 1,000 nearest points, groups in the order of their best hit, each id as the payload holds it. 400: with_lookup.',
  },
  {
    endpoint: 'POST /collections/{name}/points/query/groups',
    supported: 'partly',
    notes:
      'Any query points/query maps (prefetch, fusion, rescore, MMR), grouped as search/groups (group_size default 3, limit 10). 400: recommend, with_lookup.',
  },
  {
    endpoint: 'POST /collections/{name}/points/recommend',
    supported: 'partly',
    notes:
      'positive and negative point ids or vectors, average_vector (the default); the examples are left out. 400: best_score, sum_scores, lookup_from.',
  },
  { endpoint: 'POST /collections/{name}/points/recommend/batch', supported: 'partly', notes: 'As recommend.' },
  {
    endpoint: 'Filters',
    supported: 'yes',
    notes:
      'must, should, must_not, min_should, match value/any/except/text/phrase/text_any (substring, as Qdrant without a full-text index), range (numbers and datetimes), geo_radius, geo_bounding_box, values_count, is_empty, is_null, has_id, nested, keys with dots and []. 400: geo_polygon, has_vector. Conditions on keys with a payload index (keyword, integer, float, bool) are answered by GoDB’s own filtered search; others are evaluated exactly over the points GoDB’s filters narrow them to, slow on large collections (decision 0052).',
  },
  {
    endpoint: 'Snapshots, shards, cluster, telemetry, locks, discover, facet',
    supported: 'no',
    notes: '404 (not served). GoDB’s own snapshot and cluster APIs cover its deployment.',
  },
  {
    endpoint: 'Sparse and multivector vectors and queries',
    supported: 'no',
    notes: '400 naming the feature, in collections, points and queries.',
  },
];

/**
 * Qdrant settings that only tune speed, memory or placement: accepted and ignored, since they cannot change what a
 * request answers.
 */
export const qdrantIgnoredSettings: readonly string[] = [
  'wait and ordering (writes are answered once durable)',
  'on_disk, on_disk_payload, datatype float16 (GoDB picks its own storage)',
  'shard_number, replication_factor, write_consistency_factor, sharding_method "auto"',
  'optimizers_config, wal_config, strict_mode_config, hnsw_config full_scan_threshold, max_indexing_threads, payload_m',
  'search params hnsw_ef, indexed_only, quantization, and exact: below 2,000 vectors and under a filter every allowed vector is compared; above, the HNSW graph’s candidates are rescored exactly from float32, as Qdrant answers without exact',
  'count exact (counts are always exact), timeout, consistency',
];
