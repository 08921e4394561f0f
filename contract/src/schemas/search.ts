import { Type, type SchemaOptions, type TSchema } from '@sinclair/typebox';
import { Enum, GeoPoint, inputLimits, Lat, Lon, Metadata, Name, RadiusKm, StringMap } from './common.js';
import { AnalysisLanguageParam } from './collection.js';
import { EmbeddingOptions } from './embedding.js';
import { publishedAs } from '../openapi-view.js';

/** Upper bound every `limit` is clamped to (documented in the reference). */
export const maxSearchLimit = 1000;
export const textQueryTypes = ['match', 'phrase', 'wildcard'] as const;
export const similarityMethods = ['cosine', 'euclidean', 'dot'] as const;
/** Hybrid search's fusions (see HybridSearchRequest.fusion). */
export const hybridFusions = ['dbsf_relative', 'dbsf', 'weighted', 'rrf'] as const;
/** Hybrid search's defaults (smart search's hybrid route uses them too). */
export const hybridDefaults = { alpha: 0.3, fusion: 'dbsf_relative' } as const;
export const smartModes = ['auto', 'text', 'semantic', 'geo'] as const;
export const filterOperators = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'nin',
  'contains',
  'exists',
  'geo_radius',
] as const;

// Larger limits are accepted and clamped to maxSearchLimit (as documented); the maximum only stops absurd numbers.
const limit = (fallback: number) =>
  Type.Integer({
    minimum: 1,
    maximum: inputLimits.count,
    default: fallback,
    description: `Results to return (default ${fallback}, at most ${maxSearchLimit}).`,
  });

/** What every keyword query's reference says about its length and cost. */
const keywordBound = `Up to ${inputLimits.keywordQuery.toLocaleString('en-US')} characters. A query of more than ${inputLimits.keywordTerms} distinct terms (words after stemming) is ranked by its ${inputLimits.keywordTerms} most selective, those the fewest documents hold; the others are ignored (a phrase keeps all its words).`;

/** A keyword query (text, fuzzy, faceted, multi-table): its description ends with what bounds its cost. */
const keywordQuery = ({ description, ...options }: SchemaOptions = {}) =>
  Type.String({
    maxLength: inputLimits.keywordQuery,
    description: description === undefined ? keywordBound : `${String(description)} ${keywordBound}`,
    ...options,
  });
/** A query that is embedded (vector, hybrid, smart). */
const semanticQuery = (options: SchemaOptions = {}) =>
  Type.String({ maxLength: inputLimits.semanticQuery, ...options });
/** A query vector: a JSON array of numbers, or that array as a string. */
const QueryVector = (description: string) =>
  publishedAs(Type.Unknown({ description, maxItems: inputLimits.vectorDimensions, maxLength: inputLimits.jsonText }), {
    description,
    anyOf: [
      { type: 'array', items: { type: 'number' }, minItems: 1, maxItems: inputLimits.vectorDimensions },
      { type: 'string', maxLength: inputLimits.jsonText, description: 'The array as JSON text.' },
    ],
  });

