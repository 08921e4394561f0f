/**
 * Example answers of the search operations, one per kind of search so each shows the scores and fields that search
 * really gives (BM25 scores for text, cosine similarity for vector, fused scores for hybrid, kilometres for geo…).
 * The Cranfield collection (aerodynamics abstracts) is the corpus of the benchmarks, so the examples use it too.
 */
const transition = {
  document_id: 'cran-0012',
  title: 'boundary layer transition on a flat plate',
  metadata: { author: 'smith, j.' },
} as const;
const chunk = (id: string, content: string, score: number) => ({ id, content, type: 'text', score });

/** Text search and the search box: BM25 scores, unbounded. */
export const exampleSearchResponse = {
  results: [
    {
      ...transition,
      chunks: [
        chunk(
          'cran-0012#0',
          'experimental investigation of boundary layer transition on a flat plate at supersonic speeds',
          12.41,
        ),
      ],
      score: 12.41,
    },
  ],
  total_hits: 1,
  time_taken: 1.8,
} as const;

/** Vector search (use-lite-512): the calibrated relevance as score, 0 to 1, and the cosine beside it as similarity. */
export const exampleVectorResponse = {
  results: [
    {
      document_id: 'cran-0184',
      title: 'heat transfer to a blunt body in hypersonic flow',
      chunks: [chunk('cran-0184#0', 'measurements of stagnation point heat transfer at mach 8 on blunt bodies', 0.83)],
      metadata: { author: 'lees, l.' },
      score: 0.83,
      similarity: 0.622,
    },
    {
      document_id: 'cran-0329',
      title: 'aerodynamic heating of a cone at high speed',
      chunks: [chunk('cran-0329#1', 'the laminar heating rate along the cone surface was computed', 0.71)],
      metadata: { author: 'van driest, e. r.' },
      score: 0.71,
      similarity: 0.355,
    },
  ],
  total_hits: 2,
  time_taken: 6.4,
} as const;

/** Hybrid search: alpha-weighted text and vector scores, each side normalised (dbsf_relative by default), and the ranking used. */
export const exampleHybridResponse = {
  results: [
    {
      document_id: 'cran-0207',
      title: 'interaction of a shock wave with a turbulent boundary layer',
      chunks: [
        chunk('cran-0207#0', 'the separation of a turbulent boundary layer ahead of an incident shock wave', 0.92),
      ],
      metadata: { author: 'green, j. e.' },
      score: 0.92,
    },
    {
      ...transition,
      chunks: [
        chunk(
          'cran-0012#0',
          'experimental investigation of boundary layer transition on a flat plate at supersonic speeds',
          0.48,
        ),
      ],
      score: 0.48,
    },
  ],
  total_hits: 2,
  time_taken: 7.9,
  ranking: 'dbsf_relative',
} as const;

/** Geo search: nearest first, score 1 − distance / radius, distance in kilometres. */
export const exampleGeoResponse = {
  results: [
    {
      document_id: 'site-berlin-tegel',
      title: 'wind tunnel at berlin tegel',
      chunks: [],
      metadata: { city: 'Berlin' },
      score: 0.61,
      distance: 9.7,
    },
    {
      document_id: 'site-potsdam',
      title: 'low-speed test facility, potsdam',
      chunks: [],
      metadata: { city: 'Potsdam' },
      score: 0.04,
      distance: 24.1,
    },
  ],
  total_hits: 2,
  time_taken: 0.9,
} as const;

/** Fuzzy search: BM25 over the expansions of each word, which the notes list with their edit distance. */
export const exampleFuzzyResponse = {
  results: [
    {
      ...transition,
      chunks: [
        chunk(
          'cran-0012#0',
          'experimental investigation of boundary layer transition on a flat plate at supersonic speeds',
          9.87,
        ),
      ],
      score: 9.87,
    },
  ],
  total_hits: 1,
  time_taken: 3.2,
  notes: ['boundery → boundary (1)', 'layr → layer (1), lay (1)'],
} as const;

/** Multi-table search: each result names its table and the partner documents of the join. */
export const exampleMultiTableResponse = {
  results: [
    {
      ...transition,
      chunks: [
        chunk(
          'cran-0012#0',
          'experimental investigation of boundary layer transition on a flat plate at supersonic speeds',
          7.35,
        ),
      ],
      score: 7.35,
      table: 'papers',
      joined: [{ table: 'authors', document_id: 'author-smith-j', title: 'J. Smith' }],
    },
  ],
  total_hits: 1,
  time_taken: 2.6,
} as const;

/** Recommendations: the weighted score and what each strategy gave (0 to 1). */
export const exampleRecommendationsResponse = {
  results: [
    {
      document_id: 'cran-0013',
      title: 'transition of the laminar boundary layer in a supersonic stream',
      chunks: [],
      metadata: { author: 'smith, j.' },
      score: 0.77,
      strategies: { content: 0.88, collaborative: 0.6, graph: 0.8 },
    },
    {
      document_id: 'cran-0207',
      title: 'interaction of a shock wave with a turbulent boundary layer',
      chunks: [],
      metadata: { author: 'green, j. e.' },
      score: 0.45,
      strategies: { content: 0.74, graph: 0.5 },
    },
  ],
  total_hits: 2,
  time_taken: 11.3,
} as const;
