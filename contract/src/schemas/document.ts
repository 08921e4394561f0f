import { Type, type Static } from '@sinclair/typebox';
import { DateInput, Enum, Id, inputLimits, LatLon, Line, Metadata, Name } from './common.js';
import { EmbeddingOptions } from './embedding.js';
import { collectionNamePattern, maxMultiVectors } from './collection.js';
import { DocumentSparseVectors } from './sparse.js';

export const visibilities = ['public', 'private', 'shared'] as const;
export type Visibility = (typeof visibilities)[number];
export const Visibility = Enum(visibilities, { default: 'public' });

export const aclRoles = ['owner', 'edit', 'view'] as const;
export const AclEntry = Type.Object(
  {
    user_id: Type.String({ minLength: 1, maxLength: inputLimits.id }),
    role: Enum(aclRoles),
    expires_at: Type.Optional(DateInput),
  },
  { additionalProperties: false },
);
export type AclEntry = Static<typeof AclEntry>;

/** An entry of an ACL change: `remove` needs only the user id; `add` and `update` need the role. */
export const AclChange = Type.Object(
  {
    user_id: Type.String({ minLength: 1, maxLength: inputLimits.id }),
    role: Type.Optional(Enum(aclRoles, { description: 'Required to add or update; ignored by remove.' })),
    expires_at: Type.Optional(DateInput),
  },
  { additionalProperties: false },
);
export type AclChange = Static<typeof AclChange>;

const count = (description: string) => Type.Number({ minimum: 0, maximum: inputLimits.count, description });
const score = (description: string) =>
  Type.Number({ minimum: -inputLimits.magnitude, maximum: inputLimits.magnitude, description });
export const Engagement = Type.Object(
  {
    clicks: Type.Optional(count('Added to the stored count.')),
    likes: Type.Optional(count('Added to the stored count.')),
    dislikes: Type.Optional(count('Added to the stored count.')),
    dwell_time: Type.Optional(count('Seconds; added to the total.')),
    views: Type.Optional(count('Added to the stored count.')),
    engagements: Type.Optional(count('Added to the stored count.')),
    completion: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Set: fraction completed.' })),
    quality_score: Type.Optional(score('Set.')),
    relevance_score: Type.Optional(score('Set.')),
    unique_users: Type.Optional(count('Set.')),
    last_engaged: Type.Optional(DateInput),
    shares: Type.Optional(count('Added to the stored count.')),
    bookmarks: Type.Optional(count('Added to the stored count.')),
    comments: Type.Optional(count('Added to the stored count.')),
    sentiment_score: Type.Optional(Type.Number({ minimum: -1, maximum: 1, description: 'Set.' })),
    // No shape keywords here: documents answer this schema too, and the response serializer would read
    // maxProperties as "an object without properties". The body limit bounds it.
    feedback: Type.Optional(Type.Unknown({ description: 'Free-form JSON feedback, stored with the event.' })),
  },
  {
    additionalProperties: false,
    description:
      'Engagement signals (clicks, likes, views …): counts are added to the stored ones, scores set. They rank autocomplete, feed the learned re-ranking of hybrid search, and filters read them as engagement.<name>.',
  },
);
export type Engagement = Static<typeof Engagement>;

export const GraphEdge = Type.Object(
  {
    target_id: Id,
    type: Name({ default: 'links_to' }),
    weight: Type.Number({ minimum: -inputLimits.magnitude, maximum: inputLimits.magnitude, default: 1 }),
  },
  { additionalProperties: false },
);

/** The largest finite float32: vectors are stored as float32, and a larger number would become Infinity. */
const float32Max = 3.4028234663852886e38;

/** A vector given with a document: finite numbers (JSON has no NaN or Infinity), at most 8,192. */
export const DocumentVector = (description: string) =>
  Type.Array(Type.Number({ minimum: -float32Max, maximum: float32Max }), {
    minItems: 1,
    maxItems: inputLimits.vectorDimensions,
    description,
  });