export const FilterClause = Type.Object(
  {
    field: Name({ description: 'A top-level field (tags, categories, lang_code, …) or metadata.<key>.' }),
    operator: Enum(filterOperators),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

/** Filter groups nest at most this deep (the top group is level 1). */
export const maxFilterDepth = 3;

/** A group of conditions and (up to maxFilterDepth levels of) nested groups. */
function filterGroup(depth: number): TSchema {
  const entry = depth > 1 ? Type.Union([FilterClause, filterGroup(depth - 1)]) : FilterClause;
  const list = (description: string) =>
    Type.Optional(Type.Array(entry, { maxItems: inputLimits.filters, description }));
  return Type.Object(
    {
      must: list('Every one must match.'),
      should: list('At least one must match (when any are given).'),
      must_not: list('None may match.'),
    },
    { additionalProperties: false, minProperties: 1 },
  );
}

export const FilterGroup = filterGroup(maxFilterDepth);

/**
 * Filters, one grammar for every search kind, count, scroll and delete: a list of {field, operator, value} (all
 * must match), a group {must, should, must_not} whose entries are conditions or nested groups, an object
 * {field: value} meaning equality, or any of these as a JSON string (the playground's textarea); a string that is
 * not JSON answers 'Invalid JSON in filters: ...'.
 */
export const Filters = Type.Union(
  [
    Type.Array(FilterClause, { maxItems: inputLimits.filters, description: 'Conditions that must all match.' }),
    FilterGroup,
    Type.Record(Name(), Type.Unknown(), {
      maxProperties: inputLimits.filters,
      description: 'Equality: {field: value} (a list value means in).',
    }),
    Type.String({ maxLength: inputLimits.jsonText, description: 'Any of the above as JSON text.' }),
  ],
  {
    description:
      'Conditions {field, operator, value} over metadata (nested keys with dots), tags, categories, dates, ids and location; a list (all must match), a group {must, should, must_not} with nested groups, {field: value} for equality, or JSON text.',
  },
);

const geoFields = {
  lat: Type.Optional(Lat),
  lon: Type.Optional(Lon),
  radius: Type.Optional(RadiusKm),
  field_name: Type.Optional(Name({ default: 'location', description: 'The location field to use.' })),
};

export const SearchChunk = Type.Object({
  id: Type.String(),
  content: Type.String(),
  type: Type.String(),
  score: Type.Number(),
  metadata: Type.Optional(StringMap),
});

export const SearchResult = Type.Object({
  document_id: Type.String(),
  title: Type.String(),
  chunks: Type.Array(SearchChunk),
  metadata: Metadata,
  score: Type.Number({
    description:
      'Higher is better; the scale depends on the search. Vector search with use-lite-512 or glove-100: the calibrated relevance, 0 to 1, whatever similarity_method (0 up to the cosine of typical unrelated texts, 0.7 where 90 % of questions keep their answer, 1 for the same text), and `threshold` applies to it; with other models or a collection’s own vectors: the similarity itself (cosine; euclidean 1 / (1 + distance); dot the raw product). With combine_location_score: 0.7 × that + 0.3 × proximity. Hybrid: the fused score.',
  }),
  similarity: Type.Optional(
    Type.Number({
      description:
        'Vector search, when `score` is a calibrated relevance: the similarity_method’s own number (cosine; euclidean 1 / (1 + distance); dot the raw product).',
    }),
  ),
  distance: Type.Optional(Type.Number({ description: 'Kilometres from the query point (geo searches).' })),
  table: Type.Optional(Type.String({ description: 'Multi-table search: the primary table of the result.' })),
  joined: Type.Optional(
    Type.Array(Type.Object({ table: Type.String(), document_id: Type.String(), title: Type.String() }), {
      description: 'Multi-table search: the partner documents of the join.',
    }),
  ),
  strategies: Type.Optional(
    Type.Record(Type.String(), Type.Number(), {
      description: 'Recommendations: the score each contributing strategy gave.',
    }),
  ),
  highlights: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'With `highlight: true` (text and hybrid search): up to three passages (about 160 characters each, within the first 10,000 characters of each chunk) of the shown chunks holding the query’s terms, best first, the matched words marked <em>…</em> and everything else HTML-escaped (&amp;, &lt;, &gt;, &quot;, &#39;); empty when only the title matched.',
    }),
  ),
});

const planFilters = ['none', 'index', 'scan', 'access', 'per-candidate'] as const;
const vectorPaths = ['empty', 'small-exact', 'allowed-exact', 'allowed-hnsw', 'hnsw'] as const;
const filterDescription =
  'How the filters (and the collection) were applied: none; index: the allowed documents came from the field indexes; scan: from reading every document of the collection (kept while the store is unchanged); access: they are the few documents you may read, from the access indexes (filters checked on the hits); per-candidate: each candidate (of the HNSW index, or of BM25’s best chunks) was read and checked.';
