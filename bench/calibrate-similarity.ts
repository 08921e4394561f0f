// npm run bench:calibrate — where each shipped embedding model's cosine similarities fall on Cranfield, for the
// calibrated relevance that vector search's `threshold` applies to (engine/embeddings/relevance-scale.ts).
// For every model: cosine of each question with the passage that answers it ("related") and with the passages of
// other subjects ("unrelated", bench/calibration-pairs.ts); the scale maps the unrelated median to 0 and the
// cosine that keeps 90 % of related pairs to 0.7, the default threshold. Cranfield (every document about aerodynamics) shows what the shipped scale keeps there.
import { evaluateScale, relevanceScales } from '../server/src/engine/embeddings/relevance-scale.js';
import { calibrationPairs } from './calibration-pairs.js';
import { loadCranfield } from './cranfield.js';
import { benchEngine, random } from './engine-fixture.js';
import { caveat, saveResults, table } from './support.js';

const c = loadCranfield();
caveat();
const { engine, dispose } = benchEngine();
const next = random(42);
const rows: Record<string, string | number>[] = [];
const unit = (v: Float32Array) => {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
};
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)]!;
try {
  for (const model of ['use-lite-512', 'glove-100']) {
    const embed = async (texts: string[]) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 64)
        out.push(...(await engine.embedder.embed(model, texts.slice(i, i + 64))).map((e) => unit(e.vector)));
      return out;
    };
    const questions = await embed(calibrationPairs.map((p) => p.question));
    const passages = await embed(calibrationPairs.map((p) => p.passage));
    const related = questions.map((q, i) => dot(q, passages[i]!));
    const unrelated = questions.flatMap((q, i) => passages.filter((_p, j) => j !== i).map((p) => dot(q, p)));
    // Cranfield: each query with its best-judged documents, and with random unjudged ones.
    const docs = new Map(c.docs.map((d, i) => [d.id, i]));
    const docVectors = await embed(c.docs.map((d) => `${d.title}\n${d.text}`));
    const queryVectors = await embed(c.queries.map((q) => q.text));
    const cranRelated: number[] = [];
    const cranUnrelated: number[] = [];
    c.queries.forEach((q, qi) => {
      const judged = c.qrels.get(q.id);
      if (!judged) return;
      const best = Math.max(...judged.values());
      for (const [doc, gain] of judged)
        if (gain === best) cranRelated.push(dot(queryVectors[qi]!, docVectors[docs.get(doc)!]!));
      for (let k = 0; k < 20; k += 1) {
        const doc = c.docs[Math.floor(next() * c.docs.length)]!.id;
        if (!judged.has(doc)) cranUnrelated.push(dot(queryVectors[qi]!, docVectors[docs.get(doc)!]!));
      }
    });
    // 0 at the unrelated median, 0.7 where 90 % of related pairs are kept: 1 lies 1/0.7 of that way.
    const zero = quantile(unrelated, 0.5);
    const measured = { unrelated: zero, related: zero + (quantile(related, 0.1) - zero) / 0.7 };
    const shipped = relevanceScales[model];
    const check = shipped ? evaluateScale(shipped, related, unrelated, 0.7) : undefined;
    const cran = shipped ? evaluateScale(shipped, cranRelated, cranUnrelated, 0.7) : undefined;
    rows.push({
      model,
      'measured scale': `${measured.unrelated.toFixed(3)} → ${measured.related.toFixed(3)}`,
      'shipped scale': shipped ? `${shipped.unrelated} → ${shipped.related}` : 'none',
      'related kept at 0.7': check ? `${(check.relatedKept * 100).toFixed(0)} %` : '',
      'unrelated kept at 0.7': check ? `${(check.unrelatedKept * 100).toFixed(1)} %` : '',
      'Cranfield best-judged kept': cran ? `${(cran.relatedKept * 100).toFixed(0)} %` : '',
      'Cranfield random kept': cran ? `${(cran.unrelatedKept * 100).toFixed(1)} %` : '',
    });
  }
  table(rows);
  saveResults('calibrate-similarity', { rows });
} finally {
  await dispose();
}
