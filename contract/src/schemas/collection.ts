import { Type, type Static } from '@sinclair/typebox';
import { Enum, inputLimits, Name } from './common.js';

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
});
export type VectorSettings = Static<typeof VectorSettings>;

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
  },
  { additionalProperties: false },
);
export type UpdateCollectionRequest = Static<typeof UpdateCollectionRequest>;

export const Collection = Type.Object({
  name: Type.String(),
  description: Type.String(),
  vectors: Type.Record(Type.String(), VectorSettings),
  default_vector: Type.Optional(Type.String()),
  implicit: Type.Boolean({ description: 'Created by the first document that named it, not by POST /collections.' }),
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

export const CollectionInfo = Type.Composite([
  Collection,
  Type.Object({
    documents: Type.Integer({ description: 'Live documents (current versions) you may read.' }),
    chunks: Type.Integer({ description: 'Their chunks.' }),
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
