/**
 * Calibrated relevance: where a model's cosine similarities fall. Sentence encoders do not share a scale — an
 * obvious match scores 0.43 with use-lite-512, and averaged GloVe vectors score 0.8 for unrelated texts — so a
 * fixed threshold (the specification's 0.7) would find nothing with one and everything with the other. Vector
 * search answers a hit's `score` as its relevance for the model (relevanceOf: 0 at the median cosine of
 * unrelated texts, 0.7 where 90 % of questions keep their answer, measured by `npm run bench:calibrate`, 1 for the
 * same text) and applies `threshold` to that score; the method's exact similarity is answered beside it as
 * `similarity` (docs/decisions/0002). Models without a scale (your own ONNX folders, remote providers) answer
 * the raw similarity as the score.
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

/** The relevance at which the calibrated part of the scale ends and the rest of the cosines up to 1 begin. */
const calibratedUpTo = 0.7;

/**
 * A cosine at least this close to 1 is the same text: float32 unit vectors of one text often have a cosine of
 * 0.99999994, and threshold 1 must keep them.
 */
export const sameTextCosine = 1 - 1e-6;

/**
 * A cosine's relevance for a model, in [0, 1] and rising with the cosine: 0 up to the median cosine of unrelated
 * texts, then linear as calibrated ((cosine − unrelated) / (related − unrelated)) up to 0.7, the specification's
 * default threshold, then linear again to 1 at a cosine of 1 (the same text). Models without a scale: the cosine.
 */
export function relevanceOf(model: string, cosine: number): number {
  const scale = relevanceScales[model];
  if (!scale) return cosine;
  const knee = cosineAt(model, calibratedUpTo);
  if (cosine >= sameTextCosine) return 1;
  if (cosine <= scale.unrelated) return 0;
  if (cosine <= knee) return Math.min(calibratedUpTo, (cosine - scale.unrelated) / (scale.related - scale.unrelated));
  return Math.min(1, calibratedUpTo + ((1 - calibratedUpTo) * (cosine - knee)) / (1 - knee));
}

/** Whether a model's scores are calibrated relevance (relevanceOf) rather than raw similarity. */
export const hasScale = (model: string): boolean => relevanceScales[model] !== undefined;

/** The raw cosine at which a model's relevance (relevanceOf) equals `threshold` (1: the same text, sameTextCosine). */
export function cosineAt(model: string, threshold: number): number {
  const scale = relevanceScales[model];
  if (threshold >= 1) return sameTextCosine;
  if (!scale) return threshold;
  if (threshold <= calibratedUpTo) return scale.unrelated + threshold * (scale.related - scale.unrelated);
  const knee = scale.unrelated + calibratedUpTo * (scale.related - scale.unrelated);
  return knee + ((threshold - calibratedUpTo) / (1 - calibratedUpTo)) * (1 - knee);
}

/**
 * The score, for a similarity method, at which a model's calibrated relevance equals `threshold`. Stored vectors
 * and embedded queries are unit length, so dot equals cosine and euclidean's 1 / (1 + d) has d = √(2 − 2·cos).
 */
export function scoreAt(model: string, method: 'cosine' | 'dot' | 'euclidean', threshold: number): number {
  const cosine = cosineAt(model, threshold);
  return method === 'euclidean' ? 1 / (1 + Math.sqrt(Math.max(0, 2 - 2 * cosine))) : cosine;
}

/** The cosine behind a method's score of unit vectors (euclidean's s = 1 / (1 + d), d² = 2 − 2·cos). */
export function cosineOf(method: 'cosine' | 'dot' | 'euclidean', score: number): number {
  if (method !== 'euclidean') return score;
  const d = 1 / score - 1;
  return 1 - (d * d) / 2;
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