const vectorPathDescription =
  'empty (no vectors); small-exact: every vector of a small space; allowed-exact: every allowed vector, exactly; allowed-hnsw: the HNSW index with the allowed set as a predicate; hnsw: the HNSW index, widened until enough candidates passed';

/** How a search found its results (issue #39): asked with `explain: true` (vector, text, hybrid, faceted). */
/** RM3 feedback's defaults and bounds (docs/decisions/0071, 0074). */
export const feedbackLimits = {
  docs: { default: 5, min: 1, max: 50 },
  terms: { default: 10, min: 1, max: 100 },
  original_weight: { default: 0.5, min: 0, max: 1 },
} as const;

export const TextFeedback = Type.Object(
  {
    docs: Type.Integer({
      minimum: feedbackLimits.docs.min,
      maximum: feedbackLimits.docs.max,
      default: feedbackLimits.docs.default,
      description: `The best documents of the first ranking the expansion terms come from (default ${feedbackLimits.docs.default}, ${feedbackLimits.docs.min}–${feedbackLimits.docs.max}).`,
    }),
    terms: Type.Integer({
      minimum: feedbackLimits.terms.min,
      maximum: feedbackLimits.terms.max,
      default: feedbackLimits.terms.default,
      description: `Expansion terms (default ${feedbackLimits.terms.default}, ${feedbackLimits.terms.min}–${feedbackLimits.terms.max}).`,
    }),
    original_weight: Type.Number({
      minimum: feedbackLimits.original_weight.min,
      maximum: feedbackLimits.original_weight.max,
      default: feedbackLimits.original_weight.default,
      description: `The original query’s share of the expanded query, 0 to 1 (default ${feedbackLimits.original_weight.default}); the expansion terms share the rest.`,
    }),
  },
  {
    additionalProperties: false,
    description:
      'RM3 pseudo-relevance feedback (a match query): BM25 ranks the query, the best `docs` results (only documents you may read that pass the filters) give a relevance model of their terms (stop words and numbers left out), its best `terms` words are mixed with the query (`original_weight`), and BM25 ranks that weighted query again; scores are the second ranking’s (docs/decisions/0074). Over gRPC, give at least one field (an empty message is not sent).',
  },
);

export const FeedbackTerm = Type.Object({
  term: Type.String({ description: 'An index term (stemmed).' }),
  weight: Type.Number({ description: 'Its weight in the expanded query (the weights sum to 1).' }),
});

export const FeedbackExplain = Type.Object(
  {
    documents: Type.Array(Type.String(), { description: 'The feedback documents’ ids, best first.' }),
    terms: Type.Array(FeedbackTerm, {
      description:
        'The weighted query BM25 ranked the second time: the original terms and the expansion terms, best first.',
    }),
  },
  { description: 'With feedback: the documents RM3 read and the weighted query it ranked.' },
);

export const SearchPlan = Type.Object({
  filter: Enum(planFilters, { description: filterDescription }),
  allowed: Type.Optional(Type.Integer({ description: 'Documents the filters allow (index or scan).' })),
  estimated_at_least: Type.Optional(
    Type.Integer({
      description:
        'A broad filter on indexed fields: the field indexes counted at least this many allowed documents, so the allowed set was not made and each candidate was checked instead.',
    }),
  ),
  path: Enum([...vectorPaths, 'text-allowed', 'text', 'listed'] as const, {
    description: `How the results were found. Vector search: ${vectorPathDescription}. Text, hybrid (its text side) and faceted search: text-allowed: BM25 read the postings with the allowed set as a membership predicate (no other document scored); text: BM25’s best chunks, their documents checked; listed (faceted without a query): the allowed documents, or every readable one, newest first.`,
  }),
  exact: Type.Boolean({
    description:
      'Whether the results are exact: every candidate vector was compared (vector search), every allowed matching chunk ranked (text).',
  }),
  vector_filter: Type.Optional(
    Enum(planFilters, { description: 'Hybrid search: how the vector side applied the filters (as `filter`).' }),
  ),
  vector_path: Type.Optional(
    Enum(vectorPaths, {
      description: `Hybrid search: how the vector side compared vectors: ${vectorPathDescription}.`,
    }),
  ),
  facets: Type.Optional(
    Type.Record(Type.String(), Enum(['index', 'documents'] as const), {
      description:
        'Faceted search: how each facet was counted: index: from the field’s index (its postings among the matches); documents: from each matching document’s fields.',
    }),
  ),
  feedback: Type.Optional(FeedbackExplain),
});

