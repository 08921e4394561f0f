import { Type, type TSchema } from '@sinclair/typebox';
import { Enum, inputLimits, Name } from './common.js';
import { maxMultiVectors } from './collection.js';
import { FeedbackExplain, Filters, maxSearchLimit, SearchResult, TextFeedback } from './search.js';
import { SparseVector } from './sparse.js';
import { publishedAs } from '../openapi-view.js';

/** Pipelines nest at most this deep: the request's `prefetch` stages are level 1 (docs/decisions/0055). */
export const maxPipelineDepth = 3;
/** Stages one `prefetch` list holds at most. */
export const maxPipelineStages = 8;
/** Candidates a stage fetches by default, and at most. */
export const pipelineStageLimit = { default: 100, max: maxSearchLimit } as const;
/** The stage kinds: all but those in unsupportedStageKinds run; those are named so that a request for them is told they are not built. */
export const pipelineStageKinds = ['text', 'dense', 'filter', 'nested', 'sparse', 'multi_vector'] as const;
export const unsupportedStageKinds = [] as const;
/** Candidates a rerank step sends to its cross-encoder by default, and at most (docs/decisions/0060). */
export const rerankCandidates = { default: 50, max: 200 } as const;
export const pipelineFusions = ['rrf', 'dbsf', 'weighted'] as const;
export const decayFunctions = ['exp', 'gauss', 'linear'] as const;
export const groupListModes = ['each', 'first'] as const;
/** Reciprocal rank fusion's default constant k: score = Σ weight / (k + rank). */
export const defaultRrfK = 60;

const PipelineVector = (description: string) =>
  Type.Array(Type.Number({ minimum: -3.4e38, maximum: 3.4e38 }), {
    minItems: 1,
    maxItems: inputLimits.vectorDimensions,
    description,
  });

/** A query's list of vectors for a multi-vector (MaxSim), at most as many as a document may hold. */
const PipelineMultiVector = (description: string) =>
  Type.Array(PipelineVector('One query vector.'), { minItems: 1, maxItems: maxMultiVectors, description });

export const PipelineFusion = Type.Object(
  {
    method: Enum(pipelineFusions, {
      description:
        'One of rrf: Σ weight / (k + rank), rank from 1 in each stage; dbsf: Σ weight × the score normalised by its stage’s mean ± 3 standard deviations (clamped to 0–1); weighted: Σ weight × the score min-max normalised in its stage. A document a stage did not find gets nothing from it.',
    }),
    k: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: inputLimits.magnitude,
        description: `The rrf constant k (default ${defaultRrfK}).`,
      }),
    ),
    weights: Type.Optional(
      Type.Array(Type.Number({ minimum: 0, maximum: inputLimits.magnitude }), {
        minItems: 1,
        maxItems: maxPipelineStages,
        description: 'One weight per stage, in order (default 1 each).',
      }),
    ),
  },
  { additionalProperties: false, description: 'How the stages’ candidates are fused into one list.' },
);

