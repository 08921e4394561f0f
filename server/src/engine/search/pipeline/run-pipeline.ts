import { isGoDBError } from '@godb/contract';
import type { Collections } from '../../collections/collections.js';
import type { Embedder } from '../../embeddings/embedder.js';
import { planRerank, rerankHits, type RerankPlan } from '../../rerank/rerank-step.js';
import type { Rerankers } from '../../rerank/rerankers.js';
import { CandidateDocument } from '../candidate-document.js';
import { scrollDocuments } from '../document-scan.js';
import { fieldValue } from '../filters.js';
import { textMatch } from '../fts-query.js';
import { feedbackHits } from '../feedback-hits.js';
import type { FeedbackExplained } from '../../text/rm3-feedback.js';
import type { Hit } from '../hit.js';
import { resultViews, type SearchResultView } from '../result-view.js';
import type { Scope } from '../scope.js';
import { sparseHits } from '../../sparse/sparse-search.js';
import { SparsePostings } from '../../sparse/sparse-posting-rows.js';
import type { SearchCore } from '../search-core.js';
import { similarity } from '../vector-query.js';
import { clientVectorSearch, vectorSearch } from '../vector-search.js';
import { maxSimScores, multiVectorSearch } from '../../multi-vectors/multi-vector-search.js';
import { fuse } from './fusion.js';
import { groupBy } from './group-by.js';
import { mmr } from './mmr.js';
import type { PipelineRequest } from './pipeline-input.js';
import { PipelinePlanner, type CombinePlan, type PipelinePlan, type StagePlan } from './plan-pipeline.js';
import {
  at,
  bestSimilarity,
  documentVector,
  documentVectors,
  methodOf,
  queryVectorFor,
  type VectorTarget,
} from './vector-targets.js';

export interface PipelineDeps {
  readonly core: SearchCore;
  readonly embedder: Embedder;
  readonly collections: Collections;
  /** The configured rerankers (body.rerank); without them, a rerank is refused as an unknown model. */
  readonly rerankers?: Rerankers | undefined;
}

/** A result of the pipeline: a search result, with its vectors and fields when asked. */
export interface QueryResultView extends SearchResultView {
  vectors?: Record<string, number[]>;
  sparse_vectors?: Record<string, { indices: number[]; values: number[] }>;
  fields?: Record<string, unknown>;
}

/** One stage's documents and scores, for `explain`. */
export interface ExplainedStage {
  stage: string;
  kind: string;
  hits: { document_id: string; score: number }[];
  /** A text stage with feedback: its documents and weighted query. */
  feedback?: FeedbackExplained;
}

export interface PipelineAnswer {
  results: QueryResultView[];
  groups?: { value: string; document_ids: string[] }[];
  total_hits: number;
  notes: string[];
  explain?: ExplainedStage[];
}

/** Hits an explained stage lists at most. */
const explainedHits = 100;
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Runs a query pipeline (docs/decisions/0055): checks the whole request first (plan-pipeline.ts), then runs each
 * stage through the engine's own search functions under its scope — so the access rule and filters apply in every
 * stage as in every other search — combines them (fusion or rescore), then applies the formula, MMR, group_by and
 * the window. Rescoring, MMR and with_vectors read vectors only of documents a stage already found (and so may read).
 *
 * @example const answer = await runPipeline(deps, scope, { prefetch: [{ kind: 'text', query: 'shock', limit: 50 }], offset: 0, limit: 10, explain: false });
 */
export async function runPipeline(deps: PipelineDeps, scope: Scope, request: PipelineRequest): Promise<PipelineAnswer> {
  const plan = new PipelinePlanner(deps.collections, scope).plan(request);
  const rerank = request.rerank && planRerank(deps.rerankers, request.rerank, request.prefetch);
  return new PipelineRun(deps, scope, request, plan, rerank).run();
}