export const SearchResponse = Type.Object({
  results: Type.Array(SearchResult),
  total_hits: Type.Integer({
    description: 'Documents found among the best candidates read (at least 20 × limit chunks; up to 10,000).',
  }),
  time_taken: Type.Number({ description: 'Milliseconds spent in the engine.' }),
  ranking: Type.Optional(
    Type.String({
      description:
        'Hybrid search: the fusion (dbsf_relative, dbsf, weighted or rrf), or engagement-logistic when use_ml_ranking re-ranked.',
    }),
  ),
  notes: Type.Optional(
    Type.Array(Type.String(), { description: 'How the query was interpreted (expansions, fallbacks).' }),
  ),
  plan: Type.Optional(SearchPlan),
  missing_shards: Type.Optional(
    Type.Array(Type.Integer(), {
      description:
        'Cluster mode, with `allow_partial: true` on a partitioned collection: the shards no live node answered for; their documents are missing from the results.',
    }),
  ),
});

export const SimpleSearchQuery = Type.Object(
  { query: keywordQuery({ description: 'The words to search for.' }), limit: limit(10) },
  { additionalProperties: false },
);

export const AutocompleteRequest = Type.Object(
  {
    prefix: Name({ minLength: 1 }),
    limit: limit(5),
    field: Name({
      default: 'content',
      description:
        'The field to complete: content (words of titles and content, the default), title (whole titles), tags or categories.',
    }),
    fuzziness: Type.Integer({ minimum: 0, maximum: 2, default: 0 }),
  },
  { additionalProperties: false },
);
export const AutocompleteResponse = Type.Object({
  suggestions: Type.Array(Type.Object({ text: Type.String(), score: Type.Number(), count: Type.Integer() })),
  time_taken: Type.Number(),
});

/** How a keyword query is analysed, and whether hits show their matched passages (text and hybrid search). */
const textAnalysisFields = {
  lang: Type.Optional(
    AnalysisLanguageParam(
      'The language the query is analysed (stemmed) in; default the collection’s `analysis.language`, else en. A document matches when its own lang_code’s analysis gives the same terms; accents never matter.',
    ),
  ),
  highlight: Type.Boolean({
    default: false,
    description:
      'Answer each result’s `highlights`: the passages of its chunks where the query’s terms (synonyms included) occur, the words marked <em>…</em>, the rest HTML-escaped.',
  }),
};

export const TextSearchRequest = Type.Object(
  {
    query: keywordQuery({ description: 'The words to search for (required and not blank).' }),
    limit: limit(10),
    query_type: Enum(textQueryTypes, { default: 'phrase' }),
    primary_table: Type.Optional(Name()),
    chunk_size: Type.Integer({ minimum: 16, maximum: 65536, default: 1024 }),
    chunk_overlap: Type.Integer({ minimum: 0, maximum: 65535, default: 200 }),
    ...geoFields,
    require_geo: Type.Boolean({ default: false }),
    filters: Type.Optional(Filters),
    ...textAnalysisFields,
    feedback: Type.Optional(TextFeedback),
    explain: Type.Boolean({
      default: false,
      description:
        'Answer `plan`: whether the filters were answered from field indexes (BM25 then skips every other document) or checked on each candidate; with feedback, its documents and weighted terms (`plan.feedback`).',
    }),
    allow_partial: Type.Boolean({
      default: false,
      description:
        'Cluster mode, a partitioned collection (created with `shards`): answer from the shards that have a live replica, naming the others in `missing_shards`, instead of 503 CLUSTER_UNAVAILABLE.',
    }),
  },
  { additionalProperties: false },
);