export const PipelineRescore = Type.Object(
  {
    vector_name: Name({ description: 'One of the collection’s vectors (needs primary_table).' }),
    query: Type.Optional(
      Type.String({ maxLength: inputLimits.semanticQuery, description: 'Text to embed, for a model’s vector.' }),
    ),
    vector: Type.Optional(PipelineVector('The query vector, for one of the collection’s own vectors.')),
    multi_vector: Type.Optional(
      PipelineMultiVector(
        'For a multi-vector: the query’s vectors; each candidate scores exactly by MaxSim (Σ over these of its greatest similarity).',
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Scores every candidate of the stages exactly by its similarity to the query on this vector (a candidate without that vector is left out).',
  },
);

export const PipelineRerank = Type.Object(
  {
    model: Name({
      description:
        'A reranker this server configures: a local cross-encoder folder (RERANK_MODELS_DIR/<name>/) or an HTTP reranker named in RERANK_MODELS.',
    }),
    query: Type.Optional(
      Type.String({
        maxLength: inputLimits.semanticQuery,
        description: 'The text the candidates are scored against (default: the first stage’s `query`).',
      }),
    ),
    candidates: Type.Integer({
      minimum: 1,
      maximum: rerankCandidates.max,
      default: rerankCandidates.default,
      description: `The best candidates sent to the reranker (default ${rerankCandidates.default}, at most ${rerankCandidates.max}); the others are left out.`,
    }),
    field: Type.Optional(
      Name({
        description:
          'What text of a candidate is scored: content (default: its title and content), title, chunk (its best matching chunk, else its content) or a text field (metadata.<key>).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Scores the best candidates after fusion or rescore with a cross-encoder, each (query, text) pair together; the score becomes the reranker’s.',
  },
);

/** One stage; `levels` counts the levels it may still nest (1: its prefetch is refused, naming the limit). */
function stage(levels: number): TSchema {
  const nested =
    levels > 1
      ? Type.Array(stage(levels - 1), { minItems: 1, maxItems: maxPipelineStages, description: 'Nested stages.' })
      : Type.Array(Type.Unknown(), {
          maxItems: maxPipelineStages,
          description: `Not allowed at this level: pipelines nest at most ${maxPipelineDepth} levels.`,
        });
  return Type.Object(
    {
      kind: Enum(pipelineStageKinds, {
        description:
          'One of text: BM25 over titles and content (`query`); dense: nearest by a vector (`vector_name`, with `query` for a model’s vector or `vector` for your own; without it, the default model); filter: the documents `filters` allow, in id order, each scoring 1; nested: its own `prefetch` combined by its `fusion` or `rescore`; sparse: the exact dot-product top `limit` of `sparse_vector` on the collection’s sparse vector `vector_name`; multi_vector: by MaxSim on a multi-vector (`vector_name`, `multi_vector`), candidates found token by token in its HNSW index (`candidates` per query vector), then scored exactly. A cross-encoder is the request’s `rerank` step, not a stage.',
      }),
      query: Type.Optional(Type.String({ maxLength: inputLimits.semanticQuery, description: 'The query text.' })),
      vector: Type.Optional(PipelineVector('For dense: the query vector.')),
      vector_name: Type.Optional(
        Name({
          description:
            'For dense: one of the collection’s vectors; for sparse: one of its sparse vectors; for multi_vector: one of its multi-vectors.',
        }),
      ),
      sparse_vector: Type.Optional(SparseVector('For sparse: the query’s sparse vector.')),
      multi_vector: Type.Optional(PipelineMultiVector('For multi_vector: the query’s vectors.')),
      candidates: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: maxSearchLimit,
          description:
            'For multi_vector: documents gathered per query vector from the index before exact MaxSim (default: the larger of 100 and limit).',
        }),
      ),
      limit: Type.Integer({
        minimum: 1,
        maximum: pipelineStageLimit.max,
        default: pipelineStageLimit.default,
        description: `Candidates this stage answers (default ${pipelineStageLimit.default}, at most ${pipelineStageLimit.max}).`,
      }),
      filters: Type.Optional(Filters),
      prefetch: Type.Optional(nested),
      feedback: Type.Optional(TextFeedback),
      fusion: Type.Optional(PipelineFusion),
      rescore: Type.Optional(PipelineRescore),
    },
    { additionalProperties: false },
  );
}

export const DecayTerm = Type.Object(
  {
    function: Enum(decayFunctions, {
      description:
        'With x = max(0, |value − origin| − offset): exp = decay^(x / scale); gauss = decay^((x / scale)²); linear = max(0, 1 − (1 − decay) × x / scale). Each is `decay` at x = scale.',
    }),
    field: Name({
      description:
        'A date (created_at, updated_at, or metadata.<key> holding Unix seconds or an ISO 8601 date) or, with an origin {lat, lon}, a point (location or metadata.<key>).',
    }),
    origin: Type.Optional(
      publishedAs(Type.Unknown({ maxLength: inputLimits.name }), {
        description: 'A date (Unix seconds or ISO 8601; default now) or a point {lat, lon}.',
        anyOf: [
          { type: 'number' },
          { type: 'string', maxLength: inputLimits.name },
          {
            type: 'object',
            properties: { lat: { type: 'number' }, lon: { type: 'number' } },
            required: ['lat', 'lon'],
          },
        ],
      }),
    ),
    scale: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1e12,
      description: 'Seconds for a date, kilometres for a point.',
    }),
    offset: Type.Number({ minimum: 0, maximum: 1e12, default: 0, description: 'No decay within this distance.' }),
    decay: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.5, description: 'The value at scale.' }),
  },
  { additionalProperties: false },
);

export const FormulaTerm = Type.Object(
  {
    weight: Type.Number({ minimum: -inputLimits.magnitude, maximum: inputLimits.magnitude, default: 1 }),
    value: Type.Optional(
      Name({ description: 'The term: $score (the score so far) or a numeric field (metadata.<key>, created_at, …).' }),
    ),
    default: Type.Optional(
      Type.Number({
        minimum: -inputLimits.magnitude,
        maximum: inputLimits.magnitude,
        description: 'For a field a document lacks (default 0).',
      }),
    ),
    decay: Type.Optional(DecayTerm),
  },
  { additionalProperties: false, description: 'A term: weight × (`value`, or the `decay` of a date or a distance).' },
);

export const FormulaMultiplier = Type.Object(
  {
    field: Name({ description: 'A numeric field the score is multiplied by.' }),
    default: Type.Number({
      minimum: -inputLimits.magnitude,
      maximum: inputLimits.magnitude,
      default: 1,
      description: 'For a document that lacks the field.',
    }),
  },
  { additionalProperties: false },
);

export const PipelineFormula = Type.Object(
  {
    terms: Type.Array(FormulaTerm, { minItems: 1, maxItems: 16 }),
    multipliers: Type.Optional(Type.Array(FormulaMultiplier, { maxItems: 8 })),
  },
  { additionalProperties: false, description: 'A new score = (Σ terms) × Π multipliers.' },
);

