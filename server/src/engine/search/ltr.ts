import type { Hit } from './hit.js';

export const rankingModelName = 'engagement-logistic';
/** Engaged and not-engaged candidates needed to fit the ranking model. */
export const minExamples = 3;

export interface RankingFeatures {
  readonly text: number;
  readonly vector: number;
  readonly engagement: number;
  readonly recency: number;
}

/** log(1 + positive engagement), from the document's stored engagement counters. */
export function engagementFeature(hit: Hit): number {
  const e = (hit.doc.fields.engagement ?? {}) as Record<string, unknown>;
  const n = (k: string) => (typeof e[k] === 'number' ? (e[k] as number) : 0);
  return Math.log1p(Math.max(0, n('clicks') + n('likes') + n('views') + n('shares') + n('bookmarks') - n('dislikes')));
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * Learning to rank from engagement: a logistic regression over (text score, vector score, engagement, recency)
 * fitted on this query's candidates, labelling those with engagement events as relevant, then used to re-rank
 * them. Needs at least 3 engaged and 3 other candidates; otherwise it says why and the fused order stands.
 */
export function learnToRank(
  candidates: readonly { hit: Hit; features: RankingFeatures }[],
  engaged: ReadonlySet<number>,
): { ranked: Hit[]; note: string; trained: boolean; weights?: number[] } {
  const positives = candidates.filter((c) => engaged.has(c.hit.doc.seq)).length;
  const negatives = candidates.length - positives;
  if (positives < minExamples || negatives < minExamples) {
    return {
      ranked: candidates.map((c) => c.hit),
      trained: false,
      note: `use_ml_ranking: too little engagement to train ${rankingModelName} (${positives} engaged and ${negatives} other candidates; ${minExamples} of each needed); results use the fused score`,
    };
  }
  const x = candidates.map((c) => [1, c.features.text, c.features.vector, c.features.engagement, c.features.recency]);
  const y = candidates.map((c) => (engaged.has(c.hit.doc.seq) ? 1 : 0));
  const w = [0, 0, 0, 0, 0];
  const rate = 0.5;
  const l2 = 0.01;
  for (let epoch = 0; epoch < 300; epoch += 1) {
    const gradient = [0, 0, 0, 0, 0];
    x.forEach((row, i) => {
      const error = sigmoid(row.reduce((s, v, j) => s + v * w[j]!, 0)) - y[i]!;
      row.forEach((v, j) => (gradient[j]! += error * v));
    });
    w.forEach((_v, j) => (w[j]! -= rate * (gradient[j]! / x.length + (j > 0 ? l2 * w[j]! : 0))));
  }
  const ranked = candidates
    .map((c, i) => {
      c.hit.score = sigmoid(x[i]!.reduce((s, v, j) => s + v * w[j]!, 0));
      return c.hit;
    })
    .sort((a, b) => b.score - a.score);
  return {
    ranked,
    trained: true,
    weights: w,
    note: `use_ml_ranking: ${rankingModelName} trained on ${candidates.length} candidates (${positives} engaged)`,
  };
}