/** A document as clients send it (REST body, snake case). */
export const DocumentInput = Type.Object(
  {
    id: Type.Optional(Id),
    content: Type.Optional(Type.String({ description: 'The text; bounded by the body limit (BODY_LIMIT_BYTES).' })),
    text_content: Type.Optional(Type.String({ description: 'Alias of content (the playground upload form).' })),
    title: Type.Optional(Line()),
    metadata: Type.Optional(Metadata),
    location: Type.Optional(LatLon),
    file_content: Type.Optional(
      Type.String({ description: 'Base64 file bytes, kept by the storage provider; bounded by the body limit.' }),
    ),
    file_url: Type.Optional(Line()),
    storage_type: Type.Optional(Name()),
    file_type: Type.Optional(Name()),
    content_type: Type.Optional(Name()),
    created_at: Type.Optional(DateInput),
    updated_at: Type.Optional(DateInput),
    indexed_at: Type.Optional(DateInput),
    primary_table: Type.Optional(Name({ default: 'documents' })),
    tags: Type.Optional(Type.Array(Name(), { maxItems: inputLimits.names })),
    categories: Type.Optional(Type.Array(Name(), { maxItems: inputLimits.names })),
    visibility: Type.Optional(Visibility),
    parent_doc_id: Type.Optional(Id),
    child_doc_ids: Type.Optional(Type.Array(Id, { maxItems: inputLimits.edges })),
    external_id: Type.Optional(Line()),
    source_url: Type.Optional(Line()),
    lang_code: Type.Optional(Name({ default: 'en' })),
    tenant_id: Type.Optional(Name({ description: 'Ignored if present: the tenant comes from the token.' })),
    access_list: Type.Optional(
      Type.Array(Type.String({ maxLength: inputLimits.id }), {
        maxItems: inputLimits.aclEntries,
        description: 'User or group ids (shared documents).',
      }),
    ),
    acl: Type.Optional(
      Type.Array(AclEntry, {
        maxItems: inputLimits.aclEntries,
        description:
          'Who else may use the document: user ids with owner, edit or view, optionally until expires_at. The writer is always its owner.',
      }),
    ),
    vector_meta: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        maxProperties: inputLimits.metadataKeys,
        propertyNames: { maxLength: inputLimits.name },
        description:
          'Free-form notes about the document’s vectors (source, version …): stored and returned, not searched.',
      }),
    ),
    engagement: Type.Optional(Engagement),
    embedding_options: Type.Optional(EmbeddingOptions),
    chunk_size: Type.Optional(Type.Integer({ minimum: 16, maximum: 65536, default: 1024 })),
    chunk_overlap: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, default: 200 })),
    edges: Type.Optional(
      Type.Array(GraphEdge, {
        maxItems: inputLimits.edges,
        description:
          'Links from this document to others for graph search: target_id, type (default links_to) and weight (default 1).',
      }),
    ),
    vector: Type.Optional(
      DocumentVector(
        'Your own vector for the whole document: the collection’s default vector (in a new collection, a vector named `default` whose size this first vector fixes).',
      ),
    ),
    vectors: Type.Optional(
      Type.Record(
        Type.String({ pattern: collectionNamePattern, maxLength: 64 }),
        DocumentVector('A vector of the collection, by name.'),
        {
          maxProperties: 16,
          description:
            'Your own vectors by name, e.g. {"image": [...], "text": [...]}; the collection checks each size. No model runs for a name you give: a vector given for a name the collection’s model fills is stored instead of the model’s (it must have the model’s dimensions, and it is one vector for the whole document, searched with the model’s vectors however many chunks the content has).',
        },
      ),
    ),
    multi_vectors: Type.Optional(
      Type.Record(
        Type.String({ pattern: collectionNamePattern, maxLength: 64 }),
        Type.Array(DocumentVector('One vector of the list.'), {
          minItems: 1,
          maxItems: maxMultiVectors,
          description: 'The document’s vectors for this name, in order.',
        }),
        {
          maxProperties: 16,
          description:
            'Lists of vectors for the collection’s multi-vectors (declared with `multi: {max_vectors}`), by name, e.g. {"colbert": [[...], [...]]}: one to max_vectors vectors, each of the declared dimensions.',
        },
      ),
    ),
    sparse_vectors: Type.Optional(DocumentSparseVectors(collectionNamePattern)),
  },
  { additionalProperties: false },
);
export type DocumentInput = Static<typeof DocumentInput>;