export const PipelineMmr = Type.Object(
  {
    lambda: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description: '1: relevance only; 0: diversity only.',
    }),
    candidates: Type.Integer({
      minimum: 1,
      maximum: maxSearchLimit,
      default: 100,
      description: 'The best candidates MMR picks among (default 100).',
    }),
    vector_name: Type.Optional(
      Name({
        description:
          'The collection’s vector that documents are compared by (without it: the default model’s, as a dense stage without a name).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Maximal marginal relevance: picks, one at a time, the candidate maximising λ × relevance − (1 − λ) × its greatest similarity to those already picked (relevance: the score min-max normalised over the candidates).',
  },
);

export const PipelineGroupBy = Type.Object(
  {
    field: Name({ description: 'The field to group by (metadata.<key>, parent_doc_id, …).' }),
    group_size: Type.Integer({ minimum: 1, maximum: 100, default: 3, description: 'Hits per group.' }),
    limit: Type.Integer({ minimum: 1, maximum: maxSearchLimit, default: 10, description: 'Groups to answer.' }),
    list: Type.Optional(
      Enum(groupListModes, {
        description:
          'For a field holding a list (tags, categories): each (a document joins a group per value) or first (by its first value); required for such a field.',
      }),
    ),
  },
  { additionalProperties: false },
);

const WithChoice = (description: string) =>
  publishedAs(Type.Unknown({ maxItems: 64 }), {
    description,
    anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'string', maxLength: inputLimits.name } }],
  });

export const QueryRequest = Type.Object(
  {
    primary_table: Type.Optional(
      Name({ description: 'The collection whose vectors `vector_name` names, and the only one searched.' }),
    ),
    filters: Type.Optional(Filters),
    prefetch: Type.Array(stage(maxPipelineDepth), {
      minItems: 1,
      maxItems: maxPipelineStages,
      description: `The candidate stages (at most ${maxPipelineStages}; nested at most ${maxPipelineDepth} levels). The request’s filters and your access apply in every one.`,
    }),
    fusion: Type.Optional(PipelineFusion),
    rescore: Type.Optional(PipelineRescore),
    rerank: Type.Optional(PipelineRerank),
    formula: Type.Optional(PipelineFormula),
    mmr: Type.Optional(PipelineMmr),
    group_by: Type.Optional(PipelineGroupBy),
    offset: Type.Integer({
      minimum: 0,
      maximum: maxSearchLimit,
      default: 0,
      description: 'Results to skip (with group_by: groups to skip).',
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: maxSearchLimit,
      default: 10,
      description: `Results to return (default 10, at most ${maxSearchLimit}); with group_by, group_by.limit counts groups instead.`,
    }),
    with_vectors: Type.Optional(
      WithChoice(
        'Answer the collection’s own vectors (`vectors`) and sparse vectors (`sparse_vectors`): true for all, or a list of names of either kind.',
      ),
    ),
    with_fields: Type.Optional(WithChoice('Answer the stored fields: true for all, or a list of names.')),
    explain: Type.Boolean({ default: false, description: 'Answer each stage’s ids and scores (`explain`).' }),
  },
  { additionalProperties: false },
);

export const QueryResult = Type.Object({
  ...SearchResult.properties,
  vectors: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.Number()), { description: 'With with_vectors: the vectors by name.' }),
  ),
  sparse_vectors: Type.Optional(
    Type.Record(Type.String(), SparseVector('One of the document’s sparse vectors, as stored.'), {
      description: 'With with_vectors: the document’s sparse vectors by name, {indices, values}.',
    }),
  ),
  fields: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'With with_fields: the stored fields by name.' }),
  ),
});

export const QueryGroup = Type.Object({
  value: Type.String({ description: 'The group’s value (strings as they are, other values as JSON).' }),
  document_ids: Type.Array(Type.String(), { description: 'Its hits, best first (in `results` in this order).' }),
});

export const ExplainHit = Type.Object({ document_id: Type.String(), score: Type.Number() });

export const ExplainStage = Type.Object({
  stage: Type.String({
    description:
      'Where in the request: body.prefetch[0], body.prefetch[1].prefetch[0], body.fusion, body.rerank, body.formula, body.mmr, …',
  }),
  kind: Type.String({
    description:
      'The step: text, dense, sparse, filter, nested, multi_vector, fusion, rescore, rerank, formula or mmr.',
  }),
  hits: Type.Array(ExplainHit, { description: 'Its documents and scores, best first (at most 100).' }),
  feedback: Type.Optional(FeedbackExplain),
});

export const QueryResponse = Type.Object({
  results: Type.Array(QueryResult),
  groups: Type.Optional(Type.Array(QueryGroup, { description: 'With group_by: the groups, best first.' })),
  total_hits: Type.Integer({ description: 'Candidates after fusion or rescoring (before offset and limit).' }),
  time_taken: Type.Number({ description: 'Milliseconds spent in the engine.' }),
  notes: Type.Optional(Type.Array(Type.String(), { description: 'How the request was interpreted.' })),
  explain: Type.Optional(Type.Array(ExplainStage, { description: 'With explain: each stage’s documents and scores.' })),
});
