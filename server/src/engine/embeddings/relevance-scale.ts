/**
 * Calibrated relevance: where a model's cosine similarities fall. Sentence encoders do not share a scale — an
 * obvious match scores 0.43 with use-lite-512, and averaged GloVe vectors score 0.8 for unrelated texts — so a
 * fixed threshold (the specification's 0.7) would find nothing with one and everything with the other. Vector
 * search applies `threshold` to the calibrated relevance (cosine − unrelated) / (related − unrelated), which is 0
 * at the median cosine of unrelated texts and 1 at the median cosine of the best-judged answers, measured on
 * Cranfield by `npm run bench:calibrate`. Models without a scale (your own ONNX folders, remote providers) use
 * the raw cosine. Scores in answers stay the exact similarity of the method asked for.
 */
export interface RelevanceScale {
  /** Median cosine of a query and a random, unjudged document. */
  readonly unrelated: number;
  /** Median cosine of a query and its best-judged documents. */
  readonly related: number;
}

export const relevanceScales: Readonly<Record<string, RelevanceScale>> = {
  'use-lite-512': { unrelated: 0.13, related: 0.42 },
  'glove-100': { unrelated: 0.59, related: 0.72 },
};

/** The raw cosine at which a model's calibrated relevance equals `threshold`. */
export function cosineAt(model: string, threshold: number): number {
  const scale = relevanceScales[model];
  return scale ? scale.unrelated + threshold * (scale.related - scale.unrelated) : threshold;
}

/**
 * The score, for a similarity method, at which a model's calibrated relevance equals `threshold`. Stored vectors
 * and embedded queries are unit length, so dot equals cosine and euclidean's 1 / (1 + d) has d = √(2 − 2·cos).
 */
export function scoreAt(model: string, method: 'cosine' | 'dot' | 'euclidean', threshold: number): number {
  const cosine = cosineAt(model, threshold);
  return method === 'euclidean' ? 1 / (1 + Math.sqrt(Math.max(0, 2 - 2 * cosine))) : cosine;
}

/** What share of related and unrelated pairs a threshold keeps under a scale (for the calibration bench). */
export function evaluateScale(
  scale: RelevanceScale,
  related: readonly number[],
  unrelated: readonly number[],
  threshold: number,
): { relatedKept: number; unrelatedKept: number } {
  const cut = scale.unrelated + threshold * (scale.related - scale.unrelated);
  return {
    relatedKept: related.filter((x) => x >= cut).length / related.length,
    unrelatedKept: unrelated.filter((x) => x >= cut).length / unrelated.length,
  };
}