export const VectorSearchRequest = Type.Object(
  {
    query: Type.Optional(semanticQuery({ description: 'Text to embed; or give `vector`.' })),
    vector: Type.Optional(QueryVector('A JSON array of numbers (or that array as a string).')),
    vector_type: Name({ default: 'text' }),
    vector_name: Type.Optional(
      Name({
        description:
          'One of the collection’s vectors (GET /api/v1/collections/{name}); needs primary_table. Without it, a `vector` searches the collection’s default vector when that is one of your own, else the model’s.',
      }),
    ),
    limit: limit(10),
    similarity_method: Enum(similarityMethods, {
      default: 'cosine',
      description:
        'Cosine, euclidean (reported as 1 / (1 + distance)) or dot; answered as `similarity` beside a calibrated `score`. Model vectors are unit length, so the three rank alike and share one calibrated score.',
    }),
    // Wide bounds only: the service answers the specification's THRESHOLD_OUT_OF_RANGE outside [0, 1].
    threshold: Type.Number({
      minimum: -inputLimits.magnitude,
      maximum: inputLimits.magnitude,
      default: 0.7,
      description:
        'Results whose `score` is below are dropped, 0 to 1 (0 keeps everything). use-lite-512 and glove-100 score a calibrated relevance, so 0.7 keeps typical matches (a raw use-lite-512 cosine of 0.33) and 1 only the same text (a cosine within 1e-6 of 1, float32 rounding, counts as 1); other models and your own vectors compare the raw similarity.',
    }),
    primary_table: Type.Optional(
      Name({
        description:
          'The collection to search. One that does not exist (neither created nor named by a document) answers 404 NOT_FOUND naming it, whether the query is text or a vector; documents, where documents without primary_table go, finds nothing for a new tenant.',
      }),
    ),
    embedding_options: Type.Optional(EmbeddingOptions),
    center: Type.Optional(GeoPoint),
    ...geoFields,
    combine_location_score: Type.Boolean({ default: false }),
    filters: Type.Optional(Filters),
    explain: Type.Boolean({
      default: false,
      description:
        'Answer `plan`: whether the filters were answered from field indexes or by reading the documents, how many documents they allow, and how vectors were compared.',
    }),
    allow_partial: Type.Boolean({
      default: false,
      description:
        'Cluster mode, a partitioned collection (created with `shards`): answer from the shards that have a live replica, naming the others in `missing_shards`, instead of 503 CLUSTER_UNAVAILABLE.',
    }),
  },
  { additionalProperties: false },
);

export const HybridSearchRequest = Type.Object(
  {
    query: Type.Optional(semanticQuery()),
    vector: Type.Optional(QueryVector('A JSON array of numbers (or that array as a string).')),
    vector_name: Type.Optional(
      Name({
        description: 'One of the collection’s vectors for the vector side (needs primary_table); as in vector search.',
      }),
    ),
    alpha: Type.Number({
      minimum: 0,
      maximum: 1,
      default: hybridDefaults.alpha,
      description: 'Weight of the vector side, 0 to 1 (0.3 is best on the Cranfield benchmark: see Performance).',
    }),
    limit: limit(10),
    fusion: Enum(hybridFusions, {
      default: hybridDefaults.fusion,
      description:
        'How the two sides combine, each weighted by alpha: dbsf_relative (the default: each side’s scores normalised by their mean ± 3 standard deviations, the deviation taken as at least a sixth of the mean when the side found three documents or more, so scores a few per cent below the best stay near the top; a side that found one document scores it 1), dbsf (the same without that floor, as Qdrant’s: when a side’s scores are close, small gaps become large), weighted (min-max normalised: the best 1, the worst 0) or rrf (reciprocal rank fusion, 1 / (60 + rank)). A document one side did not find gets 0 from it.',
    }),
    use_ml_ranking: Type.Boolean({ default: false }),
    model_name: Type.Optional(Name()),
    primary_table: Type.Optional(
      Name({
        description:
          'The collection to search; one that does not exist answers 404 NOT_FOUND, as in vector search (documents, the default, finds nothing for a new tenant).',
      }),
    ),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    filters: Type.Optional(Filters),
    ...textAnalysisFields,
    explain: Type.Boolean({
      default: false,
      description:
        'Answer `plan`: whether the filters were answered from field indexes (BM25 then skips every other document) or checked on each candidate.',
    }),
  },
  { additionalProperties: false },
);

