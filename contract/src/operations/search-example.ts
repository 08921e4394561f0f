/** A realistic search answer shared by the search operations' examples. */
export const exampleSearchResponse = {
  results: [
    {
      document_id: 'cran-0012',
      title: 'boundary layer transition on a flat plate',
      chunks: [
        {
          id: 'cran-0012#0',
          content: 'experimental investigation of boundary layer transition on a flat plate at supersonic speeds',
          type: 'text',
          score: 12.41,
        },
      ],
      metadata: { author: 'smith, j.' },
      score: 12.41,
    },
  ],
  total_hits: 1,
  time_taken: 1.8,
} as const;
