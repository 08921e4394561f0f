import { Type } from '@sinclair/typebox';
import { Enum, GeoPoint, Lat, Lon, RadiusKm, StringMap } from './common.js';
import { EmbeddingOptions } from './embedding.js';

/** Upper bound every `limit` is clamped to (documented in the reference). */
export const maxSearchLimit = 1000;
export const textQueryTypes = ['match', 'phrase', 'wildcard'] as const;
export const similarityMethods = ['cosine', 'euclidean', 'dot'] as const;
export const smartModes = ['auto', 'text', 'semantic', 'geo'] as const;
export const filterOperators = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'contains', 'exists'] as const;

const limit = (fallback: number) =>
  Type.Integer({
    minimum: 1,
    default: fallback,
    description: `Results to return (default ${fallback}, at most ${maxSearchLimit}).`,
  });

export const FilterClause = Type.Object(
  {
    field: Type.String({ description: 'A top-level field (tags, categories, lang_code, …) or metadata.<key>.' }),
    operator: Enum(filterOperators),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

/**
 * Filters: a list of {field, operator, value}, an object {field: value} meaning equality, or the same as a JSON
 * string (the playground's textarea); a string that is not JSON answers 'Invalid JSON in filters: ...'.
 */
export const Filters = Type.Unknown({
  description: 'List of {field, operator, value}; or {field: value} for equality; or either as a JSON string.',
});

const geoFields = {
  lat: Type.Optional(Lat),
  lon: Type.Optional(Lon),
  radius: Type.Optional(RadiusKm),
  field_name: Type.Optional(Type.String({ default: 'location', description: 'The location field to use.' })),
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
  metadata: StringMap,
  score: Type.Number(),
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
});

export const SearchResponse = Type.Object({
  results: Type.Array(SearchResult),
  total_hits: Type.Integer({
    description: 'Documents found among the best candidates read (at least 20 × limit chunks; up to 10,000).',
  }),
  time_taken: Type.Number({ description: 'Milliseconds spent in the engine.' }),
  ranking: Type.Optional(Type.String({ description: 'Hybrid search: weighted, rrf or engagement-logistic.' })),
  notes: Type.Optional(
    Type.Array(Type.String(), { description: 'How the query was interpreted (expansions, fallbacks).' }),
  ),
});

export const SimpleSearchQuery = Type.Object(
  { query: Type.Optional(Type.String()), limit: limit(10) },
  { additionalProperties: false },
);

export const AutocompleteRequest = Type.Object(
  {
    prefix: Type.String({ minLength: 1 }),
    limit: limit(5),
    field: Type.String({ default: 'title', description: 'title, content, tags or categories.' }),
    fuzziness: Type.Integer({ minimum: 0, maximum: 2, default: 0 }),
  },
  { additionalProperties: false },
);
export const AutocompleteResponse = Type.Object({
  suggestions: Type.Array(Type.Object({ text: Type.String(), score: Type.Number(), count: Type.Integer() })),
  time_taken: Type.Number(),
});

export const TextSearchRequest = Type.Object(
  {
    query: Type.Optional(Type.String()),
    limit: limit(10),
    query_type: Enum(textQueryTypes, { default: 'phrase' }),
    primary_table: Type.Optional(Type.String()),
    chunk_size: Type.Integer({ minimum: 16, default: 1024 }),
    chunk_overlap: Type.Integer({ minimum: 0, default: 200 }),
    ...geoFields,
    require_geo: Type.Boolean({ default: false }),
    filters: Type.Optional(Filters),
  },
  { additionalProperties: false },
);

export const VectorSearchRequest = Type.Object(
  {
    query: Type.Optional(Type.String({ description: 'Text to embed; or give `vector`.' })),
    vector: Type.Optional(Type.Unknown({ description: 'A JSON array of numbers (or that array as a string).' })),
    vector_type: Type.String({ default: 'text' }),
    limit: limit(10),
    similarity_method: Enum(similarityMethods, { default: 'cosine' }),
    threshold: Type.Number({ default: 0.7 }),
    primary_table: Type.Optional(Type.String()),
    embedding_options: Type.Optional(EmbeddingOptions),
    center: Type.Optional(GeoPoint),
    ...geoFields,
    combine_location_score: Type.Boolean({ default: false }),
    filters: Type.Optional(Filters),
  },
  { additionalProperties: false },
);

export const HybridSearchRequest = Type.Object(
  {
    query: Type.Optional(Type.String()),
    vector: Type.Optional(Type.Unknown()),
    alpha: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.3,
      description: 'Weight of the vector side, 0 to 1 (0.3 is best on the Cranfield benchmark: see Performance).',
    }),
    limit: limit(10),
    fusion: Enum(['weighted', 'rrf'] as const, {
      default: 'weighted',
      description: 'weighted: alpha-weighted min-max scores; rrf: reciprocal rank fusion.',
    }),
    use_ml_ranking: Type.Boolean({ default: false }),
    model_name: Type.Optional(Type.String()),
    primary_table: Type.Optional(Type.String()),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
    filters: Type.Optional(Filters),
  },
  { additionalProperties: false },
);

export const GeoSearchRequest = Type.Object(
  {
    lat: Lat,
    lon: Lon,
    radius: RadiusKm,
    limit: limit(10),
    primary_table: Type.Optional(Type.String()),
    field_name: Type.String({ default: 'location' }),
  },
  { additionalProperties: false },
);

export const FacetedSearchRequest = Type.Object(
  {
    query: Type.Optional(Type.String()),
    facets: Type.Array(Type.String(), { description: 'tags, categories or metadata.<key>.' }),
    limit: limit(10),
    primary_table: Type.Optional(Type.String()),
    lat: Type.Optional(Lat),
    lon: Type.Optional(Lon),
    radius: Type.Optional(RadiusKm),
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
    query: Type.Optional(Type.String()),
    fuzziness: Type.Integer({ minimum: 0, maximum: 2, default: 1 }),
    limit: limit(10),
    prefix_length: Type.Integer({ minimum: 0, default: 0 }),
    primary_table: Type.Optional(Type.String()),
    ...geoFields,
  },
  { additionalProperties: false },
);

export const SmartSearchRequest = Type.Object(
  {
    query: Type.Optional(Type.String()),
    limit: limit(10),
    mode: Enum(smartModes, { default: 'auto' }),
    auto_route: Type.Boolean({ default: true }),
    primary_table: Type.Optional(Type.String()),
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
    table_names: Type.Array(Type.String(), { minItems: 1 }),
    join_conditions: Type.Optional(Type.Unknown({ description: 'JSON: see the join grammar in the reference.' })),
    query: Type.Optional(Type.String()),
    limit: limit(10),
  },
  { additionalProperties: false },
);