export const GeoSearchRequest = Type.Object(
  {
    lat: Lat,
    lon: Lon,
    radius: RadiusKm,
    limit: limit(10),
    primary_table: Type.Optional(Name()),
    field_name: Name({ default: 'location' }),
  },
  { additionalProperties: false },
);

export const FacetedSearchRequest = Type.Object(
  {
    query: Type.Optional(keywordQuery()),
    facets: Type.Array(Name(), {
      maxItems: inputLimits.facets,
      description: `Fields to count: tags, categories or metadata.<key>; at most ${inputLimits.facets}.`,
    }),
    limit: limit(10),
    primary_table: Type.Optional(Name()),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    filters: Type.Optional(Filters),
    explain: Type.Boolean({
      default: false,
      description:
        'Answer `plan`: how the filters were applied and, per facet, whether it was counted from the field’s index.',
    }),
  },
  { additionalProperties: false },
);
export const FacetedSearchResponse = Type.Composite([
  SearchResponse,
  Type.Object({
    facets: Type.Record(Type.String(), Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() }))),
  }),
]);

export const FuzzySearchRequest = Type.Object(
  {
    query: Type.String({
      maxLength: inputLimits.keywordQuery,
      description: `Words to match within \`fuzziness\` edits (required and not blank). Up to ${inputLimits.keywordQuery.toLocaleString('en-US')} characters; only the first ${inputLimits.fuzzyWords} distinct words are expanded (a note says how many others were ignored), each to at most 50 words, then ranked as a text query.`,
    }),
    fuzziness: Type.Integer({ minimum: 0, maximum: 2, default: 1 }),
    limit: limit(10),
    prefix_length: Type.Integer({ minimum: 0, maximum: inputLimits.keywordQuery, default: 0 }),
    primary_table: Type.Optional(Name()),
    ...geoFields,
  },
  { additionalProperties: false },
);

export const SmartSearchRequest = Type.Object(
  {
    query: Type.Optional(
      semanticQuery({
        description:
          'Required (the playground asks for it). Only a geo search may leave it out: mode geo, or lat and lon given and the router picks geo.',
      }),
    ),
    limit: limit(10),
    mode: Enum(smartModes, { default: 'auto' }),
    auto_route: Type.Boolean({ default: true }),
    primary_table: Type.Optional(Name()),
    ...geoFields,
  },
  { additionalProperties: false },
);
export const SmartSearchResponse = Type.Composite([
  SearchResponse,
  Type.Object({ route: Type.String(), reason: Type.String() }),
]);

export const MultiTableSearchRequest = Type.Object(
  {
    table_names: Type.Array(Name(), {
      minItems: 1,
      maxItems: inputLimits.tables,
      description: `At most ${inputLimits.tables} tables.`,
    }),
    join_conditions: Type.Optional(
      Type.Unknown({
        description: 'JSON: see the join grammar in the reference.',
        // A list of join objects, or its JSON text; each bound applies only to the shape it names.
        maxItems: inputLimits.joins,
        items: { type: 'object' },
        maxLength: inputLimits.jsonText,
      }),
    ),
    query: Type.Optional(keywordQuery()),
    limit: limit(10),
  },
  { additionalProperties: false },
);