/** One stored vector of a document under its collection vector name (GET with include_embeddings). */
export const NamedVector = Type.Object(
  {
    source: Enum(['given', 'model'] as const, {
      description:
        '`given`: you gave it with the document (for a name a model fills too, in which case the model did not run); `model`: the model computed it from the content.',
    }),
    model: Type.Optional(Type.String({ description: 'The model that fills this name, for a model’s name.' })),
    vector: Type.Optional(
      Type.Array(Type.Number(), { description: 'Source `given`: the vector, as you gave it (one per document).' }),
    ),
    chunks: Type.Optional(
      Type.Array(Type.Object({ chunk_id: Type.String(), vector: Type.Array(Type.Number()) }), {
        description: 'Source `model`: one vector per embedded chunk (unit length), as in `embeddings`.',
      }),
    ),
  },
  { description: 'A stored vector: `vector` when given, `chunks` when a model filled it.' },
);

/** A document as the API returns it: the input fields plus what the server derives. */
export const StoredDocument = Type.Composite([
  Type.Omit(DocumentInput, ['text_content', 'file_content']),
  Type.Object({
    id: Id,
    tenant_id: Type.String(),
    is_chunk: Type.Boolean(),
    is_parent: Type.Boolean(),
    is_child: Type.Boolean(),
    relation_type: Type.Optional(Type.String()),
    hierarchy_path: Type.Optional(Type.String()),
    translations: Type.Optional(Type.Record(Type.String(), Type.String())),
    processed_by: Type.Optional(Type.Array(Type.String())),
    model_versions: Type.Optional(Type.Record(Type.String(), Type.String())),
    version: Type.Integer(),
    previous_doc_id: Type.Optional(Type.String()),
    feedback: Type.Optional(Type.Unknown()),
    label: Type.Optional(Type.String()),
    needs_refresh: Type.Boolean(),
    is_dirty: Type.Boolean(),
    cluster: Type.Optional(Type.Integer({ description: 'k-means cluster, after POST /indexes/recluster.' })),
    chunks: Type.Optional(Type.Array(Type.Unknown())),
    embeddings: Type.Optional(Type.Unknown()),
    named_vectors: Type.Optional(
      Type.Record(Type.String(), NamedVector, {
        description:
          'With include_embeddings: every stored vector under its collection vector name, those a model filled included, each saying its source. `vectors` holds the ones you gave, as you gave them; `embeddings` the chunk vectors with their model.',
      }),
    ),
    stats: Type.Optional(Type.Unknown()),
  }),
]);

export const GetDocumentQuery = Type.Object(
  {
    include_embeddings: Type.Boolean({ default: false }),
    include_chunks: Type.Boolean({ default: false }),
    include_metadata: Type.Boolean({ default: true }),
    include_acl: Type.Boolean({ default: false }),
    include_stats: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export const DeleteDocumentQuery = Type.Object(
  {
    recursive: Type.Boolean({ default: false, description: 'Also delete child documents and chunks.' }),
    permanent: Type.Boolean({ default: false, description: 'Remove from the store and every index.' }),
  },
  { additionalProperties: false },
);

export const DocumentStats = Type.Object({
  DocumentCount: Type.Integer(),
  VectorCount: Type.Integer(),
  GeoCount: Type.Integer(),
  ClusterCount: Type.Integer(),
  AvgVectorDim: Type.Number(),
});

export const aclOperations = ['add', 'update', 'remove'] as const;
export const AclUpdate = Type.Object(
  {
    operation: Enum(aclOperations),
    acl: Type.Array(AclChange, { minItems: 1, maxItems: inputLimits.aclEntries }),
  },
  { additionalProperties: false },
);
