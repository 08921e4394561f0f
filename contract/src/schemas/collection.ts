import { Type, type Static } from '@sinclair/typebox';
import { fixedAtCreation } from '../fixed-at-creation.js';
import { Enum, inputLimits, Name } from './common.js';
import { SparseVectorDeclarations } from './sparse.js';

export const vectorDistances = ['cosine', 'euclidean', 'dot'] as const;
export type VectorDistance = (typeof vectorDistances)[number];
export const vectorStorages = ['f32', 'f16', 'i8', 'b1'] as const;
export type VectorStorage = (typeof vectorStorages)[number];

/** Collections and vector names: letters, digits, `_`, `-` and `.`, starting with a letter, digit or `_`. */
export const collectionNamePattern = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$';
const NamePattern = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, pattern: collectionNamePattern, description });

export const HnswSettings = Type.Object(
  {
    m: Type.Integer({ minimum: 4, maximum: 64, default: 16, description: 'Links per node (connectivity).' }),
    ef_construction: Type.Integer({
      minimum: 16,
      maximum: 1024,
      default: 200,
      description: 'Candidates considered while inserting (expansion_add).',
    }),
    ef_search: Type.Integer({
      minimum: 10,
      maximum: 4096,
      default: 100,
      description: 'Candidates considered while searching; changeable without a rebuild.',
    }),
  },
  { additionalProperties: false },
);
export type HnswSettings = Static<typeof HnswSettings>;

/** Vectors a multi-vector holds per document at most (docs/decisions/0059). */
export const maxMultiVectors = 1024;

/** A named vector declared as multi: each document gives a list of vectors for it, scored by MaxSim. */
export const MultiVectorSettings = Type.Object(
  {
    max_vectors: Type.Integer({
      minimum: 1,
      maximum: maxMultiVectors,
      description: `Vectors a document may give for this name at most (at most ${maxMultiVectors}).`,
    }),
  },
  {
    additionalProperties: false,
    description:
      'Makes this a multi-vector (late interaction, ColBERT): each document gives a list of vectors (`multi_vectors: {<name>: [[...], ...]}`), each vector in the HNSW index, and a document scores by MaxSim: Σ over the query’s vectors of the greatest similarity to any of its own.',
  },
);
export type MultiVectorSettings = Static<typeof MultiVectorSettings>;

export const VectorSettingsInput = Type.Object(
  {
    dimensions: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: inputLimits.vectorDimensions,
        description: 'Numbers per vector. Optional when `model` is given (the model decides).',
      }),
    ),
    distance: Type.Optional(Enum(vectorDistances, { default: 'cosine' })),
    storage: Type.Optional(
      Enum(vectorStorages, {
        default: 'f16',
        description:
          'How the HNSW index holds vectors: f32, f16 (half the memory), i8 (a quarter) or b1 (one bit per number). Scores are always exact: candidates are rescored from float32.',
      }),
    ),
    hnsw: Type.Optional(Type.Partial(HnswSettings)),
    model: Type.Optional(
      Name({
        description:
          'An embedding model (GET /api/v1/embeddings/models) that fills this vector from each chunk’s text. Without it, you give the vector with each document. With it, a document may still give its own vector under this name (`vectors: {<name>: [...]}`, of the model’s dimensions): the model is then skipped for that document.',
      }),
    ),
    multi: Type.Optional(MultiVectorSettings),
  },
  { additionalProperties: false },
);
export type VectorSettingsInput = Static<typeof VectorSettingsInput>;

export const VectorSettings = Type.Object({
  dimensions: Type.Integer(),
  distance: Enum(vectorDistances),
  storage: Enum(vectorStorages),
  hnsw: HnswSettings,
  model: Type.Optional(Type.String()),
  multi: Type.Optional(MultiVectorSettings),
});
export type VectorSettings = Static<typeof VectorSettings>;

/** The kinds of field index a collection can declare (issue #39). */
export const fieldIndexKinds = ['keyword', 'integer', 'float', 'bool', 'datetime', 'geo'] as const;
export type FieldIndexKind = (typeof fieldIndexKinds)[number];

/** Declared field indexes: {<field path>: <kind>}. */
export const FieldIndexDeclarations = Type.Record(
  Type.String({ minLength: 1, maxLength: 200 }),
  Enum(fieldIndexKinds, {
    description:
      "keyword: strings (equality, in, exists); integer and float: numbers (equality, ranges); bool: true or false; datetime: ISO 8601 strings (equality, ranges, compared as text); geo: the document's `location` (geo_radius), answered by its R*Tree.",
  }),
  {
    maxProperties: 32,
    description:
      'Field indexes: {<field>: <kind>}, e.g. {"metadata.tag": "keyword", "metadata.price": "float", "created_at": "integer"}. Fields: `metadata.<key>` (nested keys with dots), `created_at`, `tags`, `categories`, `lang_code`, `external_id`, `source_url`, `file_type`, `content_type`, `label`, `title`, `id`, `parent_doc_id` (keyword), and `location` (geo). A filtered search whose conditions are all on ready indexes learns the documents it allows from them instead of reading every document. Lists index each element; a missing or null field is simply not indexed. A document whose value is of another type than declared (a string in a float index) is refused with 400 naming the field. Existing documents are indexed in the background (state and progress in GET /collections/{name}).',
  },
);
export type FieldIndexDeclarations = Static<typeof FieldIndexDeclarations>;