class PipelineRun {
  readonly #deps: PipelineDeps;
  readonly #scope: Scope;
  readonly #request: PipelineRequest;
  readonly #plan: PipelinePlan;
  readonly #notes: string[] = [];
  readonly #explain: ExplainedStage[] = [];
  /** Text stages' feedback, by stage path, for explain. */
  readonly #feedback = new Map<string, FeedbackExplained>();
  readonly #rerank: RerankPlan | undefined;
  readonly #sparse: SparsePostings;

  constructor(deps: PipelineDeps, scope: Scope, request: PipelineRequest, plan: PipelinePlan, rerank?: RerankPlan) {
    this.#rerank = rerank;
    this.#sparse = SparsePostings.of(deps.core.db);
    this.#deps = deps;
    this.#scope = scope;
    this.#request = request;
    this.#plan = plan;
  }

  async run(): Promise<PipelineAnswer> {
    const { core } = this.#deps;
    const plan = this.#plan;
    let hits = await this.#combine(plan.combine);
    const total = hits.length;
    if (this.#rerank) {
      fillRows(core, hits.slice(0, this.#rerank.input.candidates));
      hits = await rerankHits(core.rows, hits, this.#rerank, this.#request.signal);
      this.#record('body.rerank', 'rerank', hits);
    }
    if (plan.formula) {
      const formula = plan.formula;
      fillRows(core, hits);
      hits = hits.map((h) => ({ ...h, score: formula(h.score, h.doc) })).sort((a, b) => b.score - a.score);
      this.#record('body.formula', 'formula', hits);
    }
    if (plan.mmr) {
      hits = this.#diversify(hits, plan.mmr);
      this.#record('body.mmr', 'mmr', hits);
    }
    const { offset, limit } = this.#request;
    let page: Hit[];
    let groups: PipelineAnswer['groups'];
    if (plan.groupBy) {
      const group = plan.groupBy;
      fillRows(core, hits);
      const bySeq = new Map(hits.map((h) => [h.doc.seq, h]));
      const found = groupBy(
        hits.map((h) => h.doc.seq),
        (seq) => fieldValue(bySeq.get(seq)!.doc, group.field),
        { size: group.group_size, limit: group.limit, offset, list: group.list, field: group.field },
      );
      page = found.flatMap((g) => g.keys.map((seq) => bySeq.get(seq)!));
      groups = found.map((g) => ({ value: g.value, document_ids: g.keys.map((seq) => bySeq.get(seq)!.doc.id) }));
    } else page = hits.slice(offset, offset + limit);
    const results = this.#views(page);
    return {
      results,
      ...(groups && { groups }),
      total_hits: total,
      notes: this.#notes,
      ...(this.#request.explain && { explain: this.#explain }),
    };
  }

  async #combine(c: CombinePlan): Promise<Hit[]> {
    const lists: Hit[][] = [];
    for (const stage of c.stages) lists.push(await this.#stage(stage));
    if (c.how.kind === 'single') return lists[0]!;
    if (c.how.kind === 'fusion') {
      const { spec, defaulted } = c.how;
      if (defaulted)
        this.#notes.push(`${c.path}: ${c.stages.length} stages without fusion or rescore, fused by rrf (k ${spec.k})`);
      const first = firstHits(lists);
      const fused = fuse(
        lists.map((list) => list.map((h) => ({ key: h.doc.seq, score: h.score }))),
        spec,
      ).map(({ key, score }) => ({ ...first.get(key)!, score }));
      this.#record(`${c.path}.fusion`, 'fusion', fused);
      return fused;
    }
    const { target, query, vector, multi } = c.how;
    const candidates = [...firstHits(lists).values()];
    if (multi) {
      const rescored = maxSimScores(this.#deps.core, this.#scope.viewer.tenantId, multi, candidates);
      const dropped = candidates.length - rescored.length;
      if (dropped > 0) this.#notes.push(`${c.path}.rescore: ${dropped} candidates without that vector left out`);
      this.#record(`${c.path}.rescore`, 'rescore', rescored);
      return rescored;
    }
    const rescored = await this.#rescore(candidates, target, { query, vector }, `${c.path}.rescore`);
    this.#record(`${c.path}.rescore`, 'rescore', rescored);
    return rescored;
  }

  async #stage(stage: StagePlan): Promise<Hit[]> {
    const hits = await this.#source(stage);
    this.#record(stage.path, stage.kind, hits);
    return hits;
  }

  /** A stage's candidates, best first, from the engine's own search functions under the stage's scope. */
  async #source(stage: StagePlan): Promise<Hit[]> {
    const { core, embedder } = this.#deps;
    const { scope, limit } = stage;
    const signal = this.#request.signal;
    if (stage.kind === 'text') {
      const match = textMatch(stage.query, 'match');
      if (!match || !('words' in match)) return [];
      if (!stage.feedback) return core.textHits(scope, match, { limit }).slice(0, limit);
      // Feedback weighs terms, which only the in-memory index can: wait for it if it is still loading.
      await core.text.loaded(scope.viewer.tenantId);
      const found = feedbackHits(core, scope, match, stage.feedback, { limit });
      this.#feedback.set(stage.path, found.explained);
      for (const note of found.notes) this.#notes.push(`${stage.path}: ${note}`);
      return found.hits.slice(0, limit);
    }
    if (stage.kind === 'filter') {
      const { documents } = await scrollDocuments(core, scope, null, limit, signal);
      return documents.map((doc) => ({ doc, score: 1, chunks: [] }));
    }
    if (stage.kind === 'nested') return (await this.#combine(stage.combine)).slice(0, limit);
    if (stage.kind === 'multi_vector') {
      const found = await multiVectorSearch(core, scope, stage.query, limit, stage.perVector, signal);
      this.#notes.push(
        `${stage.path}: ${found.gathered} documents gathered from ${stage.query.vectors.length} query vectors (${stage.perVector} each), scored by exact MaxSim`,
      );
      return found.hits;
    }
    if (stage.kind === 'sparse')
      return sparseHits(core, this.#sparse, scope, stage.target, stage.sparse, limit, `${stage.path}.sparse_vector`);
    const { target } = stage;
    // Raw similarities (threshold −1 keeps every one), as hybrid search fuses them.
    const q = { text: stage.query, vector: stage.vector, threshold: -1, calibrated: false, limit, signal };
    try {
      const found =
        target.kind === 'own'
          ? await clientVectorSearch(core, scope, target.space, { ...q, method: target.space.settings.distance })
          : await vectorSearch(core, embedder, scope, { ...q, model: target.model, method: 'cosine' });
      return found.hits.slice(0, limit);
    } catch (error) {
      const query = isGoDBError(error) && error.code === 'QUERY_REQUIRED';
      throw at(error, `${stage.path}.${query ? 'query' : 'vector'}`);
    }
  }

  /** The candidates scored exactly by their similarity to the rescore's query on its vector; those without it drop. */
  async #rescore(
    candidates: Hit[],
    target: VectorTarget,
    input: { query?: string | undefined; vector?: readonly number[] | undefined },
    path: string,
  ): Promise<Hit[]> {
    const { embedder } = this.#deps;
    const query = await queryVectorFor(embedder, target, input, path, this.#request.signal);
    const vectors = this.#vectorsOf(target, candidates);
    const method = methodOf(target);
    const rescored: Hit[] = [];
    for (const hit of candidates) {
      const own = vectors.get(hit.doc.seq);
      if (own) rescored.push({ ...hit, score: bestSimilarity(method, query, own) });
    }
    const dropped = candidates.length - rescored.length;
    if (dropped > 0) this.#notes.push(`${path}: ${dropped} candidates without that vector left out`);
    return rescored.sort((a, b) => b.score - a.score);
  }

  /** MMR over the best `candidates`: they are answered in pick order; the others are left out. */
  #diversify(hits: Hit[], spec: NonNullable<PipelinePlan['mmr']>): Hit[] {
    const pool = hits.slice(0, spec.candidates);
    const vectors = this.#vectorsOf(spec.target, pool);
    const method = methodOf(spec.target);
    const candidates = pool.map((h) => ({
      key: h.doc.seq,
      score: h.score,
      vector: documentVector(vectors.get(h.doc.seq)),
    }));
    const lacking = candidates.filter((c) => !c.vector).length;
    if (lacking > 0) this.#notes.push(`body.mmr: ${lacking} candidates without that vector count as similar to none`);
    const bySeq = new Map(pool.map((h) => [h.doc.seq, h]));
    return mmr(candidates, spec.lambda, pool.length, (a, b) => similarity(method, a, b)).map((seq) => bySeq.get(seq)!);
  }

  #vectorsOf(target: VectorTarget, hits: readonly Hit[], raw = false): Map<number, Float32Array[]> {
    const { core, embedder } = this.#deps;
    const docs = hits.map((h) => h.doc);
    return documentVectors(core, this.#scope.viewer.tenantId, target, docs, embedder.resolve(undefined).name, raw);
  }

  #record(stage: string, kind: string, hits: readonly Hit[]): void {
    if (!this.#request.explain) return;
    const top = hits.slice(0, explainedHits);
    fillRows(this.#deps.core, top);
    const feedback = this.#feedback.get(stage);
    this.#explain.push({
      stage,
      kind,
      hits: top.map((h) => ({ document_id: h.doc.id, score: round(h.score) })),
      ...(feedback && { feedback }),
    });
  }

  #views(page: Hit[]): QueryResultView[] {
    const { core } = this.#deps;
    const views: QueryResultView[] = resultViews(core.rows, page, page.length);
    const { withVectors, withSparse, withFields } = this.#plan;
    if (withVectors.length === 0 && withSparse.length === 0 && withFields === undefined) return views;
    fillRows(core, page);
    const byId = new Map(page.map((h) => [h.doc.id, h]));
    const vectors = withVectors.map(({ name, target }) => ({ name, found: this.#vectorsOf(target, page, true) }));
    for (const view of views) {
      const doc = byId.get(view.document_id)?.doc;
      if (withVectors.length > 0) {
        view.vectors = {};
        for (const { name, found } of vectors) {
          const [vector] = (doc && found.get(doc.seq)) ?? [];
          if (vector) view.vectors[name] = Array.from(vector);
        }
      }
      if (withSparse.length > 0 && doc) {
        // As stored in the document's fields (the postings derive from them), under each asked name it has.
        const stored = (doc.fields as { sparse_vectors?: QueryResultView['sparse_vectors'] }).sparse_vectors ?? {};
        view.sparse_vectors = {};
        for (const name of withSparse) {
          const v = stored[name];
          if (v) view.sparse_vectors[name] = { indices: [...v.indices], values: [...v.values] };
        }
      }
      if (withFields !== undefined && doc)
        view.fields =
          withFields === true
            ? { ...doc.fields }
            : Object.fromEntries(
                withFields.flatMap((f) => (fieldValue(doc, f) === undefined ? [] : [[f, fieldValue(doc, f)]])),
              );
    }
    return views;
  }
}

/** Each document's hit as the first stage that found it gave it, in order of first appearance. */
function firstHits(lists: readonly (readonly Hit[])[]): Map<number, Hit> {
  const first = new Map<number, Hit>();
  for (const list of lists)
    for (const hit of list) {
      const known = first.get(hit.doc.seq);
      if (!known) first.set(hit.doc.seq, { ...hit });
      else if (known.chunks.length === 0 && hit.chunks.length > 0)
        first.set(hit.doc.seq, { ...known, chunks: hit.chunks });
    }
  return first;
}

/** Reads the rows of candidates known only by seq in one query (formula, group_by, ids read their fields). */
function fillRows(core: SearchCore, hits: readonly Hit[]): void {
  const unread = hits.flatMap((h) => (h.doc instanceof CandidateDocument && !h.doc.complete ? [h.doc] : []));
  if (unread.length === 0) return;
  const rows = new Map(core.rows.fullRows(unread.map((d) => d.seq)).map((row) => [row[0], row]));
  for (const doc of unread) doc.fill(rows.get(doc.seq));
}
