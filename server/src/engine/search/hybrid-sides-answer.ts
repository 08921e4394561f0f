import { chunkId } from '../documents/document-view.js';
import { withHighlights } from './highlights.js';
import type { Hit } from './hit.js';
import type { HybridSides } from './hybrid-search.js';
import { resultViews, type SearchResultView } from './result-view.js';
import type { SearchCore } from './search-core.js';
import type { AnswerPlan } from './text-filter-plan.js';

/** A document one side of a hybrid search found here, keyed by ids (which every node shares), and its result. */
export interface SideRecord {
  readonly document_id: string;
  /** The side's raw score (BM25, or the similarity), unrounded: the fusion's input. */
  readonly score: number;
  readonly chunks: readonly { readonly id: string; readonly score: number }[];
  /** The result as this side alone would show it (highlighted when asked); the fan-out sets its fused scores. */
  readonly view: SearchResultView;
}

/**
 * A node's answer to the sides round of a partitioned collection's hybrid search (service/search/partitioned-hybrid.ts):
 * each side's best documents here, which the asking node merges over the shards and fuses as one node would.
 */
export interface HybridSidesAnswer {
  readonly text: readonly SideRecord[];
  readonly vector: readonly SideRecord[];
  /** A document of the tenant's text index is split into several chunks: chunks then do not fuse alike. */
  readonly split: boolean;
  readonly notes: readonly string[];
  readonly plan: AnswerPlan;
  readonly time_taken: number;
}

/**
 * The sides of a hybrid search as records by id: each hit's chunks named by their ids (document id and chunk
 * index), its result rendered here, with highlights of `terms` when given.
 *
 * @example const answer = hybridSidesAnswer(core, sides, { split: false, notes: [], terms: undefined, elapsed });
 */
export function hybridSidesAnswer(
  core: SearchCore,
  sides: HybridSides,
  extra: { split: boolean; notes: readonly string[]; terms: ReadonlySet<string> | undefined; elapsed: () => number },
): HybridSidesAnswer {
  const seqs = [...sides.textHits, ...sides.vectorHits].flatMap((h) => h.chunks.map((c) => c.seq));
  const texts = core.rows.chunkTexts([...new Set(seqs)]);
  const records = (hits: readonly Hit[]): SideRecord[] => {
    // Ids first: rendering gives a hit without chunks its document's first (result-view.ts).
    const chunks = hits.map((h) =>
      h.chunks.flatMap((c) => {
        const text = texts.get(c.seq);
        return text ? [{ id: chunkId(h.doc.id, text.chunk_index), score: c.score }] : [];
      }),
    );
    const scores = hits.map((h) => h.score);
    const rendered = { results: resultViews(core.rows, hits, hits.length) };
    const views = extra.terms ? withHighlights(rendered, hits, extra.terms).results : rendered.results;
    const byId = new Map(views.map((v) => [v.document_id, v]));
    return hits.flatMap((h, i) => {
      const view = byId.get(h.doc.id);
      return view ? [{ document_id: h.doc.id, score: scores[i]!, chunks: chunks[i]!, view }] : [];
    });
  };
  return {
    text: records(sides.textHits),
    vector: records(sides.vectorHits),
    split: extra.split,
    notes: extra.notes,
    plan: sides.plan,
    time_taken: extra.elapsed(),
  };
}