/**
 * The languages text is analysed in (issue #42): a document's `lang_code` picks its stemmer, a text search's `lang`
 * the query's. English is the original Porter stemmer; the others are Snowball stemmers.
 */
export const analysisLanguages = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'pt',
  'nl',
  'sv',
  'da',
  'no',
  'fi',
  'ru',
  'hu',
  'ro',
  'tr',
] as const;
export type AnalysisLanguage = (typeof analysisLanguages)[number];

/** The named stop-word lists a collection can use (`analysis.stop_words`). */
export const stopWordLists = [
  'english',
  'german',
  'french',
  'spanish',
  'italian',
  'portuguese',
  'dutch',
  'swedish',
  'danish',
  'norwegian',
  'finnish',
  'russian',
  'hungarian',
  'romanian',
  'turkish',
] as const;
export type StopWordList = (typeof stopWordLists)[number];

/** Bounds of a collection's analysis settings. */
export const analysisLimits = { stopWords: 2000, synonymGroups: 1000, synonymsPerGroup: 32, word: 100 } as const;

export const AnalysisLanguageParam = (description: string) =>
  Enum(analysisLanguages, {
    description: `${description} One of ${analysisLanguages.join(', ')} (English: Porter; the others: Snowball).`,
  });

export const AnalysisSettings = Type.Object(
  {
    language: Type.Optional(
      AnalysisLanguageParam(
        'The language a text search of this collection is analysed in when it gives no `lang` (default en). Documents are analysed by their own lang_code.',
      ),
    ),
    stop_words: Type.Optional(
      Type.Union(
        [
          Enum(stopWordLists, { description: 'A named list.' }),
          Type.Array(Type.String({ minLength: 1, maxLength: analysisLimits.word }), {
            maxItems: analysisLimits.stopWords,
            description: 'Your own words.',
          }),
        ],
        {
          description: `Words a text search of this collection leaves out of a match query (not out of a phrase, and not when every word is one): a named list (${stopWordLists.join(', ')}) or your own words. Compared without case or accents. Changing it needs no rebuild: documents keep every word.`,
        },
      ),
    ),
    synonyms: Type.Optional(
      Type.Array(
        Type.Array(Type.String({ minLength: 1, maxLength: analysisLimits.word }), {
          minItems: 2,
          maxItems: analysisLimits.synonymsPerGroup,
        }),
        {
          maxItems: analysisLimits.synonymGroups,
          description:
            'Groups of words that mean the same, e.g. [["car", "automobile"], ["tv", "television"]]: a query word of a group also matches the others (expanded at query time, in a match query and in a wildcard query’s plain words; the answer’s notes say what was added). Changing them needs no rebuild.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type AnalysisSettings = Static<typeof AnalysisSettings>;

export const CreateCollectionRequest = Type.Object(
  {
    name: NamePattern('The collection’s name: documents name it in `primary_table`.'),
    description: Type.Optional(Type.String({ maxLength: inputLimits.line })),
    vectors: Type.Optional(
      Type.Record(Type.String({ pattern: collectionNamePattern, maxLength: 64 }), VectorSettingsInput, {
        maxProperties: 16,
        // A name that does not match the pattern is refused, not passed through unchecked.
        additionalProperties: false,
        description: 'Named vectors: {<name>: {dimensions, distance, storage, hnsw, model}}.',
      }),
    ),
    default_vector: Type.Optional(
      NamePattern('The vector used when a request gives `vector` without `vector_name` (default: the first).'),
    ),
    indexes: Type.Optional(FieldIndexDeclarations),
    analysis: Type.Optional(AnalysisSettings),
    sparse_vectors: Type.Optional(SparseVectorDeclarations(collectionNamePattern)),
    shards: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64,
        description:
          'Cluster mode: how many shards the collection’s documents are spread over (by a hash of their id), each held by `replication_factor` nodes (issue #41). 1 (the default) keeps every document on every node. Fixed at creation: changing it (resharding) is a later step. Ignored by an embedded node, which holds everything.',
      }),
    ),
    replication_factor: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 64,
        description:
          'Cluster mode, with `shards` above 1: how many nodes hold each shard (default 3, or every node when fewer); at most the node count.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCollectionRequest = Static<typeof CreateCollectionRequest>;

export const UpdateCollectionRequest = Type.Object(
  {
    description: Type.Optional(Type.String({ maxLength: inputLimits.line })),
    default_vector: Type.Optional(NamePattern('Another of the collection’s vectors.')),
    vectors: Type.Optional(
      Type.Record(
        Type.String({ pattern: collectionNamePattern, maxLength: 64 }),
        Type.Object(
          { hnsw: Type.Object({ ef_search: HnswSettings.properties.ef_search }, { additionalProperties: false }) },
          { additionalProperties: false },
        ),
        {
          maxProperties: 16,
          additionalProperties: false,
          description: 'What can change without a rebuild: {<name>: {hnsw: {ef_search}}}.',
        },
      ),
    ),
    indexes: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Enum(fieldIndexKinds), {
        maxProperties: 32,
        description:
          'The field indexes the collection has from now on, replacing the declared ones: a new field is indexed over the existing documents in the background, a field left out is dropped, `{}` drops them all.',
      }),
    ),
    analysis: Type.Optional(AnalysisSettings),
  },
  {
    additionalProperties: false,
    [fixedAtCreation]: {
      shards:
        'is fixed at creation: changing a collection’s shard count (resharding) is a later step; create a collection with the shards you want and import the documents into it',
      replication_factor:
        'is fixed at creation: changing a collection’s replication factor is a later step; create a collection with the replication factor you want and import the documents into it',
      sparse_vectors:
        'is fixed at creation: a collection’s sparse vectors cannot change; create a collection that declares the ones you want and import the documents into it',
    },
  },
);
export type UpdateCollectionRequest = Static<typeof UpdateCollectionRequest>;

export const Collection = Type.Object({
  name: Type.String(),
  description: Type.String(),
  vectors: Type.Record(Type.String(), VectorSettings),
  default_vector: Type.Optional(Type.String()),
  implicit: Type.Boolean({ description: 'Created by the first document that named it, not by POST /collections.' }),
  indexes: Type.Optional(
    Type.Record(Type.String(), Enum(fieldIndexKinds), {
      description: 'The declared field indexes (when there are any).',
    }),
  ),
  analysis: Type.Optional(AnalysisSettings),
  sparse_vectors: Type.Optional(
    Type.Record(Type.String(), Type.Object({}), { description: 'The declared sparse vectors (when there are any).' }),
  ),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});
export type Collection = Static<typeof Collection>;

export const VectorStats = Type.Object({
  vectors: Type.Integer({ description: 'Live vectors of this name.' }),
  indexed: Type.Integer({
    description:
      'Of the vectors in memory, those in the HNSW graph. Writes and imports are answered once stored; the graph takes their vectors in the background, and searches compare the rest exactly meanwhile, so results are complete either way.',
  }),
  index: Enum(['not loaded', 'loading', 'ready'] as const, { description: 'The HNSW index in memory.' }),
  loaded_from: Type.Optional(
    Enum(['file', 'store'] as const, {
      description:
        'How a ready index came to memory: loaded from its index file as it was (after a start or a restore), or built from the stored vectors.',
    }),
  ),
  bytes_per_vector: Type.Number({
    description:
      'Index memory per vector for this storage kind: its layout in the index plus the allocator’s overhead per node (measured by bench:memory).',
  }),
  memory_bytes: Type.Integer({ description: 'The index in memory, with its float32 copies for rescoring.' }),
  index_bytes: Type.Integer({
    description:
      'Of memory_bytes, the HNSW index (estimated from its size). 0 when not loaded, or evicted under VECTOR_INDEX_MEMORY_MB (loaded from its file on next use).',
  }),
  copies_bytes: Type.Integer({
    description: 'Of memory_bytes, the float32 copies (0 when VECTOR_CACHE_MB left no room for them).',
  }),
  disk_bytes: Type.Integer({ description: 'The index file and the float32 vectors in the store.' }),
});

export const FieldIndexStats = Type.Object({
  kind: Enum(fieldIndexKinds),
  state: Enum(['building', 'ready', 'failed'] as const, {
    description:
      'building: existing documents are being indexed (filters on it read the documents meanwhile); ready: filters use it; failed: an existing document holds a value of another type (see `error`): filters read the documents; fix or remove the document, then declare the index again.',
  }),
  progress: Type.Number({ description: 'Of the documents to index when it was declared, the part done (0 to 1).' }),
  documents: Type.Integer({ description: 'Live documents that have a value for the field.' }),
  postings: Type.Integer({ description: 'Entries of the index (one per value of each document; lists give several).' }),
  error: Type.Optional(Type.String({ description: 'Why the build failed.' })),
});

export const CollectionInfo = Type.Composite([
  Collection,
  Type.Object({
    documents: Type.Integer({ description: 'Live documents (current versions) you may read.' }),
    chunks: Type.Integer({ description: 'Their chunks.' }),
    field_indexes: Type.Optional(
      Type.Record(Type.String(), FieldIndexStats, {
        description:
          'Tenant admins: each declared field index, its state (building with its progress, ready, failed) and size.',
      }),
    ),
    vector_stats: Type.Optional(
      Type.Record(Type.String(), VectorStats, {
        description:
          'Tenant admins: each vector’s index. A model vector’s index is the tenant’s index of that model, shared by the collections that use it.',
      }),
    ),
  }),
]);

export const CollectionParams = Type.Object({
  name: Name({ minLength: 1, description: 'The collection (URL-encoded).' }),
});
